// Chaining: after a run, whether another function should start now instead of at its next tick. Pure.
import type { PassFunction } from '../pass/index.ts';

export interface ChainSettings {
  /** Off: never invoke another function (KMAINT_CHAIN=off). @default true */
  enabled: boolean;
  /** Depth of this invocation: 0 for a schedule or a manual call, n+1 for one started by a chain at depth n. */
  depth: number;
  /** The deepest invocation a chain may start. @default 3 */
  maxDepth: number;
}

/** What a run did that chaining reads (sums over its passes; awaitingCleanup from the last pass). */
export interface ChainFacts {
  admitted: number;
  becameReady: number;
  awaitingCleanup: number;
  dryRun: boolean;
}

export type ChainDecision =
  | { kind: 'invoke'; target: PassFunction; depth: number; reason: string }
  | { kind: 'none'; reason: string };

interface ChainRule {
  from: PassFunction;
  target: PassFunction;
  /** Why the target has work now, or undefined when it has none. */
  why: (facts: ChainFacts) => string | undefined;
}

const CHAIN_RULES: readonly ChainRule[] = [
  // Admitted requests can be cordoned and drained now rather than a schedule period later.
  { from: 'scheduler', target: 'drainer', why: (f) => (f.admitted > 0 ? `scheduler admitted ${f.admitted}` : undefined) },
  // A finished drain or a deleted request is cleanup's to release; the drainer sees both first.
  {
    from: 'drainer',
    target: 'cleanup',
    why: (f) =>
      f.becameReady > 0 ? `drainer made ${f.becameReady} Ready` : f.awaitingCleanup > 0 ? `${f.awaitingCleanup} deleted requests await cleanup` : undefined,
  },
];

/** Decides the one function (if any) to start after a run of `fn`. Fails closed: a bad depth chains nothing. */
export function decideChain(fn: PassFunction, facts: ChainFacts, settings: ChainSettings): ChainDecision {
  if (!settings.enabled) return { kind: 'none', reason: 'chaining is off' };
  if (facts.dryRun) return { kind: 'none', reason: 'a dry run starts nothing' };
  const rule = CHAIN_RULES.find((r) => r.from === fn);
  const why = rule?.why(facts);
  if (!rule || why === undefined) return { kind: 'none', reason: `nothing for the next function to do after ${fn}` };
  const depth = settings.depth + 1;
  if (!Number.isInteger(settings.depth) || settings.depth < 0 || depth > settings.maxDepth) {
    return { kind: 'none', reason: `chain depth bound ${settings.maxDepth} reached (would start ${rule.target}: ${why})` };
  }
  return { kind: 'invoke', target: rule.target, depth, reason: why };
}
