// Kind-specific rules on create and update: the registry strategies and default-on admission plugins of the real
// server (status reset, namespace labels, pod admission and topology labels, Job selectors, ClusterIPs, CRDs).
import { rfc3339Seconds } from '../../shared/api/index.ts';
import type { SimContext } from './context.ts';
import { crdKinds, crdStatus, defaultCrd } from './crds.ts';
import { fieldErrors, type FieldError } from './errors.ts';
import { admitPodSpec, qosClass } from './builtin-defaults.ts';
import { deepEqual, isObject, objectAt, stringAt, stringMapAt, type JsonObject } from './json-value.ts';
import { keyOf, type KindInfo } from './kinds.ts';
import { metaOf } from './object-meta.ts';

/** The kinds whose status may be set on create (a kubelet registers a Node with its capacity). */
const STATUS_ON_CREATE = new Set(['nodes']);

/** The effects a DeviceTaint may have (validDeviceTaintEffects of Kubernetes 1.35), as its Status lists them. */
const DEVICE_TAINT_EFFECTS: readonly string[] = ['NoExecute', 'NoSchedule', 'None'];

const TOPOLOGY_LABELS = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

/** PodTopologyLabels admission: the node's zone and region labels are copied onto pods bound to it. */
export function copyTopologyLabels(ctx: SimContext, pod: JsonObject, nodeName: string): void {
  const nodes = ctx.kinds.lookup('', 'v1', 'nodes');
  const node = nodes && ctx.store.get(nodes, '', nodeName);
  if (!node) return;
  const wanted = TOPOLOGY_LABELS.filter((k) => node.labels[k] !== undefined);
  if (wanted.length === 0) return;
  const meta = metaOf(pod);
  const labels = objectAt(meta, 'labels') ?? {};
  for (const k of wanted) labels[k] = node.labels[k] as string;
  meta['labels'] = labels;
}

function ensureSpec(obj: JsonObject): JsonObject {
  const spec = objectAt(obj, 'spec') ?? {};
  obj['spec'] = spec;
  return spec;
}

type CreateRule = (ctx: SimContext, obj: JsonObject) => FieldError[];

const CREATE_RULES: Readonly<Record<string, CreateRule>> = {
  namespaces: (_ctx, obj) => {
    const meta = metaOf(obj);
    meta['labels'] = { ...stringMapAt(meta, 'labels'), 'kubernetes.io/metadata.name': stringAt(meta, 'name') ?? '' };
    const spec = ensureSpec(obj);
    if (!Array.isArray(spec['finalizers'])) spec['finalizers'] = ['kubernetes'];
    obj['status'] = { phase: 'Active' };
    return [];
  },
  nodes: (ctx, obj) => {
    if (ctx.admission.taintNewNodes) {
      const spec = ensureSpec(obj);
      const taints = Array.isArray(spec['taints']) ? spec['taints'] : [];
      if (!taints.some((t) => isObject(t) && t['key'] === 'node.kubernetes.io/not-ready')) taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
      spec['taints'] = taints;
    }
    return [];
  },
  pods: (ctx, obj) => {
    const spec = ensureSpec(obj);
    const containers = spec['containers'];
    if (!Array.isArray(containers) || containers.length === 0) return [fieldErrors.required('spec.containers')];
    admitPodSpec(spec);
    const nodeName = stringAt(spec, 'nodeName');
    if (nodeName) copyTopologyLabels(ctx, obj, nodeName);
    obj['status'] = { phase: 'Pending', qosClass: qosClass(spec) };
    return [];
  },
  'batch/jobs': (_ctx, obj) => {
    const spec = ensureSpec(obj);
    const meta = metaOf(obj);
    const uid = stringAt(meta, 'uid') ?? '';
    const name = stringAt(meta, 'name') ?? '';
    if (spec['manualSelector'] !== true) {
      spec['selector'] = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
      const template = objectAt(spec, 'template') ?? {};
      const tmeta = objectAt(template, 'metadata') ?? {};
      tmeta['labels'] = { ...stringMapAt(tmeta, 'labels'), 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
      template['metadata'] = tmeta;
      spec['template'] = template;
    }
    const restart = stringAt(objectAt(objectAt(spec, 'template'), 'spec'), 'restartPolicy');
    if (restart !== 'OnFailure' && restart !== 'Never') return [fieldErrors.required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"')];
    obj['status'] = {};
    return [];
  },
  services: (ctx, obj) => {
    const spec = ensureSpec(obj);
    if (spec['type'] !== 'ExternalName' && spec['clusterIP'] !== 'None' && !spec['clusterIP']) {
      const ip = ctx.nextServiceIp();
      spec['clusterIP'] = ip;
      spec['clusterIPs'] = [ip];
    }
    if (spec['clusterIP'] !== undefined) {
      spec['ipFamilies'] ??= ['IPv4'];
      spec['ipFamilyPolicy'] ??= 'SingleStack';
    }
    obj['status'] = { loadBalancer: {} };
    return [];
  },
  'policy/poddisruptionbudgets': (_ctx, obj) => {
    obj['status'] = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    return [];
  },
  'resource.k8s.io/devicetaintrules': (ctx, obj) => {
    // v1alpha3's defaulter stamps the taint's timeAdded (whole seconds); validation wants a key and a known effect.
    const taint = objectAt(ensureSpec(obj), 'taint');
    if (!taint) return [fieldErrors.required('spec.taint.key'), fieldErrors.required('spec.taint.effect')];
    taint['timeAdded'] ??= rfc3339Seconds(ctx.clock.now());
    const errors: FieldError[] = [];
    if (!stringAt(taint, 'key')) errors.push(fieldErrors.required('spec.taint.key'));
    const effect = stringAt(taint, 'effect');
    if (!effect) errors.push(fieldErrors.required('spec.taint.effect'));
    else if (!DEVICE_TAINT_EFFECTS.includes(effect)) errors.push(fieldErrors.notSupported('spec.taint.effect', effect, DEVICE_TAINT_EFFECTS));
    return errors;
  },
  'apiextensions.k8s.io/customresourcedefinitions': (ctx, obj) => {
    defaultCrd(obj);
    const { errors } = crdKinds(obj);
    obj['status'] = crdStatus(obj, ctx.clock.now());
    return errors;
  },
};

/** Mutates a new object as admission and the create strategy do; returns validation errors. */
export function admitCreate(ctx: SimContext, kind: KindInfo, obj: JsonObject): FieldError[] {
  if (kind.hasStatus && !STATUS_ON_CREATE.has(keyOf(kind))) {
    if (kind.custom) delete obj['status'];
    else obj['status'] = {};
  }
  return CREATE_RULES[keyOf(kind)]?.(ctx, obj) ?? [];
}

/** Fields of a pod spec an update may change; everything else is immutable. */
function mutablePodSpecView(spec: JsonObject): JsonObject {
  const view = structuredClone(spec);
  delete view['activeDeadlineSeconds'];
  delete view['tolerations'];
  delete view['terminationGracePeriodSeconds'];
  delete view['schedulingGates'];
  for (const list of ['containers', 'initContainers']) {
    const cs = view[list];
    if (Array.isArray(cs)) for (const c of cs) if (isObject(c)) delete c['image'];
  }
  return view;
}

const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Update rules on the main endpoint (`subresource` ''), or the status one. Mutates `next`; returns errors. */
export function admitUpdate(ctx: SimContext, kind: KindInfo, next: JsonObject, old: JsonObject, subresource: string): FieldError[] {
  const key = keyOf(kind);
  if (key === 'pods' && subresource === '') {
    const spec = objectAt(next, 'spec') ?? {};
    if (!deepEqual(mutablePodSpecView(spec), mutablePodSpecView(objectAt(old, 'spec') ?? {}))) return [fieldErrors.forbidden('spec', POD_UPDATE_FORBIDDEN)];
  }
  if (key === 'namespaces') {
    const meta = metaOf(next);
    meta['labels'] = { ...stringMapAt(meta, 'labels'), 'kubernetes.io/metadata.name': stringAt(meta, 'name') ?? '' };
  }
  if (key === 'apiextensions.k8s.io/customresourcedefinitions' && subresource === '') {
    defaultCrd(next);
    const { errors } = crdKinds(next);
    next['status'] = crdStatus({ ...next, status: old['status'] ?? {} }, ctx.clock.now());
    return errors;
  }
  return [];
}
