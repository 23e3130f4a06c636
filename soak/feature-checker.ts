// The all-features checks as the soak's sampler runs them: which count limits and gangs were in force over each
// interval (from the configs written), the state the gang rule carries between samples, and what each feature was
// seen doing, for the report. The rules themselves are feature-invariants.ts.
import { maintenanceKey } from '../shared/api/index.ts';
import {
  ANNOTATION_OUT_OF_SERVICE_BY,
  CLOUD_EVENT_REQUEST_PREFIX,
  NODE_CONDITION_MESSAGE_PREFIX,
  NodeCondition,
  SRIOV_REQUEST_PREFIX,
  TAINT_OUT_OF_SERVICE,
} from '../shared/api/index.ts';
import { POOL_LABEL, type FeatureWorld, type LimitRecord, type World } from './actors.ts';
import { checkCountLimits, checkGangs, partialGangs, type CountLimit } from './feature-invariants.ts';
import type { FeatureSetup } from './feature-setup.ts';
import { SRIOV_NODE_LABEL, SRIOV_POOL_LIMIT, SRIOV_POOL_NAME, type FeatureSwitches } from './features.ts';
import type { CheckResult, ClusterSample } from './invariants.ts';

/** Distinct objects the checker saw in the states each feature makes: a green run shows it exercised each one. */
export interface FeaturesSeen {
  sriovRequests: number;
  cloudEventRequests: number;
  outOfServiceTaints: number;
  /** Nodes seen with kmaint's MaintenancePlanned=True (a not-before request ahead). */
  plannedNodes: number;
  /** Gangs seen with every member admitted. */
  gangsAdmittedWhole: number;
  /** Pods outside every drain selection that went, each with the control plane's TaintManagerEviction event (NoExecute). */
  podsEvictedByTaint: number;
}

export const NOTHING_SEEN: Readonly<FeaturesSeen> = Object.freeze({ sriovRequests: 0, cloudEventRequests: 0, outOfServiceTaints: 0, plannedNodes: 0, gangsAdmittedWhole: 0, podsEvictedByTaint: 0 });

/** The all-features profile's figures in the report. */
export interface FeatureReport {
  gangs: number;
  cloudEvents: number;
  ec2Calls: number;
  sriovDrains: number;
  /** '' when the SR-IOV route was set up, else why not. */
  sriovProblem: string;
  draPods: number;
  leasesTaken: number;
  nodesKilled: number;
  /** Config writes that changed at least one switch. */
  switchFlips: number;
  /** The switches of the last config (what the run ended with). */
  endSwitches: FeatureSwitches;
  seen: FeaturesSeen;
  /** Runs of every pass after the end until one wrote nothing; whether that happened. */
  quiet: { runs: number; quiet: boolean; writes: number };
  /** kmaint's reservations and drains seen in the real Slurm, worker pods created; `problem` says why there was no Slurm ('' when there was). */
  slurm: { reservations: number; drains: number; workersCreated: number; jobs: number; problem: string };
}

export interface FeatureCheckerInput {
  world: World;
  features: FeatureWorld;
  kmaintNamespace: string;
  setup: FeatureSetup;
  /** The configs any pass could have acted on since a time (run-soak.ts: the one before it and every later one). */
  effectiveSince: (from: number) => LimitRecord[];
}

export function createFeatureChecker(input: FeatureCheckerInput): { check(prev: ClusterSample, now: ClusterSample, from: number, at: number): CheckResult; seen(): FeaturesSeen } {
  const { features, kmaintNamespace, setup, effectiveSince } = input;
  /** A switch on in every config a pass could have acted on since `from`. */
  const onThroughout = (from: number, name: keyof FeatureSwitches): boolean => {
    const effective = effectiveSince(from);
    return effective.length > 0 && effective.every((e) => e.features?.[name] === true);
  };
  /** The count limits in force throughout since `from`: the SR-IOV pool while the protocol was on, the gpu pool's maxParallelOperations. */
  const countLimitsOver = (from: number, sample: ClusterSample): CountLimit[] => {
    const labels = new Map(sample.nodes.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}]));
    const out: CountLimit[] = [];
    if (setup.sriovProblem === '' && onThroughout(from, 'sriov')) {
      out.push({ scope: `SR-IOV pool ${SRIOV_POOL_NAME}`, limit: SRIOV_POOL_LIMIT, counts: (nm) => nm.metadata.namespace === kmaintNamespace && nm.metadata.name.startsWith(SRIOV_REQUEST_PREFIX) && labels.get(nm.spec.nodeName)?.[SRIOV_NODE_LABEL] === 'yes' });
    }
    const effective = effectiveSince(from);
    const gpuParallel = effective.length > 0 && effective.every((e) => e.gpuPoolParallel !== undefined) ? Math.max(...effective.map((e) => e.gpuPoolParallel ?? 0)) : undefined;
    if (gpuParallel !== undefined) out.push({ scope: 'pool gpu maxParallelOperations', limit: gpuParallel, counts: (nm) => labels.get(nm.spec.nodeName)?.[POOL_LABEL] === 'gpu' });
    return out;
  };
  const seen = { sriov: new Set<string>(), cloud: new Set<string>(), outOfService: new Set<string>(), planned: new Set<string>(), gangsWhole: new Set<string>() };
  const noteSeen = (now: ClusterSample): void => {
    for (const nm of now.nms) {
      if (nm.metadata.namespace !== kmaintNamespace) continue;
      if (nm.metadata.name.startsWith(SRIOV_REQUEST_PREFIX)) seen.sriov.add(nm.metadata.name);
      if (nm.metadata.name.startsWith(CLOUD_EVENT_REQUEST_PREFIX)) seen.cloud.add(nm.metadata.name);
    }
    for (const n of now.nodes) {
      const name = n.metadata?.name ?? '';
      if ((n.spec?.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE)) seen.outOfService.add(`${name} ${n.metadata?.annotations?.[ANNOTATION_OUT_OF_SERVICE_BY] ?? ''}`);
      if ((n.status?.conditions ?? []).some((c) => c.type === NodeCondition.MaintenancePlanned && c.status === 'True' && (c.message ?? '').startsWith(NODE_CONDITION_MESSAGE_PREFIX))) seen.planned.add(name);
    }
    const phases = new Map(now.nms.map((nm) => [maintenanceKey(nm), nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '']));
    for (const [gang, g] of features.gangs) if (g.members.length > 1 && g.members.every((m) => !['', 'Pending', undefined].includes(phases.get(m)))) seen.gangsWhole.add(gang);
  };
  let gangSince = new Map<string, number>();
  let gangReported = new Set<string>();
  return {
    check(prev, now, from, at) {
      noteSeen(now);
      const counted = checkCountLimits(prev, now, countLimitsOver(from, now));
      // A node-label gang is one only while gangNodeLabel was on from its creation: turned off, its members start alone.
      const partial = partialGangs(now, features.gangs, (g) => g.kind === 'node-label' && !onThroughout(g.createdAt, 'gangNodeLabel'));
      const gangs = checkGangs(partial, gangSince, gangReported, at);
      gangSince = gangs.since;
      gangReported = gangs.reported;
      return { violations: [...counted.violations, ...gangs.violations], checks: counted.checks + gangs.checks };
    },
    seen: () => ({ sriovRequests: seen.sriov.size, cloudEventRequests: seen.cloud.size, outOfServiceTaints: seen.outOfService.size, plannedNodes: seen.planned.size, gangsAdmittedWhole: seen.gangsWhole.size, podsEvictedByTaint: 0 }),
  };
}

/** The report table's rows for the all-features figures. */
export function featureRows(f: FeatureReport): Array<[string, string]> {
  return [
    ['features', `${f.gangs} gangs, ${f.cloudEvents} EC2 events (${f.ec2Calls} DescribeInstanceStatus calls), ${f.sriovProblem === '' ? `${f.sriovDrains} SR-IOV drains asked` : `SR-IOV not set up: ${f.sriovProblem}`}, ${f.draPods} DRA pods, ${f.leasesTaken} medik8s leases taken by another tool, ${f.nodesKilled} kubelets killed mid-drain`],
    ['seen', `${f.seen.gangsAdmittedWhole} gangs admitted whole, ${f.seen.sriovRequests} SR-IOV requests, ${f.seen.cloudEventRequests} cloud-event requests, ${f.seen.outOfServiceTaints} out-of-service taints, ${f.seen.plannedNodes} nodes MaintenancePlanned, ${f.seen.podsEvictedByTaint} pods outside the drain selection evicted by the control plane's taint eviction`],
    ['Slurm', f.slurm.problem === '' ? `${f.slurm.reservations} kmaint_ reservations and ${f.slurm.drains} kmaint: drains seen in Slurm, ${f.slurm.jobs} jobs submitted, ${f.slurm.workersCreated} worker pods created` : `not run: ${f.slurm.problem}`],
    ['switches', `${f.switchFlips} configs flipped a switch; ended with ${Object.entries(f.endSwitches).map(([k, v]) => `${k} ${v ? 'on' : 'off'}`).join(', ')}`],
    ['quiet at the end', `${f.quiet.quiet ? 'yes' : 'NO'} after ${f.quiet.runs} runs of every pass (${f.quiet.writes} writes)`],
  ];
}
