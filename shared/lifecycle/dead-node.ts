// Dead nodes under maintenance (KEP-2268): a node NotReady past a threshold whose pods stay Terminating never finishes
// its drain on its own. Says so in the drain's message, and with spec.outOfServiceTaint adds the out-of-service taint
// (recorded on the node in the same patch) so the control plane force-deletes those pods; release removes only ours.
import { shortList } from '../text/index.ts';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_OUT_OF_SERVICE_BY, EVENT_REASON_OUT_OF_SERVICE, TAINT_OUT_OF_SERVICE, TAINT_OUT_OF_SERVICE_VALUE, WaitKind, rfc3339Seconds } from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeRef, NodeTaint } from '../api/index.ts';
import { holderFor } from './node-lease.ts';

/** spec.outOfServiceTaint as resolved. */
export interface OutOfServiceConfig {
  enabled: boolean;
  afterNotReadySeconds: number;
}

/** What the drain adds to its message about a dead node, and the taint write when enabled. */
export interface DeadNodeReport {
  note: string;
  /** kmaint.io/wait-kind: no taint (spec.outOfServiceTaint off), or the taint on or being added. */
  wait: WaitKind;
  actions: Action[];
}

/** What the out-of-service taint does, for the drain's message and `kmaint explain`. */
export const OUT_OF_SERVICE_EFFECT = `${TAINT_OUT_OF_SERVICE}=${TAINT_OUT_OF_SERVICE_VALUE}:NoExecute makes the control plane force-delete the node's terminating pods and detach their volumes (right only for a node that is really off)`;

/** The node's taints as written back: kmaint never drops or reorders another party's. */
function taintsOf(node: V1Node): NodeTaint[] {
  return (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, ...(t.value !== undefined ? { value: t.value } : {}), ...(t.timeAdded !== undefined ? { timeAdded: rfc3339Seconds(new Date(t.timeAdded)) } : {}) }));
}

/** "NotReady since T (reason)" when the node has been NotReady for at least `seconds`; undefined otherwise. */
export function deadFor(node: V1Node, seconds: number, now: Date): string | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined || ready.status === 'True' || ready.lastTransitionTime === undefined) return undefined;
  const since = new Date(ready.lastTransitionTime);
  if (now.getTime() - since.getTime() < seconds * 1000) return undefined;
  return `Ready=${ready.status} since ${rfc3339Seconds(since)}${ready.reason ? ` (${ready.reason})` : ''}`;
}

/**
 * For a request draining a node: nothing while the node is healthy, recently NotReady or has no pod stuck Terminating;
 * otherwise a note naming the stuck pods and the node's state, plus the taint write when enabled and not yet there.
 */
export function reportDeadNode(nm: NodeMaintenance, node: V1Node, nodeRef: NodeRef, ref: MaintenanceRef, pods: readonly V1Pod[], config: OutOfServiceConfig, now: Date): DeadNodeReport | undefined {
  const state = deadFor(node, config.afterNotReadySeconds, now);
  const stuck = pods.filter((p) => p.metadata?.deletionTimestamp !== undefined).map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`).sort();
  if (state === undefined || stuck.length === 0) return undefined;
  const head = `node ${nodeRef.name} ${state} with ${stuck.length} pods stuck Terminating (${shortList(stuck, 3)})`;
  const present = node.spec?.taints?.some((t) => t.key === TAINT_OUT_OF_SERVICE) === true;
  if (present) {
    const by = node.metadata?.annotations?.[ANNOTATION_OUT_OF_SERVICE_BY];
    return { note: `${head}; ${TAINT_OUT_OF_SERVICE} is on the node (${by === holderFor(nm) ? 'added by kmaint for this request' : 'not added by this request'}): the control plane force-deletes them`, wait: WaitKind.DeadNodeTainted, actions: [] };
  }
  if (!config.enabled) return { note: `${head}; spec.outOfServiceTaint is off: enabled, ${OUT_OF_SERVICE_EFFECT}`, wait: WaitKind.DeadNode, actions: [] };
  const taint: NodeTaint = { key: TAINT_OUT_OF_SERVICE, value: TAINT_OUT_OF_SERVICE_VALUE, effect: 'NoExecute', timeAdded: rfc3339Seconds(now) };
  const message = `added ${TAINT_OUT_OF_SERVICE}=${TAINT_OUT_OF_SERVICE_VALUE}:NoExecute to node ${nodeRef.name} (${state}; pods stuck Terminating: ${stuck.slice(0, 3).join(', ')})`;
  return {
    note: `${head}; adding ${TAINT_OUT_OF_SERVICE} (spec.outOfServiceTaint)`,
    wait: WaitKind.DeadNodeTainted,
    actions: [
      { kind: 'setNodeTaints', node: nodeRef, taints: [...taintsOf(node), taint], annotations: { [ANNOTATION_OUT_OF_SERVICE_BY]: holderFor(nm) }, maintenance: ref, reason: `dead node: ${state}` },
      { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) }, type: 'Warning', eventReason: EVENT_REASON_OUT_OF_SERVICE, message, reason: 'out-of-service taint added' },
    ],
  };
}

/** On release: the out-of-service taint goes only when the node's record says this request added it. */
export function releaseOutOfServiceTaint(nm: NodeMaintenance, node: V1Node, nodeRef: NodeRef, ref: MaintenanceRef): Action[] {
  if (node.metadata?.annotations?.[ANNOTATION_OUT_OF_SERVICE_BY] !== holderFor(nm)) return [];
  const taints = taintsOf(node).filter((t) => t.key !== TAINT_OUT_OF_SERVICE);
  return [{ kind: 'setNodeTaints', node: nodeRef, taints, annotations: { [ANNOTATION_OUT_OF_SERVICE_BY]: null }, maintenance: ref, reason: `${ref.namespace}/${ref.name} released: remove the out-of-service taint it added` }];
}
