import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_DRAIN_START,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_READY_TIME,
  ANNOTATION_WAIT_POD_COMPLETION_START,
} from '../api/index.ts';
import type { Action, Condition, MaintenanceRef, NodeMaintenance, NodeMaintenanceStatus } from '../api/index.ts';
import { aPod, type PodOptions } from '../drain/test-builders.ts';
import { EARLIER, NOW } from '../scheduling/test-builders.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import { ANNOTATION_SLURM_DRAINED, type SlurmContext, type SlurmSettings, type SlurmWrite } from '../slurm/index.ts';
import { planDrainer, type DrainerPlan, type DrainerSnapshot } from './plan-drainer.ts';
import { aLifecycleMaintenance, afterApplying, aNodeWithUid, aPdb, aReadyPod, LATER, type LifecycleMaintenanceOptions, recorded } from './test-builders.ts';

const NOW_S = '2026-01-01T00:00:00Z';
const NODE = 'worker-01';
const cordonedNode = aNodeWithUid({ name: NODE, unschedulable: true });
const schedulableNode = aNodeWithUid({ name: NODE });

const ref = (name = 'nm-1'): MaintenanceRef => ({ namespace: 'default', name, resourceVersion: '100', uid: `uid-${name}` });
const target = (name = 'nm-1') => ({ kind: 'NodeMaintenance' as const, namespace: 'default', name, uid: `uid-${name}` });

/** A request past the cordon step on a node that was schedulable before it (the drainer's usual state). */
function nm(opts: Partial<LifecycleMaintenanceOptions> & { phase: string }): NodeMaintenance {
  return aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, ...opts, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', ...opts.annotations } });
}

const ready = (phase: string, message: string, lastTransitionTime: string): Condition => ({
  type: 'Ready',
  status: phase === 'Ready' ? 'True' : 'False',
  reason: phase,
  message,
  lastTransitionTime,
  observedGeneration: 1,
});

/** kmaint.io/Waiting beside Ready while a PodDisruptionBudget holds the drain, first written at `lastTransitionTime`. */
const budgetWait = (lastTransitionTime: string): Condition => ({ type: 'kmaint.io/Waiting', status: 'True', reason: 'Budget', message: '', lastTransitionTime, observedGeneration: 1 });

const REQUESTOR_FAILED_TRUE: Condition = { type: 'RequestorFailed', status: 'True', reason: 'FailedMaintenance', message: 'firmware flash failed', lastTransitionTime: '2025-12-31T06:00:00Z' };

function meta(annotations: Record<string, string | null>, name = 'nm-1'): Action {
  return { kind: 'patchMaintenanceMeta', target: ref(name), annotations, reason: 'record progress' };
}
function firstMeta(annotations: Record<string, string | null>): Action {
  return {
    kind: 'patchMaintenanceMeta',
    target: ref(),
    annotations,
    addFinalizer: true,
    ownerNode: { name: NODE, uid: `uid-${NODE}` },
    reason: 'finalizer before touching the node',
  };
}
/** The cordon, with who cordons the node and why in the same patch. */
const cordon: Action = {
  kind: 'cordonNode',
  node: { name: NODE, resourceVersion: '7' },
  maintenance: ref(),
  reason: 'cordon for default/nm-1',
  annotations: { 'kmaint.io/cordoned-by': 'kmaint/default/nm-1', 'kmaint.io/cordon-reason': 'NodeMaintenance default/nm-1 (requestor requestor-a)' },
};
function evict(pod: string, reason = 'drain', name = 'nm-1'): Action {
  return { kind: 'evictPod', pod: { namespace: 'default', name: pod, uid: `uid-${pod}` }, maintenance: ref(name), reason };
}
function moved(from: string, to: string, status: NodeMaintenanceStatus, name = 'nm-1'): Action {
  return { kind: 'writeStatus', target: ref(name), status, phaseFrom: from, phaseTo: to, reason: `${from} -> ${to}` };
}
function rewrote(status: NodeMaintenanceStatus, reason: string, name = 'nm-1'): Action {
  return { kind: 'writeStatus', target: ref(name), status, reason };
}
function changed(phase: string, name = 'nm-1'): Action {
  return { kind: 'emitEvent', target: target(name), type: 'Normal', eventReason: 'ConditionChanged', message: phase, reason: `phase ${phase}` };
}
function refused(message: string): Action {
  return { kind: 'emitEvent', target: target(), type: 'Warning', eventReason: 'DrainRefused', message, reason: 'drain refused pods' };
}
function invalidSpec(message: string): Action {
  return { kind: 'emitEvent', target: target(), type: 'Warning', eventReason: 'InvalidNodeMaintenance', message, reason: 'unreadable drainSpec.podSelector' };
}
function budgetBlocked(message: string, name = 'nm-1'): Action {
  return { kind: 'emitEvent', target: target(name), type: 'Warning', eventReason: 'EvictionBlocked', message, reason: 'eviction blocked by a budget' };
}

type Summary = Pick<DrainerPlan, 'inFlight' | 'becameReady' | 'idle'>;
const IN_FLIGHT: Summary = { inFlight: 1, becameReady: 0, idle: false };
const BECAME_READY: Summary = { inFlight: 0, becameReady: 1, idle: false };
const MOVED: Summary = { inFlight: 0, becameReady: 0, idle: false };
const IDLE: Summary = { inFlight: 0, becameReady: 0, idle: true };

interface Row {
  rule: string;
  /** @default [cordonedNode] */
  nodes?: V1Node[];
  maintenances: NodeMaintenance[];
  pods?: V1Pod[];
  pdbs?: V1PodDisruptionBudget[];
  actions: Action[];
  summary: Summary;
  /** The budgets as the API server and disruption controller leave them after the first pass's evictions. */
  pdbsAfter?: V1PodDisruptionBudget[];
  /** A second pass at LATER over the first pass's writes applied. @default [] */
  secondPass?: Action[];
  /** spec.slurm as read this pass. @default undefined (Slurm off) */
  slurm?: SlurmContext;
  /** @default [] */
  slurmWrites?: SlurmWrite[];
}

/** kmaint's own pods as the passes see them by default: namespace kmaint, ServiceAccount kmaint. */
const OWN_PODS = { namespace: 'kmaint', serviceAccounts: ['kmaint'] };

function snapshotOf(row: Row): DrainerSnapshot {
  const podsByNode = new Map<string, V1Pod[]>();
  for (const pod of row.pods ?? []) {
    const node = pod.spec?.nodeName ?? '';
    podsByNode.set(node, [...(podsByNode.get(node) ?? []), pod]);
  }
  const nodes = row.nodes ?? [cordonedNode];
  return { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), maintenances: row.maintenances, podsByNode, pdbs: row.pdbs ?? [], ownPods: OWN_PODS, ...(row.slurm ? { slurm: row.slurm } : {}) };
}

const dbPdb = aPdb({ name: 'db-pdb', disruptionsAllowed: 1, desiredHealthy: 1, currentHealthy: 2, expectedPods: 2 });
const dbPod = (name: string, nodeName = NODE): V1Pod => aReadyPod({ name, labels: { app: 'db' }, owner: 'StatefulSet', nodeName });

const cordonRows: Row[] = [
  {
    rule: 'Scheduled, cordon: finalizer, owner and node-initial-state "false" in one patch, then cordon, then status, then one event per phase passed',
    nodes: [schedulableNode],
    maintenances: [nm({ phase: 'Scheduled', finalizer: false, annotations: {} })].map(withoutRecord),
    actions: [
      firstMeta({ 'kmaint.io/cordon-recorded': 'true', [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_READY_TIME]: NOW_S }),
      cordon,
      moved('Scheduled', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }),
      changed('Cordon'),
      changed('WaitForPodCompletion'),
      changed('Draining'),
      changed('Ready'),
    ],
    summary: BECAME_READY,
  },
  {
    rule: 'Scheduled with a drainSpec: record and cordon before the first eviction, stops in Draining',
    nodes: [schedulableNode],
    maintenances: [nm({ phase: 'Scheduled', finalizer: false, spec: { drainSpec: {} } })].map(withoutRecord),
    pods: [aPod({ name: 'web-1' })],
    actions: [
      firstMeta({ 'kmaint.io/cordon-recorded': 'true', [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_DRAIN_START]: NOW_S }),
      cordon,
      evict('web-1'),
      moved('Scheduled', 'Draining', {
        conditions: [ready('Draining', 'draining: 1 of 1 pods left', EARLIER)],
        drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/web-1'] },
      }),
      changed('Cordon'),
      changed('WaitForPodCompletion'),
      changed('Draining'),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'Scheduled on a node already cordoned: record "true", no cordon',
    nodes: [cordonedNode],
    maintenances: [nm({ phase: 'Scheduled', finalizer: false })].map(withoutRecord),
    actions: [
      firstMeta({ [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'true', [ANNOTATION_READY_TIME]: NOW_S }),
      moved('Scheduled', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }),
      changed('Cordon'),
      changed('WaitForPodCompletion'),
      changed('Draining'),
      changed('Ready'),
    ],
    summary: BECAME_READY,
  },
  {
    rule: 'Scheduled with cordon: false: no record, no cordon',
    nodes: [schedulableNode],
    maintenances: [nm({ phase: 'Scheduled', finalizer: false, spec: { cordon: false } })].map(withoutRecord),
    actions: [
      firstMeta({ [ANNOTATION_READY_TIME]: NOW_S }),
      moved('Scheduled', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }),
      changed('Cordon'),
      changed('WaitForPodCompletion'),
      changed('Draining'),
      changed('Ready'),
    ],
    summary: BECAME_READY,
  },
  {
    rule: 'Scheduled again after a crash between record and cordon: the record is kept, the cordon retried',
    nodes: [schedulableNode],
    maintenances: [nm({ phase: 'Scheduled' })],
    actions: [
      meta({ 'kmaint.io/cordon-recorded': 'true', [ANNOTATION_READY_TIME]: NOW_S }),
      cordon,
      moved('Scheduled', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }),
      changed('Cordon'),
      changed('WaitForPodCompletion'),
      changed('Draining'),
      changed('Ready'),
    ],
    summary: BECAME_READY,
  },
];

const important = (name: string, more: Partial<PodOptions> = {}): V1Pod => aPod({ name, labels: { app: 'important' }, ...more });

const waitRows: Row[] = [
  {
    rule: 'waitForPodCompletion with matching pods: stays in WaitForPodCompletion, lists them, records the start time',
    maintenances: [nm({ phase: 'Cordon', spec: { waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 600 } } })],
    pods: [important('train-2'), important('train-1'), aPod({ name: 'web-1', labels: { app: 'web' } })],
    actions: [
      meta({ [ANNOTATION_WAIT_POD_COMPLETION_START]: NOW_S }),
      moved('Cordon', 'WaitForPodCompletion', {
        conditions: [ready('WaitForPodCompletion', 'waiting for 2 pods to complete: default/train-1, default/train-2 (timeout at 2026-01-01T00:10:00Z)', EARLIER)],
        waitForCompletion: ['default/train-1', 'default/train-2'],
      }),
      changed('WaitForPodCompletion'),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'waitForPodCompletion counts finished pods that still exist (upstream: any phase)',
    maintenances: [nm({ phase: 'WaitForPodCompletion', annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:59:00Z' }, spec: { waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 600 } } })],
    pods: [important('done', { phase: 'Succeeded' })],
    actions: [
      rewrote(
        { conditions: [ready('WaitForPodCompletion', 'waiting for 1 pod to complete: default/done (timeout at 2026-01-01T00:09:00Z)', EARLIER)], waitForCompletion: ['default/done'] },
        'waiting for 1 pod to complete: default/done (timeout at 2026-01-01T00:09:00Z)',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'waitForPodCompletion timeout reached: moves on to Draining (not a failure) and drops the list',
    maintenances: [
      nm({
        phase: 'WaitForPodCompletion',
        message: 'waiting for 1 pod to complete: default/train-1 (timeout at 2026-01-01T00:00:00Z)',
        waitForCompletion: ['default/train-1'],
        annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:59:00Z' },
        spec: { waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 60 }, drainSpec: {} },
      }),
    ],
    pods: [important('train-1')],
    actions: [
      meta({ [ANNOTATION_DRAIN_START]: NOW_S }),
      evict('train-1'),
      moved('WaitForPodCompletion', 'Draining', {
        conditions: [ready('Draining', 'draining: 1 of 1 pods left', EARLIER)],
        drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/train-1'] },
      }),
      changed('Draining'),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'waitForPodCompletion timeoutSeconds 0 waits forever; the empty selector matches every pod, DaemonSet pods included',
    maintenances: [nm({ phase: 'WaitForPodCompletion', annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-01-01T00:00:00Z' }, spec: { waitForPodCompletion: { podSelector: '', timeoutSeconds: 0 } } })],
    pods: ['d', 'c', 'b', 'a'].map((name) => aPod({ name })).concat(aPod({ name: 'ds-1', owner: 'DaemonSet' })),
    actions: [
      rewrote(
        {
          conditions: [ready('WaitForPodCompletion', 'waiting for 5 pods to complete: default/a, default/b, default/c and 2 more', EARLIER)],
          waitForCompletion: ['default/a', 'default/b', 'default/c', 'default/d', 'default/ds-1'],
        },
        'waiting for 5 pods to complete: default/a, default/b, default/c and 2 more',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'waitForPodCompletion without timeoutSeconds waits forever too (CRD default 0)',
    maintenances: [nm({ phase: 'WaitForPodCompletion', annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-01-01T00:00:00Z' }, spec: { waitForPodCompletion: { podSelector: 'app=important' } } })],
    pods: [important('train-1')],
    actions: [
      rewrote(
        { conditions: [ready('WaitForPodCompletion', 'waiting for 1 pod to complete: default/train-1', EARLIER)], waitForCompletion: ['default/train-1'] },
        'waiting for 1 pod to complete: default/train-1',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'waitForPodCompletion with no matching pod left: moves on',
    maintenances: [
      nm({
        phase: 'WaitForPodCompletion',
        waitForCompletion: ['default/train-1'],
        annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:59:00Z' },
        spec: { waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 600 } },
      }),
    ],
    pods: [aPod({ name: 'web-1', labels: { app: 'web' } })],
    actions: [meta({ [ANNOTATION_READY_TIME]: NOW_S }), moved('WaitForPodCompletion', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }), changed('Draining'), changed('Ready')],
    summary: BECAME_READY,
  },
  {
    rule: 'waitForPodCompletion with an unreadable selector: stays and says why',
    maintenances: [nm({ phase: 'WaitForPodCompletion', annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:59:00Z' }, spec: { waitForPodCompletion: { podSelector: 'app in (a' } } })],
    pods: [],
    actions: [
      rewrote(
        { conditions: [ready('WaitForPodCompletion', 'waitForPodCompletion.podSelector: invalid label selector "app in (a": found end of string at column 10, expected \',\' or \')\'', EARLIER)] },
        'waitForPodCompletion.podSelector: invalid label selector "app in (a": found end of string at column 10, expected \',\' or \')\'',
      ),
    ],
    summary: IN_FLIGHT,
  },
];

const slurmdSelector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!slurmdSelector.ok) throw new Error(slurmdSelector.error);
const SLURM: SlurmSettings = { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: slurmdSelector.selector, nameFrom: 'label', nameKey: 'slurm/node', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };
const slurmWorker = (): V1Pod => aPod({ name: 'slurm-n1', labels: { 'app.kubernetes.io/name': 'slurmd', 'slurm/node': 'n1' } });
const UNREADABLE_DRAIN_SELECTOR = `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`;

const DRAINING_SINCE = { [ANNOTATION_DRAIN_START]: '2025-12-31T23:59:00Z' };

const drainRows: Row[] = [
  {
    rule: 'no drainSpec: straight to Ready, status.drain removed, ready-time recorded',
    maintenances: [nm({ phase: 'Draining', drain: { totalPods: 3, evictionPods: 2, drainProgress: 50, waitForEviction: ['default/web-2'] } })],
    pods: [aPod({ name: 'web-1' })],
    actions: [meta({ [ANNOTATION_READY_TIME]: NOW_S }), moved('Draining', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }), changed('Ready')],
    summary: BECAME_READY,
  },
  {
    // kmaint's own pod is known by its namespace and ServiceAccount; a tenant's pod with kmaint's label is drained.
    rule: "drainSpec: evicts only the pods the drain selects (DaemonSet, mirror, operator and kmaint's own pods stay; kmaint's label alone does not)",
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [
      aPod({ name: 'web-2', owner: 'StatefulSet' }),
      aPod({ name: 'ds-1', owner: 'DaemonSet' }),
      aPod({ name: 'static-1', owner: 'Node', mirror: true }),
      { ...aPod({ name: 'kmaint-1', namespace: 'kmaint', owner: 'Job', labels: { 'app.kubernetes.io/name': 'kmaint' } }), spec: { ...aPod({ name: 'kmaint-1' }).spec, containers: [], nodeName: NODE, serviceAccountName: 'kmaint' } },
      aPod({ name: 'tenant-kmaint', labels: { 'app.kubernetes.io/name': 'kmaint' } }),
      aPod({ name: 'nvidia-op', namespace: 'nvidia-maintenance-operator', labels: { 'app.kubernetes.io/component': 'maintenance-operator-controller-manager' } }),
      aPod({ name: 'web-1' }),
    ],
    actions: [
      evict('tenant-kmaint'),
      evict('web-1'),
      evict('web-2'),
      rewrote(
        {
          conditions: [ready('Draining', 'draining: 3 of 3 pods left', EARLIER)],
          drain: { totalPods: 7, evictionPods: 3, drainProgress: 0, waitForEviction: ['default/tenant-kmaint', 'default/web-1', 'default/web-2'] },
        },
        'draining: 3 of 3 pods left',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec podSelector and eviction filters narrow the drain; finished pods are deleted without a budget check',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: { podSelector: 'app=gpu', podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu' }] } } })],
    pods: [
      aPod({ name: 'gpu-1', labels: { app: 'gpu' }, requests: ['nvidia.com/gpu'] }),
      aPod({ name: 'gpu-2', labels: { app: 'gpu' }, requests: ['cpu'] }),
      aPod({ name: 'gpu-done', labels: { app: 'gpu' }, requests: ['nvidia.com/gpu'], phase: 'Succeeded' }),
      aPod({ name: 'web-1', requests: ['nvidia.com/gpu'] }),
    ],
    actions: [
      { kind: 'deletePod', pod: { namespace: 'default', name: 'gpu-done', uid: 'uid-gpu-done' }, maintenance: ref(), reason: 'finished pod removed without a budget check' },
      evict('gpu-1'),
      rewrote(
        {
          conditions: [ready('Draining', 'draining: 2 of 2 pods left', EARLIER)],
          drain: { totalPods: 4, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/gpu-1', 'default/gpu-done'] },
        },
        'draining: 2 of 2 pods left',
      ),
    ],
    summary: IN_FLIGHT,
    // gpu-done is gone and gpu-1 terminating: one of two left, the base kept.
    secondPass: [
      rewrote(
        {
          conditions: [ready('Draining', 'draining: 1 of 2 pods left', EARLIER)],
          drain: { totalPods: 4, evictionPods: 2, drainProgress: 50, waitForEviction: ['default/gpu-1'] },
        },
        'draining: 1 of 2 pods left',
      ),
    ],
  },
  {
    rule: 'drainSpec: every selected pod gone -> Ready, the drain base kept',
    maintenances: [
      nm({
        phase: 'Draining',
        message: 'draining: 1 of 2 pods left',
        annotations: DRAINING_SINCE,
        spec: { drainSpec: {} },
        drain: { totalPods: 3, evictionPods: 2, drainProgress: 50, waitForEviction: ['default/web-2'] },
      }),
    ],
    pods: [aPod({ name: 'ds-1', owner: 'DaemonSet' })],
    actions: [
      meta({ [ANNOTATION_READY_TIME]: NOW_S }),
      moved('Draining', 'Ready', { conditions: [ready('Ready', '', NOW_S)], drain: { totalPods: 3, evictionPods: 2, drainProgress: 100 } }),
      changed('Ready'),
    ],
    summary: BECAME_READY,
  },
  {
    rule: 'drainSpec: pods the drain may not remove are refused, with a DrainRefused event when the message changes',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [aPod({ name: 'scratch', emptyDir: true }), aPod({ name: 'bare', owner: 'none' })],
    actions: [
      rewrote(
        {
          conditions: [
            ready(
              'Draining',
              'draining: 2 of 2 pods left; refused: cannot delete pod with no controller: default/bare (use force), cannot delete pod with local storage (emptyDir): default/scratch (use deleteEmptyDir)',
              EARLIER,
            ),
          ],
          drain: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/bare', 'default/scratch'] },
        },
        'draining: 2 of 2 pods left; refused: cannot delete pod with no controller: default/bare (use force), cannot delete pod with local storage (emptyDir): default/scratch (use deleteEmptyDir)',
      ),
      refused('cannot delete pod with no controller: default/bare (use force), cannot delete pod with local storage (emptyDir): default/scratch (use deleteEmptyDir)'),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec.podSelector unreadable: nothing is evicted and no window starts; the message leads with the field, says so once and lists no DaemonSet pod',
    maintenances: [nm({ phase: 'Draining', spec: { drainSpec: { force: true, podSelector: 'app in (a', timeoutSeconds: 30 } } })],
    pods: [aPod({ name: 'fluentd-x', owner: 'DaemonSet' }), aPod({ name: 'web-1', labels: { app: 'a' } })],
    actions: [
      rewrote(
        { conditions: [ready('Draining', `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`, EARLIER)] },
        `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`,
      ),
      invalidSpec(`drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec.podSelector unreadable under spec.slurm: no Slurm node is drained for a drain that cannot run',
    maintenances: [nm({ phase: 'Draining', annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1' }, spec: { drainSpec: { force: true, podSelector: 'app in (a' } } })],
    pods: [slurmWorker()],
    slurm: { kind: 'on', settings: SLURM, view: { kind: 'ok', nodes: new Map([['n1', { name: 'n1', state: ['ALLOCATED'], reason: '' }]]) } },
    actions: [rewrote({ conditions: [ready('Draining', UNREADABLE_DRAIN_SELECTOR, EARLIER)] }, UNREADABLE_DRAIN_SELECTOR), invalidSpec(UNREADABLE_DRAIN_SELECTOR)],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec.podSelector unreadable, slurmrestd unreachable with whenUnreachable: evict: no SlurmProblem warning for a drain that cannot run',
    maintenances: [nm({ phase: 'Draining', spec: { drainSpec: { force: true, podSelector: 'app in (a' } } })],
    pods: [slurmWorker()],
    slurm: { kind: 'on', settings: { ...SLURM, whenUnreachable: 'evict' }, view: { kind: 'problem', problem: { kind: 'unreachable', message: 'cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED' } } },
    actions: [rewrote({ conditions: [ready('Draining', UNREADABLE_DRAIN_SELECTOR, EARLIER)] }, UNREADABLE_DRAIN_SELECTOR), invalidSpec(UNREADABLE_DRAIN_SELECTOR)],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec.podSelector unreadable beside a bad eviction filter: the selector comes first, the filter problem after',
    maintenances: [nm({ phase: 'Draining', spec: { drainSpec: { podSelector: 'app in (a', podEvictionFilters: [{}] } } })],
    pods: [aPod({ name: 'fluentd-x', owner: 'DaemonSet' }), aPod({ name: 'web-1', labels: { app: 'a' } })],
    actions: [
      rewrote(
        {
          conditions: [
            ready(
              'Draining',
              `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed; drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod`,
              EARLIER,
            ),
          ],
        },
        `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed; drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod`,
      ),
      invalidSpec(
        `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed; drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod`,
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec: force and deleteEmptyDir let the same pods go',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: { force: true, deleteEmptyDir: true } } })],
    pods: [aPod({ name: 'scratch', emptyDir: true }), aPod({ name: 'bare', owner: 'none' })],
    actions: [
      evict('bare'),
      evict('scratch'),
      rewrote(
        {
          conditions: [ready('Draining', 'draining: 2 of 2 pods left', EARLIER)],
          drain: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/bare', 'default/scratch'] },
        },
        'draining: 2 of 2 pods left',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'status read back with its keys sorted (as the API server returns custom resources): unchanged, nothing written',
    maintenances: [
      nm({
        phase: 'Draining',
        message: 'draining: 1 of 2 pods left',
        annotations: DRAINING_SINCE,
        spec: { drainSpec: {} },
        drain: { drainProgress: 50, evictionPods: 2, totalPods: 2, waitForEviction: ['default/web-1'] },
      }),
    ],
    pods: [aPod({ name: 'web-1', terminating: true }), aPod({ name: 'ds-1', owner: 'DaemonSet' })],
    actions: [],
    summary: IN_FLIGHT,
  },
  {
    rule: 'drainSpec timeoutSeconds 0: never times out',
    maintenances: [
      nm({
        phase: 'Draining',
        message: 'draining: 1 of 1 pods left; refused: cannot delete pod with no controller: default/bare (use force)',
        annotations: { [ANNOTATION_DRAIN_START]: '2025-01-01T00:00:00Z' },
        spec: { drainSpec: { timeoutSeconds: 0 } },
        drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/bare'] },
      }),
    ],
    pods: [aPod({ name: 'bare', owner: 'none' })],
    actions: [],
    summary: IN_FLIGHT,
  },
];

const budgetRows: Row[] = [
  {
    rule: 'a budget allowing 1 disruption over 2 pods: exactly one eviction, the other pod named with the budget numbers',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [dbPod('db-1'), dbPod('db-0')],
    pdbs: [dbPdb],
    actions: [
      evict('db-0', 'drain (budget default/db-pdb allows it)'),
      rewrote(
        {
          conditions: [
            ready('Draining', 'draining: 2 of 2 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress', EARLIER), budgetWait(NOW_S),
          ],
          drain: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/db-0', 'default/db-1'] },
        },
        'draining: 2 of 2 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress',
      ),
      budgetBlocked('pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress'),
    ],
    summary: IN_FLIGHT,
    // The eviction spent the disruption; the controller then counts db-0 as gone.
    pdbsAfter: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1, expectedPods: 2 })],
    secondPass: [
      rewrote(
        {
          conditions: [
            ready('Draining', 'draining: 2 of 2 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy', EARLIER), budgetWait(NOW_S),
          ],
          drain: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/db-0', 'default/db-1'] },
        },
        'draining: 2 of 2 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy',
      ),
      budgetBlocked('pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy'),
    ],
  },
  {
    rule: 'a budget the disruption controller has not observed yet: no eviction at all',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [dbPod('db-0'), dbPod('db-1')],
    pdbs: [aPdb({ name: 'db-pdb', generation: 2, observedGeneration: 1, disruptionsAllowed: 1 })],
    actions: [
      rewrote(
        {
          conditions: [
            ready(
              'Draining',
              'draining: 2 of 2 pods left; pod default/db-0 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller), pod default/db-1 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller)',
              EARLIER,
            ),
            budgetWait(NOW_S),
          ],
          drain: { totalPods: 2, evictionPods: 2, drainProgress: 0, waitForEviction: ['default/db-0', 'default/db-1'] },
        },
        'draining: 2 of 2 pods left; pod default/db-0 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller), pod default/db-1 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller)',
      ),
      budgetBlocked(
        'pod default/db-0 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller), pod default/db-1 waits for PodDisruptionBudget default/db-pdb (not yet processed by the disruption controller)',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'a pod covered by two budgets is refused (the eviction API would answer 500)',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [dbPod('db-0')],
    pdbs: [dbPdb, aPdb({ name: 'all-pdb', selector: {} })],
    actions: [
      rewrote(
        {
          conditions: [
            ready(
              'Draining',
              'draining: 1 of 1 pods left; refused: pod default/db-0 is covered by more than one PodDisruptionBudget (default/all-pdb, default/db-pdb); the eviction API refuses it',
              EARLIER,
            ),
          ],
          drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-0'] },
        },
        'draining: 1 of 1 pods left; refused: pod default/db-0 is covered by more than one PodDisruptionBudget (default/all-pdb, default/db-pdb); the eviction API refuses it',
      ),
      refused('pod default/db-0 is covered by more than one PodDisruptionBudget (default/all-pdb, default/db-pdb); the eviction API refuses it'),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'a budget that allows the disruption again: the pod is evicted, and kmaint.io/Waiting goes in the same status write',
    maintenances: [
      nm({
        phase: 'Draining',
        message: 'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress',
        waitingOn: 'Budget',
        annotations: DRAINING_SINCE,
        spec: { drainSpec: {} },
        drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] },
      }),
    ],
    pods: [dbPod('db-1')],
    pdbs: [dbPdb],
    actions: [
      evict('db-1', 'drain (budget default/db-pdb allows it)'),
      rewrote(
        { conditions: [ready('Draining', 'draining: 1 of 1 pods left', EARLIER)], drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] } },
        'draining: 1 of 1 pods left',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'an unhealthy (not Ready) pod under an AlwaysAllow budget is evicted although the budget allows 0',
    maintenances: [nm({ phase: 'Draining', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [aPod({ name: 'db-0', labels: { app: 'db' }, owner: 'StatefulSet' })],
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
    actions: [
      evict('db-0', 'drain (budget default/db-pdb allows it)'),
      rewrote(
        { conditions: [ready('Draining', 'draining: 1 of 1 pods left', EARLIER)], drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-0'] } },
        'draining: 1 of 1 pods left',
      ),
    ],
    summary: IN_FLIGHT,
  },
  {
    rule: 'one budget is shared by every request in the pass: the first request in namespace/name order spends it',
    nodes: [cordonedNode, aNodeWithUid({ name: 'worker-02', unschedulable: true })],
    maintenances: [
      aLifecycleMaintenance({ name: 'nm-b', nodeName: 'worker-02', phase: 'Draining', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', ...DRAINING_SINCE }, spec: { drainSpec: {} } }),
      aLifecycleMaintenance({ name: 'nm-a', nodeName: NODE, phase: 'Draining', annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', ...DRAINING_SINCE }, spec: { drainSpec: {} } }),
    ],
    pods: [dbPod('db-1', 'worker-02'), dbPod('db-0')],
    pdbs: [dbPdb],
    actions: [
      evict('db-0', 'drain (budget default/db-pdb allows it)', 'nm-a'),
      rewrote(
        { conditions: [ready('Draining', 'draining: 1 of 1 pods left', EARLIER)], drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-0'] } },
        'draining: 1 of 1 pods left',
        'nm-a',
      ),
      rewrote(
        {
          conditions: [
            ready('Draining', 'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress', EARLIER), budgetWait(NOW_S),
          ],
          drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] },
        },
        'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress',
        'nm-b',
      ),
      budgetBlocked('pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 1 disruptions: needs 1 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress', 'nm-b'),
    ],
    summary: { inFlight: 2, becameReady: 0, idle: false },
    pdbsAfter: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1, expectedPods: 2 })],
    secondPass: [
      rewrote(
        {
          conditions: [
            ready('Draining', 'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy', EARLIER), budgetWait(NOW_S),
          ],
          drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] },
        },
        'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy',
        'nm-b',
      ),
      budgetBlocked('pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 1 healthy, has 1 of 2 expected): held by unhealthy pods: 1 of the 2 expected pods is not healthy', 'nm-b'),
    ],
  },
  {
    rule: 'drain timeout: a DrainTimeout warning, a fresh window (annotation reset, status.drain recomputed)',
    maintenances: [
      nm({
        phase: 'Draining',
        message: 'draining: 1 of 2 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress',
        annotations: { [ANNOTATION_DRAIN_START]: '2025-12-31T23:55:00Z' },
        spec: { drainSpec: {} },
        drain: { totalPods: 2, evictionPods: 2, drainProgress: 50, waitForEviction: ['default/db-1'] },
      }),
    ],
    pods: [dbPod('db-1')],
    pdbs: [aPdb({ name: 'db-pdb', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 })],
    actions: [
      meta({ [ANNOTATION_DRAIN_START]: NOW_S }),
      rewrote(
        {
          conditions: [
            ready('Draining', 'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress', EARLIER), budgetWait(NOW_S),
          ],
          drain: { totalPods: 1, evictionPods: 1, drainProgress: 0, waitForEviction: ['default/db-1'] },
        },
        'draining: 1 of 1 pods left; pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress',
      ),
      {
        kind: 'emitEvent',
        target: target(),
        type: 'Warning',
        eventReason: 'DrainTimeout',
        message: 'drain did not finish within 300 s (1 pods left); retrying with a new window',
        reason: 'drain timeout',
      },
      budgetBlocked('pod default/db-1 waits for PodDisruptionBudget default/db-pdb (allows 0 disruptions: needs 2 healthy, has 2 of 2 expected): at its limit: other disruptions are in progress'),
    ],
    summary: IN_FLIGHT,
  },
];

const terminalRows: Row[] = [
  {
    rule: 'Ready with RequestorFailed True -> RequestorFailed (Ready status False)',
    maintenances: [nm({ phase: 'Ready', requestorFailed: 'True', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' } })],
    actions: [moved('Ready', 'RequestorFailed', { conditions: [ready('RequestorFailed', '', NOW_S), REQUESTOR_FAILED_TRUE] }), changed('RequestorFailed')],
    summary: MOVED,
  },
  {
    rule: 'RequestorFailed with the condition set False -> back to Ready',
    maintenances: [nm({ phase: 'RequestorFailed', requestorFailed: 'False', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' } })],
    actions: [moved('RequestorFailed', 'Ready', { conditions: [ready('Ready', '', NOW_S), { ...REQUESTOR_FAILED_TRUE, status: 'False' }] }), changed('Ready')],
    summary: BECAME_READY,
  },
  {
    rule: 'RequestorFailed with the condition removed -> back to Ready',
    maintenances: [nm({ phase: 'RequestorFailed', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' } })],
    actions: [moved('RequestorFailed', 'Ready', { conditions: [ready('Ready', '', NOW_S)] }), changed('Ready')],
    summary: BECAME_READY,
  },
  {
    rule: 'RequestorFailed still failed: nothing to do',
    maintenances: [nm({ phase: 'RequestorFailed', requestorFailed: 'True', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' } })],
    actions: [],
    summary: IDLE,
  },
  {
    rule: 'Ready without a ready-time (written by another operator): the GC clock is started once',
    maintenances: [nm({ phase: 'Ready' })],
    actions: [meta({ [ANNOTATION_READY_TIME]: NOW_S })],
    summary: MOVED,
  },
  {
    rule: 'Ready with its ready-time: nothing to do',
    maintenances: [nm({ phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T12:00:00Z' } })],
    actions: [],
    summary: IDLE,
  },
];

const ignoredRows: Row[] = [
  {
    rule: 'objects being deleted belong to cleanup',
    maintenances: [nm({ phase: 'Draining', deleting: true, annotations: DRAINING_SINCE, spec: { drainSpec: {} } }), nm({ phase: 'Scheduled', deleting: true, name: 'nm-2' })],
    pods: [aPod({ name: 'web-1' })],
    actions: [],
    summary: IDLE,
  },
  {
    rule: 'a request whose node is missing is left to cleanup',
    nodes: [],
    maintenances: [nm({ phase: 'Scheduled', finalizer: false }), nm({ phase: 'Draining', name: 'nm-2', annotations: DRAINING_SINCE, spec: { drainSpec: {} } })],
    pods: [aPod({ name: 'web-1' })],
    actions: [],
    summary: IDLE,
  },
  {
    rule: 'requests not yet admitted belong to the scheduler',
    nodes: [schedulableNode],
    maintenances: [nm({ phase: 'Pending', finalizer: false }), nm({ phase: '', name: 'nm-2', finalizer: false })].map(withoutRecord),
    actions: [],
    summary: IDLE,
  },
];

/** A request that has not reached the cordon step carries no node-initial-state record. */
function withoutRecord(m: NodeMaintenance): NodeMaintenance {
  const { [ANNOTATION_INITIAL_UNSCHEDULABLE]: _record, ...annotations } = m.metadata.annotations ?? {};
  return { ...m, metadata: { ...m.metadata, annotations } };
}

describe('planDrainer', () => {
  describe.each([
    { group: 'Scheduled and Cordon', rows: cordonRows },
    { group: 'WaitForPodCompletion', rows: waitRows },
    { group: 'Draining', rows: drainRows },
    { group: 'PodDisruptionBudgets and drain timeout', rows: budgetRows },
    { group: 'Ready and RequestorFailed', rows: terminalRows },
    { group: 'not the drainer\'s', rows: ignoredRows },
  ])('$group', ({ rows }) => {
    it.each(rows)('$rule', (row) => {
      const snapshot = snapshotOf(row);
      const before = structuredClone(snapshot);

      const plan = planDrainer(recorded(snapshot), NOW);

      expect(plan.actions).toEqual(row.actions);
      expect(plan.slurm).toEqual(row.slurmWrites ?? []);
      expect({ inFlight: plan.inFlight, becameReady: plan.becameReady, idle: plan.idle }).toEqual(row.summary);
      expect(snapshot).toEqual(before);
    });

    it.each(rows)('a second pass over the written result, 10 s later: $rule', (row) => {
      const snapshot = snapshotOf(row);
      const applied = afterApplying(snapshot, planDrainer(recorded(snapshot), NOW).actions);

      const second = planDrainer(recorded({ ...applied, pdbs: row.pdbsAfter ?? applied.pdbs }), LATER);

      expect(second.actions).toEqual(row.secondPass ?? []);
    });
  });
});
