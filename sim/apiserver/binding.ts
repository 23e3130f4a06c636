// POST pods/{name}/binding: what a scheduler calls to place a pod (BindingREST.setPodNodeAndMetadata).
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { copyTopologyLabels } from './admission.ts';
import type { SimContext } from './context.ts';
import { badRequest, conflict, notFound } from './errors.ts';
import { arrayAt, isObject, objectAt, stringAt, stringMapAt, type Json, type JsonObject } from './json-value.ts';
import { metaOf } from './object-meta.ts';

const BINDING = { group: '', resource: 'pods/binding' };

export function bindPod(ctx: SimContext, namespace: string, name: string, body: Json | undefined): void {
  if (!isObject(body)) throw badRequest('not a Binding object');
  const target = objectAt(body, 'target');
  const nodeName = stringAt(target, 'name');
  if (!nodeName) throw badRequest('Binding target name is required');
  if ((stringAt(target, 'kind') ?? 'Node') !== 'Node') throw badRequest(`Binding target kind must be Node`);
  const pods = ctx.kinds.lookup('', 'v1', 'pods');
  const stored = pods && ctx.store.get(pods, namespace, name);
  if (!pods || !stored) throw notFound({ group: '', resource: 'pods' }, name);
  const pod = JSON.parse(stored.json) as JsonObject;
  const meta = metaOf(pod);
  const bindingMeta = objectAt(body, 'metadata');
  const uid = stringAt(bindingMeta, 'uid');
  if (uid && uid !== stored.uid) throw conflict(BINDING, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.uid}`);
  if (stringAt(meta, 'deletionTimestamp')) throw conflict(BINDING, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  const spec = objectAt(pod, 'spec') ?? {};
  const assigned = stringAt(spec, 'nodeName');
  if (assigned) throw conflict(BINDING, name, `pod ${name} is already assigned to node ${JSON.stringify(assigned)}`);
  if ((arrayAt(spec, 'schedulingGates') ?? []).length > 0) throw conflict(BINDING, name, `pod ${name} has non-empty .spec.schedulingGates`);
  spec['nodeName'] = nodeName;
  const annotations = { ...stringMapAt(meta, 'annotations'), ...stringMapAt(bindingMeta, 'annotations') };
  if (Object.keys(annotations).length > 0) meta['annotations'] = annotations;
  copyTopologyLabels(ctx, pod, nodeName);
  const status = objectAt(pod, 'status') ?? {};
  pod['status'] = status;
  delete status['nominatedNodeName'];
  const conditions = (arrayAt(status, 'conditions') ?? []).filter(isObject);
  const scheduled = conditions.find((c) => c['type'] === 'PodScheduled');
  const at = rfc3339Seconds(ctx.clock.now());
  if (scheduled) {
    if (scheduled['status'] !== 'True') scheduled['lastTransitionTime'] = at;
    scheduled['status'] = 'True';
    delete scheduled['reason'];
    delete scheduled['message'];
  } else {
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: at });
  }
  status['conditions'] = conditions;
  ctx.store.put(pods, pod);
}
