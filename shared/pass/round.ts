// What the passes of one round share: the base snapshot, reused by the next pass as long as no pass has written since
// it was read, and the pass leases the run holds.
import type { KmaintConfig } from './config.ts';
import type { FullReadRecord } from './choose-node-read.ts';
import { nodeCountOf, readAllOf, type BaseSnapshot } from './snapshot.ts';
import type { HeldLeases } from './held-leases.ts';
import type { CrdRead } from './crd-schema.ts';
import type { PassFunction } from './summary.ts';

/** A pass's base snapshot with the config its pass parsed from it. */
export interface RoundRead {
  base: BaseSnapshot;
  config: KmaintConfig;
}

export class PassRound {
  private snapshot: BaseSnapshot | undefined;
  private config: KmaintConfig | undefined;
  private fresh = false;
  /** The medik8s node leases were read (present or unreadable) this round: their changes cannot be watched. */
  medik8sSeen = false;
  /** The config's CRD, read once per run (crd-schema.ts): kept across rounds, so a run sends its GET once. */
  crd: CrdRead | undefined;
  /**
   * Each function's last full read of the Nodes this run knows of (made or read from its Lease), kept across rounds:
   * the drainer and cleanup read named Nodes between full reads (read-named-nodes.ts). Kept on the Lease for other runs.
   */
  readonly fullReads = new Map<PassFunction, FullReadRecord | undefined>();
  /** The node count of the run's latest full read by any function, kept across rounds. */
  nodeCount: number | undefined;

  /** `functions`: what each round runs, in order (`kmaint run`); empty where a round is one pass (a Lambda invocation). */
  constructor(
    readonly leases?: HeldLeases,
    readonly functions: readonly PassFunction[] = [],
  ) {}

  /** Whether `later` runs after `fn` in each round of this run. */
  runsAfter(fn: PassFunction, later: PassFunction): boolean {
    const at = this.functions.indexOf(fn);
    return at >= 0 && this.functions.indexOf(later) > at;
  }

  /** The base read this round if nothing was written since; a pass reusing it sees what a fresh read would (a few ms older). */
  current(): BaseSnapshot | undefined {
    return this.fresh ? this.snapshot : undefined;
  }

  /** The last base read this round, even if passes wrote since: only for questions writes cannot change (see run-pass.ts). */
  last(): RoundRead | undefined {
    return this.snapshot && this.config ? { base: this.snapshot, config: this.config } : undefined;
  }

  /** A pass's snapshot and the config it parsed: the next pass may plan on the snapshot (and parses its config again). */
  remember(base: BaseSnapshot, config: KmaintConfig): void {
    this.snapshot = base;
    this.config = config;
    if (readAllOf(base)) this.nodeCount = nodeCountOf(base);
    this.fresh = true;
  }

  /** A pass wrote (or tried to): the next pass reads again. */
  wrote(): void {
    this.fresh = false;
  }

  /** A new round: everything is read again. */
  next(): void {
    this.snapshot = undefined;
    this.config = undefined;
    this.fresh = false;
    this.medik8sSeen = false;
  }
}
