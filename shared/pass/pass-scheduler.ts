// The scheduler's row of PASSES: its reads (SR-IOV, Slurm reservations), admission under the limits, then its add-ons,
// an ordered list: each plans its own writes from the same snapshot and admissions. A new feature of the scheduler's
// pass is one entry in ADD_ONS, where its writes must sit in the pass's order.
import type { V1Pod } from '@kubernetes/client-node';
import { forEachBounded } from '../concurrency/index.ts';
import type { Action } from '../api/index.ts';
import { planHandshake } from '../handshake/index.ts';
import { planRebootSentinel } from '../reboot/index.ts';
import { fieldSelectorTerm } from '../kube/index.ts';
import { foldIntoAdmissionRecords, schedulerInputs, type Blockers, planDeadlineReports, planScheduling, waitingMessage, type SchedulingPlan } from '../scheduling/index.ts';
import { needsReservationRead, nodesToReserve, planSlurmReservations, type SlurmRead, type SlurmWrite } from '../slurm/index.ts';
import { schedulingLimitsOf, type KmaintConfig } from './config.ts';
import { planConfigReport } from './config-report.ts';
import { planForeignCrdEvent } from './crd-schema.ts';
import { planMalformedReports } from './malformed.ts';
import type { PassOptions } from './options.ts';
import { readSlurmFor, withNodeConditions } from './pass-common.ts';
import { slurmEffect } from './pass-effects.ts';
import type { PassDefinition, PlanInput } from './pass-definition.ts';
import { planCloudEventsOff } from './reaper-pass.ts';
import type { BaseSnapshot } from './snapshot.ts';
import { planSriovPass, readSriov, sriovExternalPools, type SriovRead } from './sriov-pass.ts';
import { readBlockers } from './reboot-blockers-read.ts';
import { readDevices } from './device-read.ts';
import type { DeviceView } from '../devices/index.ts';

export interface SchedulerReads {
  /** With spec.nodeHandshake.protocol sriov-network-operator: the operator's node states and pools. */
  sriov: SriovRead | undefined;
  /** With spec.slurm and a request whose not-before is ahead: Slurm's nodes and reservations, and its node's pods. */
  reservations: { slurm: SlurmRead; podsByNode: ReadonlyMap<string, V1Pod[]> };
  /** With spec.rebootBlockers and a request waiting: the blocking pods and alerts (issue 43). */
  blockers?: Blockers | undefined;
  /** With a device request waiting (issue 45): DeviceTaintRules served, and the nodes' devices. */
  devices?: DeviceView | undefined;
}

/**
 * The scheduler's Slurm read for maintenance reservations: only with spec.slurm on and some request whose not-before is
 * still ahead, or a waiting one with a reservation recorded whose not-before is not (checked: kept or deleted); in pod
 * mode with the pods of the nodes still to reserve (their worker pods name the Slurm nodes).
 */
async function readReservations(opts: PassOptions, base: BaseSnapshot, config: KmaintConfig, now: Date): Promise<SchedulerReads['reservations']> {
  const podsByNode = new Map<string, V1Pod[]>();
  const settings = config.slurm;
  const reading = settings.kind === 'off' ? [] : base.maintenances.filter((nm) => needsReservationRead(nm, now) && base.nodes.has(nm.spec.nodeName));
  const slurm = await readSlurmFor(opts, config, reading.length > 0, true);
  if (reading.length === 0 || settings.kind !== 'on' || settings.settings.mode !== 'pod') return { slurm, podsByNode };
  // Issue 40: only the nodes whose next request gets a reservation, read at most 8 at a time.
  const nodes = nodesToReserve(base.maintenances, base.nodes, slurm.context, now);
  await forEachBounded(nodes, { limit: 8 }, async (node) => void podsByNode.set(node, await opts.client.listPods({ fieldSelector: fieldSelectorTerm('spec.nodeName', node) })));
  return { slurm, podsByNode };
}

/** What every add-on is given: the pass's input, its admissions and the SR-IOV handshake's part (its problems are reported). */
export interface SchedulerContext {
  input: PlanInput<SchedulerReads>;
  plan: SchedulingPlan;
  sriov: { actions: Action[]; problems: string[] };
}

/** What an add-on plans: its writes, and optionally Slurm writes (new work) and writes repeating an earlier report. */
export interface AddOnOutput {
  actions: Action[];
  slurm?: SlurmWrite[];
  /** Actions repeating what an earlier pass reported (no progress). */
  repeated?: number;
}

export interface SchedulerAddOn {
  name: string;
  plan: (ctx: SchedulerContext) => AddOnOutput;
}

/** The scheduler's writes in the order they are applied; the order is part of their meaning (each line says why). */
export const ADD_ONS: readonly SchedulerAddOn[] = [
  // First: the config's Valid condition (and PoolsOverlap), not under a schema lacking kmaint's fields: the write would
  // make the pruning of the stored config permanent.
  {
    name: 'config report',
    plan: ({ input: { config, crds, now }, plan, sriov }) => {
      const scopedProblems = [...config.problems.scoped, ...config.problems.features, ...sriov.problems, ...(crds?.reportable ?? [])];
      return { actions: crds?.configWritable === false ? [] : planConfigReport(config.object, config.problems.limits, now, { scopedProblems, notes: config.slurmNotes, poolOverlaps: plan.poolOverlaps }) };
    },
  },
  // The ForeignCRDs event, when this pass writes the refusal into some request.
  { name: 'foreign CRDs', plan: ({ input: { config, crds }, plan }) => ({ actions: crds ? planForeignCrdEvent(config.object, crds, plan.actions, plan.closed) : [] }) },
  // The admissions and wait reasons themselves.
  { name: 'admission', plan: ({ plan }) => ({ actions: plan.actions }) },
  // Deadlines missed and request times that cannot be read: a Warning each, once (after the status writes, same unit).
  { name: 'deadlines', plan: ({ input: { base, now } }) => ({ actions: planDeadlineReports(base.maintenances, now) }) },
  // The node-annotation handshake: after the scheduling writes, so a Node says Draining only once its request's admission is written.
  { name: 'node-annotation handshake', plan: ({ input: { base, config }, plan }) => ({ actions: planHandshake({ nodes: base.nodeList, maintenances: base.maintenances, admittedThisPass: new Set(plan.admitted) }, config.handshake).actions }) },
  // As the SR-IOV network operator's external drainer: its handshake's writes come after the scheduling writes too.
  { name: 'SR-IOV handshake', plan: ({ sriov }) => ({ actions: sriov.actions }) },
  // kmaint's own cloud event requests once spec.cloudEvents is off: the reaper pass is skipped then, so the scheduler ends them.
  { name: 'cloud events off', plan: ({ input: { base, config, namespace } }) => ({ actions: planCloudEventsOff(base, config, namespace) }) },
  // kured's sentinel (issue 43): reboot requests for Nodes whose condition asks for one, and their deletion once Ready
  // with it cleared. Filed after admission: a new request is admitted by a later pass, under the same limits as any.
  { name: 'reboot sentinel', plan: ({ input: { base, config, namespace } }) => ({ actions: planRebootSentinel({ nodes: base.nodeList, maintenances: base.maintenances, namespace }, config.rebootSentinel).actions }) },
  // Requests that bypassed validation: the scheduler, which explains every request it does not admit, says why.
  {
    name: 'malformed requests',
    plan: ({ input: { base, now } }) => {
      const malformed = planMalformedReports(base.malformed, now);
      return { actions: malformed.actions, repeated: malformed.repeated };
    },
  },
  // Advance notice to Slurm: a MAINT reservation from not-before (recorded this pass, created the next).
  {
    name: 'Slurm reservations',
    plan: ({ input: { base, reads, now } }) => {
      const reserve = planSlurmReservations({ maintenances: base.maintenances, nodes: base.nodes, podsByNode: reads.reservations.podsByNode, slurm: reads.reservations.slurm.context }, now);
      return { actions: reserve.actions, slurm: reserve.writes };
    },
  },
];

/** Admission, then every add-on in order; the node conditions after all of it (pass-common.ts withNodeConditions). */
function planScheduler(input: PlanInput<SchedulerReads>, addOns: readonly SchedulerAddOn[] = ADD_ONS): ReturnType<PassDefinition<SchedulerReads>['plan']> {
  const { base, config, reads, maintenances, namespace, crds, drainerFollows, now } = input;
  const externalPools = sriovExternalPools(reads.sriov, base);
  const { state, limits } = schedulerInputs({ nodes: base.nodeList, maintenances: base.maintenances, limits: schedulingLimitsOf(config, crds), kmaintNamespace: namespace, ...(externalPools !== undefined ? { externalPools } : {}), ...(reads.blockers !== undefined ? { blockers: reads.blockers } : {}), ...(reads.devices !== undefined ? { devices: reads.devices } : {}) });
  const plan = planScheduling(state, limits, now);
  const sriov = planSriovPass(reads.sriov, base, plan.admitted);
  const outputs = addOns.map((a) => a.plan({ input, plan, sriov }));
  const slurmWrites = outputs.flatMap((o) => o.slurm ?? []);
  return {
    // The handshake's report on a Node admitted this pass rides on the admission record's patch (one Node write).
    actions: withNodeConditions(foldIntoAdmissionRecords(outputs.flatMap((o) => o.actions)), base, config, now, drainerFollows),
    state: slurmWrites.length > 0 ? 'in-flight' : plan.waiting.length > 0 ? 'blocked' : 'idle',
    report: {
      waiting: plan.waiting.length,
      waits: plan.waiting.map(({ key, why }) => ({ request: key, node: maintenances.get(key)?.spec.nodeName ?? '', reason: waitingMessage(why) })),
      admitted: plan.admitted.length,
      repeated: outputs.reduce((n, o) => n + (o.repeated ?? 0), 0),
    },
    effects: slurmEffect(slurmWrites, reads.reservations.slurm),
  };
}

export const SCHEDULER_PASS: PassDefinition<SchedulerReads> = {
  read: async (opts, base, config) => ({ sriov: await readSriov(opts, config), reservations: await readReservations(opts, base, config, opts.now()), blockers: await readBlockers(opts, base, config.rebootBlockers), devices: await readDevices(opts, base) }),
  plan: (input) => planScheduler(input),
  reportsConfig: true,
  writesLeaveWork: true,
};
