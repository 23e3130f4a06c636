// The pass registry: for each function, what it reads beyond the base snapshot, its pure plan, and the two facts
// runPass needs about it. runPass, chaining and the summary read the plan's state; none of them branch on the name.
import type { V1Pod } from '@kubernetes/client-node';
import { isBeingDeleted, isUnscheduled } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';
import { loadConfig, loadDraResourceNames, type LoadedConfig } from '../config/index.ts';
import { indexClaims } from '../drain/index.ts';
import { fieldSelectorTerm } from '../kube/index.ts';
import { loadHandshakeConfig, planHandshake } from '../handshake/index.ts';
import { findNodeOrphans, orphanLiveKey, needsMedik8sLeases, nodesCordoned, phasesAfter, planCleanup, planDrainer, planNodeConditions, removalsBeforeUncordons, planOrphanSweep, PHASES_NEEDING_PODS, type NodeOrphan } from '../lifecycle/index.ts';
import { buildSchedulingState, foldIntoAdmissionRecords, holdsAdmission, planDeadlineReports, planScheduling, requestsHoldingNodes, waitingMessage, type SchedulingLimits } from '../scheduling/index.ts';
import { loadSlurmSettings, needsReservationRead, nodesToReserve, planSlurmReservations, planSlurmSweep, readSlurm, recordedReservation, recordedSlurmNodes, slurmConfigNotes, type SlurmRead, type SlurmRestClient, type SlurmWrite } from '../slurm/index.ts';
import { loadRebootSettings } from '../reboot/index.ts'; // issue 43
import { planConfigReport } from './config-report.ts';
import { planForeignCrdEvent, type CrdStanding } from './crd-schema.ts';
import { planMalformedReleases, planMalformedReports } from './malformed.ts';
import type { PassOptions } from './options.ts';
import { planCloudEventsOff, planReaperPass, readScheduledEvents, reaperMode, reaperModeOf, reaperProviders, type ReaperPassPlan, type ReaperReads } from './reaper-pass.ts';
import { chooseNodeRead, cleanupNodesNeeded, drainerNodesNeeded, nodeReadSettings, type NodesNeeded } from './node-reads.ts';
import { knowsNode, nodeCountOf, ownPodsOf, readAllOf, readDrainPods, readMedik8sLeases, type BaseSnapshot, type RequestsRead } from './snapshot.ts';
import { planSriovPass, readSriov, sriovExternalPools, type SriovRead } from './sriov-pass.ts';
import type { PassFunction, PassWait } from './summary.ts';

/**
 * Where a plan leaves its requests. `in-flight`: some are mid-way (waiting for pods, draining) or the plan has writes
 * another pass must confirm (Slurm drains, released finalizers, new reap requests), so another pass soon is useful.
 * `blocked`: work exists but waits on a limit or another party (a full budget, additional requestors), which another
 * pass soon does not change. `idle`: nothing to do.
 */
export type PlanState = 'idle' | 'blocked' | 'in-flight';

/** What a function's plan returns: its actions, its state, and the counts the summary reports. */
export interface PassPlan {
  actions: Action[];
  state: PlanState;
  /** Requests waiting on a limit (scheduler). */
  waiting?: number;
  waits?: PassWait[];
  admitted?: number;
  becameReady?: number;
  released?: number;
  collected?: number;
  /** The reaper pass only: its terminations, carried out before the writes that follow them. */
  reaper?: ReaperPassPlan;
  /** Actions repeating what an earlier pass reported (no progress, so no reason to run another pass). */
  repeated?: number;
  /** Drainer and cleanup with spec.slurm: drains and undrains for slurmrestd, sent after the Kubernetes writes. */
  slurm?: { writes: SlurmWrite[]; client?: SlurmRestClient };
}

/** What every plan is given: the base snapshot, its config loaded once, this function's own reads and the clock. */
export interface PlanInput<R> {
  base: BaseSnapshot;
  loaded: LoadedConfig;
  reads: R;
  /** The base snapshot's requests by namespace/name. */
  maintenances: ReadonlyMap<string, NodeMaintenance>;
  /** Namespace of the MaintenanceOperatorConfig. */
  namespace: string;
  /** The reaper's config problems, for the functions that write the config's Valid condition (`reportsConfig`). */
  reaperIssues: string[];
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
  start?: (opts: PassOptions, roundBase: BaseSnapshot | undefined) => Promise<PassStart>;
  /**
   * The Nodes this function's plan needs, from its requests (the drainer and cleanup, node-reads.ts): between full reads
   * on a large cluster its base snapshot holds only those. Absent: every pass reads every Node.
   */
  nodesNeeded?: (head: RequestsRead, namespace: string) => NodesNeeded;
  /** What the plan needs beyond the base snapshot: pods, leases, slurmrestd, instance providers. */
  read: (opts: PassOptions, base: BaseSnapshot) => Promise<R>;
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

interface DrainerReads {
  drainPods: Awaited<ReturnType<typeof readDrainPods>>;
  ownPods: ReturnType<typeof ownPodsOf>;
  medik8s: Awaited<ReturnType<typeof readMedik8sLeases>>;
  slurm: SlurmRead;
}

interface CleanupReads {
  medik8s: Awaited<ReturnType<typeof readMedik8sLeases>>;
  slurm: SlurmRead;
  /** Node-side state whose request is gone, confirmed by a LIST of the requests made after the nodes were read. */
  orphans: NodeOrphan[];
}

interface SchedulerReads {
  /** With spec.nodeHandshake.protocol sriov-network-operator: the operator's node states and pools. */
  sriov: SriovRead | undefined;
  /** With spec.slurm and a request whose not-before is ahead: Slurm's nodes and reservations, and its node's pods. */
  reservations: { slurm: SlurmRead; podsByNode: ReadonlyMap<string, V1Pod[]> };
}

/** Each function's own reads, the type its `read` returns and its `plan` takes. */
interface PassReads {
  scheduler: SchedulerReads;
  drainer: DrainerReads;
  cleanup: CleanupReads;
  reaper: ReaperReads;
}

/** slurmrestd, read only when `needed` (its reservations too with `reservations`); with the secret read through the pass's client. */
function readSlurmFor(opts: PassOptions, base: BaseSnapshot, needed: boolean, reservations = false): Promise<SlurmRead> {
  return readSlurm({
    config: base.config,
    needed,
    reservations,
    readSecretKey: (name, key) => opts.client.getSecretKey(opts.namespace, name, key),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

/** The medik8s node leases when some request needs them; a round notes that it has seen them. */
async function readMedik8sFor(opts: PassOptions, maintenances: readonly NodeMaintenance[], fn: 'drainer' | 'cleanup'): Promise<DrainerReads['medik8s']> {
  const medik8s = await readMedik8sLeases(opts.client, needsMedik8sLeases(maintenances, fn));
  if (opts.round && medik8s.kind !== 'absent') opts.round.medik8sSeen = true;
  return medik8s;
}

/** spec.slurm on with slurmrestd: every cleanup pass reads Slurm and sweeps what no live request owns (slurm/sweep.ts). */
function sweepsSlurm(base: BaseSnapshot): boolean {
  const loaded = loadSlurmSettings(base.config);
  return loaded.kind === 'on' && loaded.settings.source === 'slurmrestd';
}

/**
 * Whether a cleanup pass could act on `base`: Slurm to sweep, something being deleted (its medik8s lease and Slurm drains are read only
 * then), or the plan without them collects a stale request or releases one whose node is gone.
 */
function cleanupHasWork(base: BaseSnapshot, now: Date): boolean {
  if (findNodeOrphans(base.nodeList, liveRequestKeys(base)).length > 0) return true;
  if (sweepsSlurm(base)) return true;
  if ([...base.maintenances, ...base.malformed.map((m) => m.nm)].some((nm) => nm.metadata.deletionTimestamp !== undefined)) return true;
  const { maxNodeMaintenanceTimeSeconds } = loadConfig(base.config, nodeCountOf(base)).config;
  return planCleanup({ nodes: base.nodes, maintenances: cleanupRequests(base) }, { maxNodeMaintenanceTimeSeconds }, now).actions.length > 0;
}

/** The requests cleanup plans on `base`: on a named read, those whose Node it read (a Node not asked is not gone). */
function cleanupRequests(base: BaseSnapshot): NodeMaintenance[] {
  return readAllOf(base) ? base.maintenances : base.maintenances.filter((nm) => knowsNode(base, nm.spec.nodeName));
}

/**
 * Cleanup's start on a round's snapshot of named Nodes: its sweeps need a full read, so it is skipped only when this run
 * knows cleanup's last full read and it is not due yet.
 */
function cleanupFullReadDue(opts: PassOptions, base: BaseSnapshot, now: Date): boolean {
  if (readAllOf(base)) return false;
  const record = opts.round?.fullReads.get('cleanup');
  return chooseNodeRead({ record, settings: nodeReadSettings(base.config), needed: { kind: 'named', names: [] }, now }).kind === 'full';
}

/**
 * Every request the snapshot holds, malformed ones too, by namespace/name and by namespace/name/uid (the admission
 * record names the uid too): the owners node-side records may name (orphanLiveKey).
 */
function liveRequestKeys(base: BaseSnapshot, also: readonly NodeMaintenance[] = []): Set<string> {
  return new Set(
    [...base.maintenances, ...base.malformed.map((m) => m.nm), ...also].flatMap((nm) => {
      const key = `${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
      return [key, `${key}/${nm.metadata.uid ?? ''}`];
    }),
  );
}

/**
 * The orphans of the base snapshot (orphan-sweep.ts), each confirmed by a LIST of the requests made after the nodes were
 * read: the base read its nodes and requests side by side, so a request created in between must not count as gone.
 * That LIST is made only when some node has a candidate.
 */
async function readOrphans(opts: PassOptions, base: BaseSnapshot): Promise<NodeOrphan[]> {
  // Only a full read sweeps: a named read sees only Nodes whose requests are alive.
  if (!readAllOf(base)) return [];
  const candidates = findNodeOrphans(base.nodeList, liveRequestKeys(base));
  if (candidates.length === 0) return [];
  const fresh = liveRequestKeys(base, await opts.client.listMaintenances());
  return candidates.filter((o) => !fresh.has(orphanLiveKey(o)));
}

/**
 * The node-condition removals of nodes the sweep writes join the sweep's unit (they have no request of their own to
 * follow) and go first in it: after the uncordon the control plane's taint controller writes the node at once (the
 * unschedulable taint), so a status patch following it would meet a 409 nearly every time.
 */
type SweepWrite = Extract<Action, { kind: 'uncordonNode' | 'patchNodeAnnotations' | 'setNodeTaints' }>;
const isSweepWrite = (a: Action): a is SweepWrite => a.kind === 'uncordonNode' || a.kind === 'patchNodeAnnotations' || a.kind === 'setNodeTaints';

function afterSweep(actions: Action[], sweep: readonly Action[]): Action[] {
  const unitOf = new Map<string, MaintenanceRef>();
  for (const a of sweep) if (isSweepWrite(a) && a.maintenance) unitOf.set(a.node.name, a.maintenance);
  if (unitOf.size === 0) return actions;
  const conditionsFirst = new Map<string, Action>();
  const others = actions.filter((a) => {
    if (a.kind !== 'patchNodeConditions' || a.maintenance !== undefined) return true;
    const unit = unitOf.get(a.node.name);
    if (unit) conditionsFirst.set(a.node.name, { ...a, maintenance: unit });
    return unit === undefined;
  });
  return others.flatMap((a) => {
    const conditions = isSweepWrite(a) && sweep.includes(a) ? conditionsFirst.get(a.node.name) : undefined;
    if (conditions === undefined || !isSweepWrite(a)) return [a];
    conditionsFirst.delete(a.node.name);
    return [conditions, a];
  });
}

/**
 * A plan's actions followed by the KEP-5683 node conditions for the phases they move requests to: every pass that moves
 * requests (scheduler, drainer, cleanup) plans them, so a node shows a phase in the same pass its request reaches it;
 * but a node this pass cordons in the next pass (nodesCordoned says why). Each patch is a Node status write that wakes
 * every node watcher, so a pass whose round runs the drainer after it (`later`) leaves them to the drainer, which plans
 * every node's conditions from a fresh read: a request admitted and cordoned in one round shows one phase, not two.
 */
function withNodeConditions(actions: Action[], base: BaseSnapshot, loaded: LoadedConfig, now: Date, later = false): Action[] {
  if (later) return actions;
  const conditions = planNodeConditions({
    nodes: base.nodeList,
    // A phase kmaint never admitted (issue 40) shows on no Node: only Pending requests, those being deleted, and admitted ones.
    maintenances: base.maintenances.filter((nm) => isUnscheduled(nm) || isBeingDeleted(nm) || holdsAdmission(nm, base.nodes.get(nm.spec.nodeName))),
    phaseAfter: phasesAfter(actions),
    enabled: loaded.config.nodeConditions,
    plannedLeadSeconds: loaded.config.maintenancePlannedLeadSeconds,
    later: nodesCordoned(actions),
    now,
  });
  return conditions.length === 0 ? actions : removalsBeforeUncordons([...actions, ...conditions]);
}

/**
 * The scheduler's Slurm read for maintenance reservations: only with spec.slurm on and some request whose not-before is
 * still ahead, or a waiting one with a reservation recorded whose not-before is not (checked: kept or deleted); in pod
 * mode with the pods of the nodes still to reserve (their worker pods name the Slurm nodes).
 */
async function readReservations(opts: PassOptions, base: BaseSnapshot, now: Date): Promise<SchedulerReads['reservations']> {
  const podsByNode = new Map<string, V1Pod[]>();
  const settings = loadSlurmSettings(base.config);
  const reading = settings.kind === 'off' ? [] : base.maintenances.filter((nm) => needsReservationRead(nm, now) && base.nodes.has(nm.spec.nodeName));
  const slurm = await readSlurmFor(opts, base, reading.length > 0, true);
  if (reading.length === 0 || settings.kind !== 'on' || settings.settings.mode !== 'pod') return { slurm, podsByNode };
  // Issue 40: only the nodes whose next request gets a reservation, read at most 8 at a time.
  const nodes = nodesToReserve(base.maintenances, base.nodes, slurm.context, now);
  const queue = [...nodes];
  const worker = async (): Promise<void> => {
    for (let node = queue.shift(); node !== undefined; node = queue.shift()) podsByNode.set(node, await opts.client.listPods({ fieldSelector: fieldSelectorTerm('spec.nodeName', node) }));
  };
  await Promise.all(Array.from({ length: Math.min(8, nodes.length) }, () => worker()));
  return { slurm, podsByNode };
}

const slurmOf = (writes: SlurmWrite[], read: SlurmRead): NonNullable<PassPlan['slurm']> => ({ writes, ...(read.client ? { client: read.client } : {}) });

/** The scheduler's limits from the loaded config; foreign CRDs close admission as a whole (crds.refusal), requests in flight go on. */
function schedulingLimitsOf(loaded: PlanInput<unknown>['loaded'], crds: PlanInput<unknown>['crds']): SchedulingLimits {
  const { admission } = loaded.config;
  return {
    maxParallelOperations: loaded.config.maxParallelOperations,
    maxUnavailable: loaded.config.maxUnavailable,
    problems: loaded.problems,
    ...(crds?.refusal !== undefined ? { closed: crds.refusal } : {}),
    ...(admission !== undefined ? { admission } : {}),
  };
}

/** The four functions. A new one is a row here (and a name in PASS_FUNCTIONS). */
export const PASSES: { readonly [F in PassFunction]: PassDefinition<PassReads[F]> } = {
  scheduler: {
    read: async (opts, base) => ({ sriov: await readSriov(opts, base), reservations: await readReservations(opts, base, opts.now()) }),
    plan: ({ base, loaded, reads: { sriov: sriovRead, reservations }, maintenances, namespace, reaperIssues, crds, drainerFollows, now }) => {
      const externalPools = sriovExternalPools(sriovRead, base);
      const state = buildSchedulingState({ nodes: base.nodeList, maintenances: base.maintenances, kmaintNamespace: namespace, ...(externalPools !== undefined ? { externalPools } : {}) });
      const { admission } = loaded.config;
      const plan = planScheduling(state, schedulingLimitsOf(loaded, crds), now);
      // As the SR-IOV network operator's external drainer: its handshake's writes come after the scheduling writes too.
      const sriov = planSriovPass(sriovRead, base, plan.admitted);
      const scopedProblems = [...(admission?.scopedProblems ?? []), ...reaperIssues, ...sriov.problems, ...(crds?.reportable ?? [])];
      // Not under a schema lacking kmaint's fields: the write would make the pruning of the stored config permanent.
      const report = crds?.configWritable === false ? [] : planConfigReport(base.config, loaded.problems, now, { scopedProblems, notes: slurmConfigNotes(base.config), poolOverlaps: plan.poolOverlaps });
      const foreignCrd = crds ? planForeignCrdEvent(base.config, crds, plan.actions, waitingMessage(crds.refusal ?? '')) : [];
      const waits = plan.waiting.map(({ key, why }) => ({ request: key, node: maintenances.get(key)?.spec.nodeName ?? '', reason: waitingMessage(why) }));
      // The node-annotation handshake: after the scheduling writes, so a Node says Draining only once its request's admission is written.
      const handshake = planHandshake({ nodes: base.nodeList, maintenances: base.maintenances, admittedThisPass: new Set(plan.admitted) }, loadHandshakeConfig(base.config, namespace));
      // Requests that bypassed validation: the scheduler, which explains every request it does not admit, says why.
      const malformed = planMalformedReports(base.malformed, now);
      // Deadlines missed and request times that cannot be read: a Warning each, once (after the status writes, same unit).
      const deadlines = planDeadlineReports(base.maintenances, now);
      // Advance notice to Slurm: a MAINT reservation from not-before (recorded this pass, created the next).
      const slurm = reservations.slurm.context;
      const reserve = planSlurmReservations({ maintenances: base.maintenances, nodes: base.nodes, podsByNode: reservations.podsByNode, slurm }, now);
      // kmaint's own cloud event requests once spec.cloudEvents is off: the reaper pass is skipped then, so the scheduler ends them.
      const cloudOff = planCloudEventsOff(base, namespace);
      return {
        // The handshake's report on a Node admitted this pass rides on the admission record's patch (one Node write).
        actions: withNodeConditions(foldIntoAdmissionRecords([...report, ...foreignCrd, ...plan.actions, ...deadlines, ...handshake.actions, ...sriov.actions, ...cloudOff, ...malformed.actions, ...reserve.actions]), base, loaded, now, drainerFollows),
        state: reserve.writes.length > 0 ? 'in-flight' : plan.waiting.length > 0 ? 'blocked' : 'idle',
        slurm: slurmOf(reserve.writes, reservations.slurm),
        waiting: plan.waiting.length,
        waits,
        admitted: plan.admitted.length,
        repeated: malformed.repeated,
      };
    },
    reportsConfig: true,
    writesLeaveWork: true,
  },
  drainer: {
    nodesNeeded: (head, namespace) => drainerNodesNeeded(head.maintenances, loadConfig(head.config, 0).config.admission?.gangNodeLabel, namespace),
    read: async (opts, base) => {
      const drainPods = await readDrainPods(opts.client, base);
      const medik8s = await readMedik8sFor(opts, base.maintenances, 'drainer');
      const needsSlurm = base.maintenances.some((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? ''));
      return { drainPods, ownPods: ownPodsOf(opts.namespace, opts.env ?? process.env, base.config), medik8s, slurm: await readSlurmFor(opts, base, needsSlurm) };
    },
    plan: ({ base, loaded, reads, namespace, now }) => {
      const { podsByNode, pdbs, budgetPods, claims, claimsProblem } = reads.drainPods;
      const slurm = reads.slurm.context;
      const dra = { claims: indexClaims(claims), resourceNames: loadDraResourceNames(base.config).names, ...(claimsProblem !== undefined ? { unreadable: claimsProblem } : {}) };
      const outOfService = loaded.config.outOfServiceTaint;
      // Gangs by node label are held in Scheduled like gangs by request label until every member is admitted (gang-hold.ts).
      const gangNodeLabel = loaded.config.admission?.gangNodeLabel;
      const plan = planDrainer({ nodes: base.nodes, maintenances: base.maintenances, podsByNode, pdbs, budgetPods, medik8s: reads.medik8s, dra, ownPods: reads.ownPods, outOfService, namespace, ...(gangNodeLabel !== undefined ? { gangNodeLabel } : {}), ...(slurm ? { slurm } : {}), reboot: loadRebootSettings(base.config) /* issue 43: spec.reboot */ }, now);
      return { actions: withNodeConditions(plan.actions, base, loaded, now), state: plan.inFlight > 0 || plan.slurm.length > 0 ? 'in-flight' : 'idle', becameReady: plan.becameReady, slurm: slurmOf(plan.slurm, reads.slurm) };
    },
    reportsConfig: false,
    writesLeaveWork: true,
  },
  cleanup: {
    // Nothing deleting, nothing collectable and no node gone in this round's snapshot: the passes before it in the
    // round only admit and drain, which never gives cleanup work (a deletion shows next round).
    // On a round's snapshot of named Nodes it also runs when its own full read is due (its sweeps need one).
    start: (opts, roundBase) => Promise.resolve(roundBase && !cleanupHasWork(roundBase, opts.now()) && !cleanupFullReadDue(opts, roundBase, opts.now()) ? 'skip' : 'leased'),
    nodesNeeded: (head) => cleanupNodesNeeded(head.maintenances, head.malformed.map((m) => m.nm)),
    read: async (opts, base) => {
      const medik8s = await readMedik8sFor(opts, base.maintenances, 'cleanup');
      // Requests cleanup releases: deleted ones, and those whose node is gone (their Slurm state outlives the node).
      const releasing = base.maintenances.filter((nm) => nm.metadata.deletionTimestamp !== undefined || (knowsNode(base, nm.spec.nodeName) && !base.nodes.has(nm.spec.nodeName)));
      const sweep = sweepsSlurm(base);
      const reservations = sweep || releasing.some((nm) => recordedReservation(nm) !== undefined);
      const needsSlurm = reservations || releasing.some((nm) => recordedSlurmNodes(nm).length > 0);
      return { medik8s, slurm: await readSlurmFor(opts, base, needsSlurm, reservations), orphans: await readOrphans(opts, base) };
    },
    plan: ({ base, loaded, reads, now }) => {
      const slurm = reads.slurm.context;
      const plan = planCleanup({ nodes: base.nodes, maintenances: cleanupRequests(base), medik8s: reads.medik8s, ...(slurm ? { slurm } : {}) }, { maxNodeMaintenanceTimeSeconds: loaded.config.maxNodeMaintenanceTimeSeconds }, now);
      // Requests that bypassed validation and are being deleted: released by the cordon record, never left hanging.
      const malformed = planMalformedReleases(base.malformed, base.nodeList);
      const released = plan.released + malformed.released;
      // Cordons and out-of-service taints whose request is gone (a finalizer removed by hand, a crash): undone by kmaint's record.
      const sweep = planOrphanSweep(base.nodes, reads.orphans);
      // Slurm state no live request owns (malformed ones own theirs too); reservations still needed are extended.
      const swept = planSlurmSweep([...base.maintenances, ...base.malformed.map((m) => m.nm)], slurm, now);
      const slurmWrites = [...plan.slurm, ...swept];
      return {
        actions: afterSweep(withNodeConditions([...plan.actions, ...malformed.actions, ...sweep], base, loaded, now), sweep),
        state: released > 0 || slurmWrites.length > 0 ? 'in-flight' : plan.held.length > 0 ? 'blocked' : 'idle',
        released,
        collected: plan.collected,
        slurm: slurmOf(slurmWrites, reads.slurm),
      };
    },
    reportsConfig: false,
    writesLeaveWork: false,
  },
  reaper: {
    // A disabled reaper (with spec.cloudEvents off) costs one GET of the config (none when the round already read it):
    // no lease, no lists, no writes; its dryRun writes events only. spec.cloudEvents on reads the instances' events.
    start: async (opts, roundBase) => {
      const mode = roundBase ? reaperModeOf(roundBase.config) : await reaperMode(opts.client, opts.namespace);
      return mode === 'disabled' ? 'skip' : mode === 'dry-run' ? 'unleased' : 'leased';
    },
    read: (opts, base) => readScheduledEvents(base, reaperProviders(opts.reaperProviders), opts.signal),
    plan: ({ base, loaded, reads, namespace, reaperIssues, crds, now }) => {
      // Issue 40: only a request that could start now keeps the reaper off its node (the scheduler's own rule).
      const holding = requestsHoldingNodes(buildSchedulingState({ nodes: base.nodeList, maintenances: base.maintenances }), schedulingLimitsOf(loaded, crds), now);
      const reaper = planReaperPass(base, namespace, reads, now, holding);
      const scopedProblems = [...(loaded.config.admission?.scopedProblems ?? []), ...reaperIssues, ...(crds?.reportable ?? [])];
      const report = crds?.configWritable === false ? [] : planConfigReport(base.config, loaded.problems, now, { scopedProblems, notes: slurmConfigNotes(base.config) });
      return { actions: [...report, ...reaper.actions], state: reaper.requested > 0 ? 'in-flight' : 'idle', reaper };
    },
    reportsConfig: true,
    writesLeaveWork: false,
  },
};

/** Reads and plans one function on `base`: the registry entry of `fn`, typed by its own reads. */
export async function planPass<F extends PassFunction>(fn: F, opts: PassOptions, base: BaseSnapshot, input: Omit<PlanInput<PassReads[F]>, 'reads' | 'base'>): Promise<PassPlan> {
  const pass: PassDefinition<PassReads[F]> = PASSES[fn];
  const reads = await pass.read(opts, base);
  return pass.plan({ ...input, base, reads });
}
