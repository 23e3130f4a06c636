// Seeded fault injection for reliability tests: errors (500, 429 with Retry-After, 409), latency, and
// connections dropped before or after the request was applied.
import { createRng, type Rng } from '../generator/prng.ts';

export type FaultKind = 500 | 429 | 409 | 'latency' | 'drop-before' | 'drop-after';

export interface FaultRule {
  /** get, list, watch, create, update, patch, delete, deletecollection; absent = every verb. */
  verb?: string;
  /**
   * `pods`, `pods/eviction`, `nodemaintenances/status`...; a rule without a subresource also matches the
   * resource's subresources. Absent = every resource (discovery and other non-resource paths never fault).
   */
  resource?: string;
  /** Probability in [0, 1] that a matching request gets the fault. */
  rate: number;
  kind: FaultKind;
  /** For 'latency'. @default 100 */
  latencyMs?: number;
  /** For 429. @default 1 */
  retryAfterSeconds?: number;
  /** Seed of this rule's random stream. @default 1 */
  seed?: number;
}

export interface FaultDecision {
  /** Added before anything else happens. */
  latencyMs: number;
  /** The one failure to inject, if any: the first matching rule that fired. */
  failure?: { kind: 500 | 429 | 409 | 'drop-before' | 'drop-after'; retryAfterSeconds: number };
}

export class FaultInjector {
  private rules: Array<{ rule: FaultRule; rng: Rng }> = [];
  private readonly fired = new Map<string, number>();

  /** Replaces all rules; each rule's random stream restarts from its seed. */
  set(rules: readonly FaultRule[]): void {
    for (const r of rules) {
      if (!(r.rate >= 0 && r.rate <= 1)) throw new RangeError(`fault rate must be within [0, 1], got ${r.rate}`);
    }
    this.rules = rules.map((rule) => ({ rule, rng: createRng(rule.seed ?? 1) }));
  }

  clear(): void {
    this.rules = [];
  }

  /** How many faults of each kind were injected, e.g. `{ "500": 3, latency: 10 }`. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.fired);
  }

  decide(verb: string, resource: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    if (!resource) return decision;
    const base = resource.split('/')[0];
    for (const { rule, rng } of this.rules) {
      if (rule.verb !== undefined && rule.verb !== verb) continue;
      if (rule.resource !== undefined && rule.resource !== resource && !(rule.resource === base && !rule.resource.includes('/'))) continue;
      if (rng.next() >= rule.rate) continue;
      if (rule.kind === 'latency') {
        decision.latencyMs += rule.latencyMs ?? 100;
        this.count('latency');
      } else if (!decision.failure) {
        decision.failure = { kind: rule.kind, retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
        this.count(String(rule.kind));
      }
    }
    return decision;
  }

  private count(kind: string): void {
    this.fired.set(kind, (this.fired.get(kind) ?? 0) + 1);
  }
}
