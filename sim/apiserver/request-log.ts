// Every request the simulated API server answered, in the testbed audit log's shape, so tests and benchmarks
// count requests the same way on both clusters.

export interface RequestEntry {
  /** get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  /** `pods`, or with the subresource as the audit log writes it: `pods/eviction`; '' for non-resource paths. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** HTTP status; 0 when the connection was dropped without an answer. */
  code: number;
  uri: string;
  /** The bearer token of the request (kubeConfig({ user }) sends the user name as its token). */
  user: string;
  at: string;
  /** The fault injected into this request, if any. */
  fault?: string;
}

export interface RequestFilter {
  /** A value of `mark()`: only requests recorded after it. */
  since?: number;
  verb?: string;
  resource?: string;
  user?: string;
}

export class RequestLog {
  private readonly kept: RequestEntry[] = [];
  /** Absolute index of kept[0]; older entries were dropped to bound memory. */
  private offset = 0;
  private readonly byVerb = new Map<string, number>();
  private readonly byCode = new Map<number, number>();
  private readonly byUser = new Map<string, number>();

  constructor(private readonly limit = 200_000) {}

  record(entry: RequestEntry): void {
    this.kept.push(entry);
    if (this.kept.length > this.limit * 1.1) {
      const drop = this.kept.length - this.limit;
      this.kept.splice(0, drop);
      this.offset += drop;
    }
    const key = `${entry.verb} ${entry.resource}`;
    this.byVerb.set(key, (this.byVerb.get(key) ?? 0) + 1);
    this.byCode.set(entry.code, (this.byCode.get(entry.code) ?? 0) + 1);
    this.byUser.set(entry.user, (this.byUser.get(entry.user) ?? 0) + 1);
  }

  /** Position after the last recorded request; pass it as `since`. */
  mark(): number {
    return this.offset + this.kept.length;
  }

  entries(filter: RequestFilter = {}): RequestEntry[] {
    const from = Math.max(0, (filter.since ?? 0) - this.offset);
    return this.kept
      .slice(from)
      .filter((e) => (filter.verb === undefined || e.verb === filter.verb) && (filter.resource === undefined || e.resource === filter.resource) && (filter.user === undefined || e.user === filter.user));
  }

  /** Requests by "verb resource" (`{ "list nodes": 1, "patch nodes": 2 }`), as the testbed's AuditLog counts them. */
  countByVerb(filter: RequestFilter = {}): Record<string, number> {
    if (filter.since === undefined && filter.verb === undefined && filter.resource === undefined && filter.user === undefined) {
      return Object.fromEntries(this.byVerb);
    }
    const counts: Record<string, number> = {};
    for (const e of this.entries(filter)) {
      const key = `${e.verb} ${e.resource}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** Requests by user (bearer token); kept for every request, like the other counts without a filter. */
  countByUser(filter: RequestFilter = {}): Record<string, number> {
    if (Object.keys(filter).length === 0) return Object.fromEntries(this.byUser);
    const counts: Record<string, number> = {};
    for (const e of this.entries(filter)) counts[e.user] = (counts[e.user] ?? 0) + 1;
    return counts;
  }

  /** Requests by HTTP status code, e.g. `{ "200": 12, "409": 1 }`. */
  countByCode(filter: RequestFilter = {}): Record<string, number> {
    if (Object.keys(filter).length === 0) return Object.fromEntries([...this.byCode].map(([k, v]) => [String(k), v]));
    const counts: Record<string, number> = {};
    for (const e of this.entries(filter)) counts[String(e.code)] = (counts[String(e.code)] ?? 0) + 1;
    return counts;
  }
}
