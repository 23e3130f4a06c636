// Defaulting of built-in kinds on create and update, as the API server's defaulters and default-on admission
// plugins (DefaultTolerationSeconds) do, limited to the fields controllers, kubelets and kmaint read.
import { isObject, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import type { KindInfo } from './kinds.ts';

function setDefault(obj: JsonObject, key: string, value: Json): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

function ensureObject(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  obj[key] = created;
  return created;
}

function imagePullPolicy(image: string): string {
  const last = image.split('/').pop() ?? image;
  if (image.includes('@')) return 'IfNotPresent';
  const tag = last.includes(':') ? last.slice(last.lastIndexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Json): void {
  if (!isObject(c)) return;
  setDefault(c, 'resources', {});
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (typeof c['image'] === 'string') setDefault(c, 'imagePullPolicy', imagePullPolicy(c['image']));
  const ports = c['ports'];
  if (Array.isArray(ports)) for (const p of ports) if (isObject(p)) setDefault(p, 'protocol', 'TCP');
}

function tolerates(tolerations: Json[], key: string): boolean {
  return tolerations.some((t) => isObject(t) && (t['effect'] === undefined || t['effect'] === '' || t['effect'] === 'NoExecute') && (t['key'] === key || ((t['key'] === undefined || t['key'] === '') && t['operator'] === 'Exists')));
}

/** PodSpec defaults (pods and pod templates). */
export function defaultPodSpec(spec: JsonObject, options: { restartPolicy?: boolean } = {}): void {
  // Job templates must name their restart policy; validation (not defaulting) complains when they do not.
  if (options.restartPolicy ?? true) setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (Array.isArray(cs)) cs.forEach(defaultContainer);
  }
}

/** What admission adds to a pod on create: service account, priority, DefaultTolerationSeconds. */
export function admitPodSpec(spec: JsonObject): void {
  defaultPodSpec(spec);
  setDefault(spec, 'serviceAccountName', stringAt(spec, 'serviceAccount') ?? 'default');
  setDefault(spec, 'serviceAccount', stringAt(spec, 'serviceAccountName') ?? 'default');
  setDefault(spec, 'priority', 0);
  setDefault(spec, 'enableServiceLinks', true);
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  const tolerations = Array.isArray(spec['tolerations']) ? spec['tolerations'] : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerates(tolerations, key)) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  spec['tolerations'] = tolerations;
}

/** Guaranteed, Burstable or BestEffort from the containers' requests and limits. */
export function qosClass(spec: JsonObject): string {
  const containers = [...(Array.isArray(spec['containers']) ? spec['containers'] : []), ...(Array.isArray(spec['initContainers']) ? spec['initContainers'] : [])].filter(isObject);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = objectAt(c, 'resources') ?? {};
    const requests = objectAt(res, 'requests') ?? {};
    const limits = objectAt(res, 'limits') ?? {};
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) any = true;
    for (const r of ['cpu', 'memory']) {
      const limit = limits[r];
      const request = requests[r] ?? limit;
      if (limit === undefined || request !== limit) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function defaultTemplate(spec: JsonObject, options: { restartPolicy?: boolean } = {}): void {
  const template = objectAt(spec, 'template');
  const podSpec = objectAt(template, 'spec');
  if (podSpec) defaultPodSpec(podSpec, options);
}

const DEFAULTERS: Readonly<Record<string, (obj: JsonObject) => void>> = {
  pods: (obj) => defaultPodSpec(ensureObject(obj, 'spec')),
  nodes: (obj) => {
    // SetDefaults_NodeStatus: allocatable is the capacity until the kubelet says otherwise.
    const status = objectAt(obj, 'status');
    const capacity = objectAt(status, 'capacity');
    if (status && capacity && status['allocatable'] === undefined) status['allocatable'] = structuredClone(capacity);
  },
  'apps/deployments': (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    const strategy = ensureObject(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const ru = ensureObject(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    defaultTemplate(spec);
  },
  'apps/replicasets': (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultTemplate(spec);
  },
  'apps/statefulsets': (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    setDefault(spec, 'revisionHistoryLimit', 10);
    const strategy = ensureObject(spec, 'updateStrategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') setDefault(ensureObject(strategy, 'rollingUpdate'), 'partition', 0);
    setDefault(spec, 'persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' });
    defaultTemplate(spec);
  },
  'apps/daemonsets': (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'revisionHistoryLimit', 10);
    const strategy = ensureObject(spec, 'updateStrategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const ru = ensureObject(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    defaultTemplate(spec);
  },
  'batch/jobs': (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'parallelism', 1);
    if (spec['completions'] === undefined && spec['parallelism'] === 1) spec['completions'] = 1;
    setDefault(spec, 'backoffLimit', 6);
    setDefault(spec, 'completionMode', 'NonIndexed');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'podReplacementPolicy', 'TerminatingOrFailed');
    defaultTemplate(spec, { restartPolicy: false });
  },
  services: (obj) => {
    const spec = ensureObject(obj, 'spec');
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    const ports = spec['ports'];
    if (Array.isArray(ports)) {
      for (const p of ports) {
        if (!isObject(p)) continue;
        setDefault(p, 'protocol', 'TCP');
        if (p['port'] !== undefined) setDefault(p, 'targetPort', p['port']);
      }
    }
  },
};

/** Applies the kind's defaults in place (on every create and update, as decoding does). */
export function defaultBuiltin(kind: KindInfo, obj: JsonObject): void {
  if (kind.custom) return;
  DEFAULTERS[kind.group ? `${kind.group}/${kind.resource}` : kind.resource]?.(obj);
}
