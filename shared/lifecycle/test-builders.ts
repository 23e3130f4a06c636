// Fixtures for lifecycle tests that the scheduling and drain builders do not cover: Nodes with an identity,
// Ready pods, PodDisruptionBudgets, NodeMaintenances mid-lifecycle, a drainer step's context, and a plan's writes
// folded back into a snapshot.
import type { V1LabelSelector, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { CONDITION_REQUESTOR_FAILED, FINALIZER, maintenancePhase, maintenanceRef } from '../api/index.ts';
import type { Action, DrainStatus, NodeMaintenance, NodeMaintenanceSpec, NodeMaintenanceStatus } from '../api/index.ts';
import { aPod, type PodOptions } from '../drain/test-builders.ts';
import { aMaintenance, aNode, NOW, withAdmissionRecords, type MaintenanceOptions, type NodeOptions } from '../scheduling/test-builders.ts';
import type { SlurmContext } from '../slurm/index.ts';
import type { DraView } from '../drain/index.ts';
import { BudgetLedger } from './budgets.ts';
import type { DrainerSnapshot } from './plan-drainer.ts';
import type { Medik8sLeases } from './node-lease.ts';
import type { StepContext } from './steps/step.ts';

/** The same instant as the scheduling tests' NOW, ten seconds on: when the next pass runs. */
export const LATER = new Date('2026-01-01T00:00:10Z');

/** aNode with the uid (owner references need it) and resourceVersion a LIST returns: `uid-<name>`, `"7"`. */
export function aNodeWithUid(opts: NodeOptions): V1Node {
  const node = aNode(opts);
  return { ...node, metadata: { ...node.metadata, uid: `uid-${opts.name}`, resourceVersion: '7' } };
}

/** aPod whose Ready condition is True: healthy in PodDisruptionBudget terms. */
export function aReadyPod(opts: PodOptions): V1Pod {
  const pod = aPod(opts);
  return { ...pod, status: { ...pod.status, conditions: [{ type: 'Ready', status: 'True' }] } };
}

export interface PdbOptions {
  name: string;
  /** @default 'default' */
  namespace?: string;
  /** spec.selector as written; `null` leaves it out (a nil selector). @default { matchLabels: { app: 'db' } } */
  selector?: V1LabelSelector | null;
  /** @default 1 */
  disruptionsAllowed?: number;
  /** @default 1 */
  desiredHealthy?: number;
  /** @default 2 */
  currentHealthy?: number;
  /** @default 2 */
  expectedPods?: number;
  /** @default 1 */
  generation?: number;
  /** @default generation */
  observedGeneration?: number;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export function aPdb(opts: PdbOptions): V1PodDisruptionBudget {
  const generation = opts.generation ?? 1;
  const selector = opts.selector === undefined ? { matchLabels: { app: 'db' } } : opts.selector;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: opts.name, namespace: opts.namespace ?? 'default', generation },
    spec: {
      ...(selector !== null ? { selector } : {}),
      ...(opts.unhealthyPodEvictionPolicy !== undefined ? { unhealthyPodEvictionPolicy: opts.unhealthyPodEvictionPolicy } : {}),
    },
    status: {
      observedGeneration: opts.observedGeneration ?? generation,
      disruptionsAllowed: opts.disruptionsAllowed ?? 1,
      desiredHealthy: opts.desiredHealthy ?? 1,
      currentHealthy: opts.currentHealthy ?? 2,
      expectedPods: opts.expectedPods ?? 2,
    },
  };
}

export interface LifecycleMaintenanceOptions extends MaintenanceOptions {
  /** Spec fields beyond requestorID and nodeName. */
  spec?: Partial<Omit<NodeMaintenanceSpec, 'requestorID' | 'nodeName'>>;
  annotations?: Record<string, string>;
  /** Carries maintenance.nvidia.com/finalizer. @default true when deleting or past Pending, else false */
  finalizer?: boolean;
  /** Carries the Node owner reference the drainer adds. @default same as `finalizer` */
  ownedByNode?: boolean;
  /** status.RequestorFailed condition status; absent when undefined. */
  requestorFailed?: 'True' | 'False';
  waitForCompletion?: string[];
  drain?: DrainStatus;
}

/** aMaintenance past admission: the metadata and status the drainer leaves on a request in `phase`. */
export function aLifecycleMaintenance(opts: LifecycleMaintenanceOptions): NodeMaintenance {
  const base = aMaintenance(opts);
  const phase = opts.phase ?? 'Pending';
  const finalizer = opts.finalizer ?? (opts.deleting === true || (phase !== 'Pending' && phase !== ''));
  const owned = opts.ownedByNode ?? finalizer;
  const conditions = [
    ...(base.status?.conditions ?? []),
    ...(opts.requestorFailed !== undefined
      ? [{ type: CONDITION_REQUESTOR_FAILED, status: opts.requestorFailed, reason: 'FailedMaintenance', message: 'firmware flash failed', lastTransitionTime: '2025-12-31T06:00:00Z' }]
      : []),
  ];
  const { finalizers: _dropped, ...metadata } = base.metadata;
  return {
    ...base,
    metadata: {
      ...metadata,
      ...(opts.annotations !== undefined ? { annotations: { ...opts.annotations } } : {}),
      ...(finalizer ? { finalizers: [FINALIZER] } : {}),
      ...(owned ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: opts.nodeName, uid: `uid-${opts.nodeName}` }] } : {}),
    },
    spec: { ...base.spec, ...opts.spec },
    status: {
      ...(conditions.length > 0 ? { conditions } : {}),
      ...(opts.waitForCompletion !== undefined ? { waitForCompletion: opts.waitForCompletion } : {}),
      ...(opts.drain !== undefined ? { drain: opts.drain } : {}),
    },
  };
}

export interface StepContextOptions {
  /** @default aNodeWithUid({ name: nm.spec.nodeName }) */
  node?: V1Node;
  /** @default the request's own */
  phase?: string;
  /** @default [] */
  pods?: V1Pod[];
  /** The budgets the ledger starts from. @default [] */
  pdbs?: V1PodDisruptionBudget[];
  /** @default {} (not the request's: a step's status changes stand out) */
  status?: NodeMaintenanceStatus;
  medik8s?: Medik8sLeases;
  slurm?: SlurmContext;
  dra?: DraView;
  /** @default NOW */
  now?: Date;
}

/** What the drainer hands a step for `nm`, built the same way; fresh ledger. */
export function aStepContext(nm: NodeMaintenance, opts: StepContextOptions = {}): StepContext {
  const node = opts.node ?? aNodeWithUid({ name: nm.spec.nodeName });
  const ref = maintenanceRef(nm);
  return {
    nm,
    phase: opts.phase ?? maintenancePhase(nm),
    node,
    nodeRef: { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' },
    ref,
    eventTarget: { kind: 'NodeMaintenance', namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) },
    pods: opts.pods ?? [],
    dra: opts.dra,
    status: opts.status ?? {},
    medik8s: opts.medik8s,
    slurm: opts.slurm,
    ledger: new BudgetLedger(opts.pdbs ?? []),
    now: opts.now ?? NOW,
  };
}

function keyOf(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

/**
 * `snapshot` with kmaint's admission record (issue 40) on the Node of each request it puts past Pending: the drainer's
 * fixtures are requests kmaint's scheduler admitted (withAdmissionRecords). Forgery fixtures build their Nodes by hand.
 */
export function recorded(snapshot: DrainerSnapshot): DrainerSnapshot {
  const nodes = withAdmissionRecords([...snapshot.nodes.values()], snapshot.maintenances);
  return { ...snapshot, nodes: new Map([...snapshot.nodes.keys()].map((name, i) => [name, nodes[i] as V1Node])) };
}

/**
 * The snapshot the next pass would read had every write of `actions` succeeded, as the API server applies them:
 * statuses replaced, annotations merged (null deletes), finalizers and owner references added or removed, nodes
 * cordoned or uncordoned, evicted pods terminating, deleted pods gone. Budgets are left as they were. Copies only.
 */
export function afterApplying(snapshot: DrainerSnapshot, actions: readonly Action[]): DrainerSnapshot {
  const maintenances = snapshot.maintenances.map((nm) => structuredClone(nm));
  const byKey = new Map(maintenances.map((nm) => [keyOf(nm.metadata.namespace, nm.metadata.name), nm]));
  const nodes = new Map([...snapshot.nodes].map(([name, node]) => [name, structuredClone(node)]));
  const podsByNode = new Map([...snapshot.podsByNode].map(([name, pods]) => [name, pods.map((p) => structuredClone(p))]));
  const evicted = new Set<string>();
  const deleted = new Set<string>();
  for (const action of actions) {
    switch (action.kind) {
      case 'writeStatus': {
        const nm = byKey.get(keyOf(action.target.namespace, action.target.name));
        if (nm) nm.status = structuredClone(action.status);
        break;
      }
      case 'patchMaintenanceMeta': {
        const nm = byKey.get(keyOf(action.target.namespace, action.target.name));
        if (!nm) break;
        const annotations = { ...nm.metadata.annotations };
        for (const [key, value] of Object.entries(action.annotations ?? {})) {
          if (value === null) delete annotations[key];
          else annotations[key] = value;
        }
        nm.metadata.annotations = annotations;
        const finalizers = (nm.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
        const hadFinalizer = (nm.metadata.finalizers ?? []).includes(FINALIZER);
        if ((hadFinalizer || action.addFinalizer === true) && action.removeFinalizer !== true) finalizers.push(FINALIZER);
        nm.metadata.finalizers = finalizers;
        if (action.ownerNode) {
          nm.metadata.ownerReferences = [...(nm.metadata.ownerReferences ?? []), { apiVersion: 'v1', kind: 'Node', ...action.ownerNode }];
        }
        break;
      }
      case 'cordonNode':
      case 'uncordonNode':
      case 'patchNodeAnnotations': {
        const node = nodes.get(action.node.name);
        if (!node) break;
        if (action.kind !== 'patchNodeAnnotations') node.spec = { ...node.spec, unschedulable: action.kind === 'cordonNode' };
        if (action.annotations === undefined) break;
        const annotations = { ...node.metadata?.annotations };
        for (const [key, value] of Object.entries(action.annotations)) {
          if (value === null) delete annotations[key];
          else annotations[key] = value;
        }
        node.metadata = { ...node.metadata, annotations };
        break;
      }
      case 'evictPod':
        evicted.add(keyOf(action.pod.namespace, action.pod.name));
        break;
      case 'deletePod':
        deleted.add(keyOf(action.pod.namespace, action.pod.name));
        break;
      default:
        break;
    }
  }
  for (const [name, pods] of podsByNode) {
    podsByNode.set(
      name,
      pods
        .filter((p) => !deleted.has(keyOf(p.metadata?.namespace, p.metadata?.name)))
        .map((p) => (evicted.has(keyOf(p.metadata?.namespace, p.metadata?.name)) ? { ...p, metadata: { ...p.metadata, deletionTimestamp: new Date('2026-01-01T00:00:00Z') } } : p)),
    );
  }
  return { ...snapshot, nodes, maintenances, podsByNode };
}
