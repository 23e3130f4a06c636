// Builders for the workload manifests the generator emits; every pod runs the pause image.
import type {
  IntOrString,
  V1Container,
  V1DaemonSet,
  V1Deployment,
  V1Job,
  V1Namespace,
  V1Pod,
  V1PodDisruptionBudget,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Service,
  V1StatefulSet,
  V1Toleration,
} from '@kubernetes/client-node';
import {
  ANNOTATION_CONFIG_HASH,
  ANNOTATION_CONFIG_MIRROR,
  ANNOTATION_CONFIG_SOURCE,
  ANNOTATION_SIM_RUN_SECONDS,
  LABEL_APP_NAME,
  LABEL_POOL,
  PAUSE_IMAGE,
  RESOURCE_GPU,
  RESOURCE_RDMA,
} from './sim-keys.ts';

/** Mirror pods name their Node as owner; its uid is only known once the Node exists, `createCluster` fills it in. */
export const NODE_OWNER_UID_PLACEHOLDER = '';

export const TOLERATE_EVERYTHING: V1Toleration[] = [{ operator: 'Exists' }];

export interface PodShape {
  cpu: string;
  memory: string;
  gpus?: number;
  rdma?: number;
  emptyDir?: boolean;
  pool?: string;
  tolerations?: V1Toleration[];
  annotations?: Record<string, string>;
  restartPolicy?: 'Always' | 'Never' | 'OnFailure';
  terminationGracePeriodSeconds?: number;
}

/** Small grace by default so drains in tests finish quickly; the kubelet honours it. */
export const DEFAULT_GRACE_SECONDS = 5;

export function namespace(name: string): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}

export function podSpec(shape: PodShape): V1PodSpec {
  const container: V1Container = {
    name: 'main',
    image: PAUSE_IMAGE,
    resources: { requests: { cpu: shape.cpu, memory: shape.memory } },
  };
  const extended: Record<string, string> = {};
  if (shape.gpus) extended[RESOURCE_GPU] = String(shape.gpus);
  if (shape.rdma) extended[RESOURCE_RDMA] = String(shape.rdma);
  if (Object.keys(extended).length > 0) {
    // Extended resources must be limits (requests default to them).
    container.resources = { requests: { cpu: shape.cpu, memory: shape.memory, ...extended }, limits: extended };
  }
  if (shape.emptyDir) container.volumeMounts = [{ name: 'scratch', mountPath: '/scratch' }];
  return {
    containers: [container],
    terminationGracePeriodSeconds: shape.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS,
    ...(shape.restartPolicy ? { restartPolicy: shape.restartPolicy } : {}),
    ...(shape.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }] } : {}),
    ...(shape.pool ? { nodeSelector: { [LABEL_POOL]: shape.pool } } : {}),
    ...(shape.tolerations ? { tolerations: shape.tolerations } : {}),
  };
}

function template(app: string, shape: PodShape): V1PodTemplateSpec {
  return {
    metadata: { labels: { [LABEL_APP_NAME]: app }, ...(shape.annotations ? { annotations: shape.annotations } : {}) },
    spec: podSpec(shape),
  };
}

const selectorFor = (app: string) => ({ matchLabels: { [LABEL_APP_NAME]: app } });

export function deployment(ns: string, name: string, replicas: number, shape: PodShape): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace: ns, name, labels: { [LABEL_APP_NAME]: name } },
    spec: { replicas, selector: selectorFor(name), template: template(name, shape) },
  };
}

export function statefulSet(ns: string, name: string, replicas: number, shape: PodShape): V1StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { namespace: ns, name, labels: { [LABEL_APP_NAME]: name } },
    spec: { replicas, serviceName: name, selector: selectorFor(name), template: template(name, shape) },
  };
}

export function headlessService(ns: string, name: string): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: ns, name, labels: { [LABEL_APP_NAME]: name } },
    spec: { clusterIP: 'None', selector: { [LABEL_APP_NAME]: name }, ports: [{ name: 'peer', port: 7000 }] },
  };
}

export function daemonSet(ns: string, name: string, shape: PodShape): V1DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { namespace: ns, name, labels: { [LABEL_APP_NAME]: name } },
    spec: { selector: selectorFor(name), template: template(name, { ...shape, tolerations: TOLERATE_EVERYTHING }) },
  };
}

export function job(ns: string, name: string, runSeconds: number, shape: PodShape): V1Job {
  const annotations = { ...shape.annotations, [ANNOTATION_SIM_RUN_SECONDS]: String(runSeconds) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { namespace: ns, name, labels: { [LABEL_APP_NAME]: name }, annotations: { [ANNOTATION_SIM_RUN_SECONDS]: String(runSeconds) } },
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      template: template(name, { ...shape, annotations, restartPolicy: 'Never' }),
    },
  };
}

export type PdbBudget = { minAvailable: IntOrString } | { maxUnavailable: IntOrString };

export function podDisruptionBudget(ns: string, app: string, budget: PdbBudget): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { namespace: ns, name: app, labels: { [LABEL_APP_NAME]: app } },
    spec: { selector: selectorFor(app), ...budget },
  };
}

/** A pod with no controller, bound by name to a node (the scheduler is bypassed). */
export function barePod(ns: string, name: string, app: string, node: string, shape: PodShape): V1Pod {
  const tpl = template(app, shape);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, ...tpl.metadata },
    spec: { ...tpl.spec, containers: tpl.spec?.containers ?? [], nodeName: node },
  };
}

/**
 * What the API server holds for a static pod: annotation `kubernetes.io/config.mirror`, the Node as
 * controller owner, bound to it. It names no service account: admission forbids that on mirror pods.
 */
export function mirrorPod(component: string, node: string, hash: string, shape: PodShape): V1Pod {
  const spec = podSpec({ ...shape, tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: 'kube-system',
      name: `${component}-${node}`,
      labels: { [LABEL_APP_NAME]: component, component, tier: 'node' },
      annotations: { [ANNOTATION_CONFIG_MIRROR]: hash, [ANNOTATION_CONFIG_HASH]: hash, [ANNOTATION_CONFIG_SOURCE]: 'file' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: NODE_OWNER_UID_PLACEHOLDER, controller: true }],
    },
    spec: { ...spec, nodeName: node, automountServiceAccountToken: false },
  };
}
