// Which Ready requests end in a termination, and of which instance: always the Node's own spec.providerID, read from
// the Node this pass. A providerID recorded on the request is only checked against it: a request that names another
// instance is refused (said once on the Node), never followed. terminate.ts carries the terminations out.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_DEVICES,
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REAPED,
  ANNOTATION_REBOOT,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPER_PROVIDER_ID,
  EVENT_REASON_REAP_REFUSED,
  Phase,
  REAPER_REQUESTOR,
  maintenanceRef,
} from '#api';
import type { Action, MaintenanceRef, NodeMaintenance } from '#api';
import { maintenanceKey, maintenancePhase } from '../api/index.ts';
import type { ReaperConfig } from './config.ts';
import { isOwnReapRequest } from './own-requests.ts';

/** A Ready reap request whose instance is to be terminated, then the request deleted. */
export interface Termination {
  maintenance: MaintenanceRef;
  node: string;
  nodeUid?: string;
  /** The Node's own spec.providerID, as read this pass. */
  providerID: string;
  /** The Node's resourceVersion as the plan saw it. */
  nodeResourceVersion: string;
  /** `none`: terminate nothing, only delete the request. */
  provider: 'providerID' | 'none';
  /**
   * Another requestor's request the reaper joined (joinExistingRequests): afterwards the reaper leaves it — its
   * additionalRequestors become this list — instead of deleting it. `terminate: false` when the Node already carries
   * kmaint.io/reaped (terminated by an earlier pass whose leave did not land): only leave.
   */
  joined?: { additionalRequestors: string[]; terminate: boolean };
}

export interface TerminationsPlan {
  terminations: Termination[];
  /** Refusals: the Node's record of the refusal and a Warning event, once per change. */
  actions: Action[];
}

/** Why the reaper will not terminate for `nm` on `node`, or undefined when the Node's instance is the one the request was made for. */
function refusal(nm: NodeMaintenance, node: V1Node): string | undefined {
  const recorded = nm.metadata.annotations?.[ANNOTATION_REAPER_PROVIDER_ID];
  const own = node.spec?.providerID ?? '';
  if (recorded === undefined || recorded === own) return undefined;
  const ref = maintenanceKey(nm);
  return `termination refused: ${ref} names instance ${JSON.stringify(recorded)} in ${ANNOTATION_REAPER_PROVIDER_ID}, but the Node's spec.providerID is ${JSON.stringify(own)}; the reaper terminates only the Node's own instance, so nothing is terminated and the request stays until it is deleted`;
}

function refuse(node: V1Node, why: string): Action[] {
  if (node.metadata?.annotations?.[ANNOTATION_REAPER_DECISION] === why) return [];
  const name = node.metadata?.name ?? '';
  const uid = node.metadata?.uid;
  return [
    { kind: 'patchNodeAnnotations', node: { name, resourceVersion: node.metadata?.resourceVersion ?? '' }, annotations: { [ANNOTATION_REAPER_DECISION]: why }, reason: 'record the refused termination, reported once' },
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name, ...(uid ? { uid } : {}) }, type: 'Warning', eventReason: EVENT_REASON_REAP_REFUSED, message: why, reason: 'reaper termination refused' },
  ];
}

/**
 * The reaper's own Ready reap requests and the Ready requests it joined (`requests`, recognised by the caller) become
 * terminations of their Node's instance; none in dryRun or skipReaping. A request whose Node is gone terminates
 * nothing (no Node, no providerID to trust; Kubernetes' garbage collector removes the request through its owner).
 */
export function planTerminations(nodes: ReadonlyMap<string, V1Node>, requests: readonly NodeMaintenance[], namespace: string, config: ReaperConfig): TerminationsPlan {
  const plan: TerminationsPlan = { terminations: [], actions: [] };
  if (config.dryRun || config.skipReaping) return plan;
  const ready = [...requests].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const nm of ready) {
    const mine = isOwnReapRequest(nm, namespace);
    // A joined request the owner deleted while Ready waits for its additionalRequestors: the reaper still finishes.
    if ((mine && nm.metadata.deletionTimestamp) || maintenancePhase(nm) !== Phase.Ready) continue;
    // The repair ladder's reboot and quarantine rungs: released (repair-ladder.ts) or kept, never terminated.
    if (mine && (nm.metadata.annotations?.[ANNOTATION_REBOOT] === 'true' || nm.metadata.annotations?.[ANNOTATION_GC_IGNORE] === 'true')) continue;
    // A device reap request (issue 45) is released when its devices recover (device-reap.ts), never terminated.
    if (mine && nm.metadata.annotations?.[ANNOTATION_DEVICES] !== undefined) continue;
    const node = nodes.get(nm.spec.nodeName);
    if (node === undefined) continue;
    const why = config.provider === 'none' ? undefined : refusal(nm, node);
    if (why !== undefined) {
      plan.actions.push(...refuse(node, why));
      continue;
    }
    const uid = node.metadata?.uid;
    plan.terminations.push({
      maintenance: maintenanceRef(nm),
      node: nm.spec.nodeName,
      ...(uid ? { nodeUid: uid } : {}),
      nodeResourceVersion: node.metadata?.resourceVersion ?? '',
      providerID: node.spec?.providerID ?? '',
      provider: config.provider,
      ...(mine
        ? {}
        : {
            joined: {
              additionalRequestors: (nm.spec.additionalRequestors ?? []).filter((r) => r !== REAPER_REQUESTOR),
              terminate: node.metadata?.annotations?.[ANNOTATION_REAPED] === undefined,
            },
          }),
    });
  }
  return plan;
}

/** One line per termination for dry runs and the pass summary. */
export function describeTermination(t: Termination): string {
  if (t.joined) {
    const leave = `leave ${t.maintenance.namespace}/${t.maintenance.name} (additionalRequestors)`;
    if (!t.joined.terminate) return `${leave}: node ${t.node} was reaped already`;
    return t.provider === 'none' ? `${leave}: drained node ${t.node}, nothing terminated (provider none)` : `terminate ${t.providerID || '(no providerID)'} of node ${t.node}, then ${leave}`;
  }
  return t.provider === 'none'
    ? `delete ${t.maintenance.namespace}/${t.maintenance.name}: drained node ${t.node}, nothing terminated (provider none)`
    : `terminate ${t.providerID || '(no providerID)'} of node ${t.node}, then delete ${t.maintenance.namespace}/${t.maintenance.name}`;
}
