// What a pass is to runPass: the types of one row of PASSES (passes.ts), and of the plan it returns.
import type { Action, NodeMaintenance, WriteOrderFacts } from '../api/index.ts';
import type { KmaintConfig } from './config.ts';
import type { CrdStanding } from './crd-schema.ts';
import type { NodesNeeded } from './choose-node-read.ts';
import type { PassOptions } from './options.ts';
import type { RoundRead } from './round.ts';
import type { BaseSnapshot, RequestsRead } from './snapshot.ts';
import type { PassWait } from './summary.ts';
import type { PassEffect } from './pass-effects.ts';

/**
 * Where a plan leaves its requests. `in-flight`: some are mid-way (waiting for pods, draining) or the plan has writes
 * another pass must confirm (Slurm drains, released finalizers, new reap requests), so another pass soon is useful.
 * `blocked`: work exists but waits on a limit or another party (a full budget, additional requestors), which another
 * pass soon does not change. `idle`: nothing to do.
 */
export type PlanState = 'idle' | 'blocked' | 'in-flight';

/** What the summary reports of a plan: counts (absent: 0) and the scheduler's waits. */
export interface PlanReport {
  /** Requests waiting on a limit (scheduler). */
  waiting?: number;
  waits?: PassWait[];
  admitted?: number;
  becameReady?: number;
  released?: number;
  collected?: number;
  /** The reaper pass with a repair ladder: Nodes over its repeatLimit (absent: no ladder). */
  repeatOffenders?: number;
  /** Actions repeating what an earlier pass reported (no progress, so no reason to run another pass). */
  repeated?: number;
}

/** What every function's plan returns: its actions, its state, what the summary reports, and its outside writes. */
export interface PassPlan {
  actions: Action[];
  state: PlanState;
  report: PlanReport;
  /** Writes to other systems (pass-effects.ts: the reaper's terminations, Slurm), carried out around the actions. */
  effects: PassEffect[];
  /** What the order of the writes needs beyond the actions (api/write-order.ts orderWrites: cleanup's orphan sweep). */
  writeOrder?: WriteOrderFacts;
}

/** What every plan is given: the base snapshot, its config parsed once (config.ts), this function's own reads and the clock. */
export interface PlanInput<R> {
  base: BaseSnapshot;
  config: KmaintConfig;
  reads: R;
  /** The base snapshot's requests by namespace/name. */
  maintenances: ReadonlyMap<string, NodeMaintenance>;
  /** Namespace of the MaintenanceOperatorConfig. */
  namespace: string;
  /** Whether kmaint's CRDs are in force (crd-schema.ts), for the functions that write the config's Valid condition; absent: not checked. */
  crds?: CrdStanding;
  /** The drainer runs later in this round (`kmaint run all`): the scheduler leaves the node conditions to it. */
  drainerFollows?: boolean;
  now: Date;
}

/**
 * How a pass starts, decided before its lease: `skip` ends it at once with an empty summary, `unleased` runs it
 * without the pass lease (the reaper's dryRun writes events only), `leased` is a normal pass.
 */
export type PassStart = 'skip' | 'unleased' | 'leased';

export interface PassDefinition<R> {
  /** Before the lease, from the round's last snapshot when there is one. Absent: `leased`. */
  start?: (opts: PassOptions, round: RoundRead | undefined) => Promise<PassStart>;
  /**
   * The Nodes this function's plan needs, from its requests (the drainer and cleanup, node-reads.ts): between full reads
   * on a large cluster its base snapshot holds only those. Absent: every pass reads every Node.
   */
  nodesNeeded?: (head: RequestsRead, config: KmaintConfig) => NodesNeeded;
  /** What the plan needs beyond the base snapshot: pods, leases, slurmrestd, instance providers. */
  read: (opts: PassOptions, base: BaseSnapshot, config: KmaintConfig) => Promise<R>;
  /** Pure: the actions and the state. */
  plan: (input: PlanInput<R>) => PassPlan;
  /** Writes the config's Valid condition, so its problems include the reaper's (the scheduler and the reaper share it). */
  reportsConfig: boolean;
  /**
   * Each write it applies moves a request on, so a pass that wrote something is followed by another (the scheduler's
   * admissions, the drainer's steps). Cleanup's and the reaper's writes finish their work, and say so in their state.
   */
  writesLeaveWork: boolean;
}
