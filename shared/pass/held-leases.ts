// The pass leases of one `kmaint run`: each taken the first time its function has something to write, kept for the
// whole run (renewed once a third of its duration is used), and given back when the run ends.
import { errorMessage } from '../errors/index.ts';
import type { V1Lease } from '@kubernetes/client-node';
import type { KubeClient } from '../kube/index.ts';
import { acquirePassLease, releasePassLease, renewPassLease, withLeaseAnnotations, type LeaseOutcome } from './lease.ts';
import type { PassLogger } from './logger.ts';
import type { PassSummary } from './summary.ts';

export interface HeldLeasesOptions {
  client: KubeClient;
  namespace: string;
  /** One identity for the whole run: every pass of it holds the lease under this name. */
  holder: string;
  /** @default 120 */
  durationSeconds?: number;
  now: () => Date;
  /** Where a lease that could not be given back is reported (it then expires on its own). */
  logger?: PassLogger;
}

interface Held {
  lease: V1Lease;
  renewedAt: number;
}

/**
 * A lease kept across passes is as safe as one taken per pass: a pass acts only while it holds a lease it renewed at
 * most a third of its duration ago (so at least two thirds of it are left for the pass), and a run killed mid-way
 * leaves it to expire exactly as a killed pass did. Renewals are preconditioned on the resourceVersion we wrote, so
 * a lease that expired and was taken over is never written back.
 */
export class HeldLeases {
  private readonly held = new Map<string, Held>();
  /** A lease read by a pass before it takes it (read-named-nodes.ts reads its record): the take uses that read, once. */
  private readonly seen = new Map<string, V1Lease | undefined>();
  /** Each lease's duration, as written. */
  readonly durationSeconds: number;
  /** Leases releaseAll could not give back (each logged; they expire on their own). */
  releaseFailures = 0;

  constructor(private readonly opts: HeldLeasesOptions) {
    this.durationSeconds = opts.durationSeconds ?? 120;
  }

  /** Whether `fn`'s lease is held by this run (it may still be due for renewal; `take` renews it). */
  holds(fn: string): boolean {
    return this.held.has(fn);
  }

  /** `fn`'s lease as this run holds it (with the annotations its next write carries); undefined when not held. */
  leaseOf(fn: string): V1Lease | undefined {
    return this.held.get(fn)?.lease;
  }

  /** When `fn`'s lease was last taken or renewed by this run (the clock's ms); undefined when not held. */
  renewedAt(fn: string): number | undefined {
    return this.held.get(fn)?.renewedAt;
  }

  /** `fn`'s lease as just read (undefined: not there): the next take of a lease this run does not hold starts from it. */
  saw(fn: string, lease: V1Lease | undefined): void {
    if (!this.held.has(fn)) this.seen.set(fn, lease);
  }

  /** Drops what `saw` kept for `fn`: a read is used by the pass that made it, never by a later one. */
  forget(fn: string): void {
    this.seen.delete(fn);
  }

  /** Annotations for `fn`'s held lease, written with its next renewal or its release. */
  annotate(fn: string, annotations: Record<string, string>): void {
    const held = this.held.get(fn);
    if (held) held.lease = withLeaseAnnotations(held.lease, annotations);
  }

  /**
   * Takes `fn`'s lease, or renews it when a third of its duration is used; `acquired` means the pass may act.
   * `annotations` go with the take (a lease already held carries them from its next write).
   */
  async take(fn: string, annotations?: Record<string, string>): Promise<LeaseOutcome> {
    const now = this.opts.now();
    if (annotations) this.annotate(fn, annotations);
    const held = this.held.get(fn);
    const seen = this.seen.has(fn) ? { lease: this.seen.get(fn) } : undefined;
    this.seen.delete(fn);
    if (held && now.getTime() - held.renewedAt < (this.durationSeconds * 1000) / 3) return { kind: 'acquired', lease: held.lease };
    const out = held
      ? await renewPassLease(this.opts.client, held.lease, now)
      : await acquirePassLease(this.opts.client, { namespace: this.opts.namespace, fn, holder: this.opts.holder, durationSeconds: this.durationSeconds, now, ...(annotations ? { annotations } : {}), ...(seen ? { seen } : {}) });
    if (out.kind === 'acquired') this.held.set(fn, { lease: out.lease, renewedAt: now.getTime() });
    else this.held.delete(fn);
    return out;
  }

  /**
   * Gives every held lease back (failures only make the next run wait for expiry), one after another so that the
   * requests each release made can be told apart: returned by function, by "verb resource", for the run's figures.
   */
  async releaseAll(): Promise<Map<string, Record<string, number>>> {
    const leases = [...this.held.entries()];
    this.held.clear();
    const made = new Map<string, Record<string, number>>();
    const counts = this.opts.client.counts.byVerb;
    for (const [fn, h] of leases) {
      const before = { ...counts };
      try {
        await releasePassLease(this.opts.client, h.lease);
      } catch (err) {
        // Logged and counted (releaseFailures; the client's counts.errors), never thrown: the lease expires on its own.
        this.releaseFailures++;
        this.opts.logger?.warn({ err: errorMessage(err) }, `giving the ${fn} lease back failed; it expires on its own`);
      }
      const delta: Record<string, number> = {};
      for (const [k, v] of Object.entries(counts)) if (v > (before[k] ?? 0)) delta[k] = v - (before[k] ?? 0);
      made.set(fn, delta);
    }
    return made;
  }
}

/**
 * Counts each function's lease release in the requests of its last pass in `passes`, so that a run's figures (the
 * Pushgateway's and EMF's API requests) add up to what the API server saw. Mutates those summaries.
 */
export function countReleases(passes: readonly PassSummary[], released: ReadonlyMap<string, Record<string, number>>): void {
  // Later passes overwrite earlier ones: each function's last pass.
  const lastOf = new Map<string, PassSummary>(passes.map((p) => [p.fn, p]));
  for (const [name, requests] of released) {
    const last = lastOf.get(name);
    if (!last) continue;
    for (const [k, v] of Object.entries(requests)) last.requests[k] = (last.requests[k] ?? 0) + v;
  }
}
