// The NodeMaintenance kmaint creates for a Node's handshake: its deterministic name, requestor and drainSpec.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REQUESTOR,
  DEFAULT_HANDSHAKE_REQUESTOR,
  HandshakeState,
  LABEL_HANDSHAKE,
  REQUESTOR_ID_PATTERN,
  RESERVED_REQUESTOR_IDS,
  handshakeRequestName,
} from '#api';
import type { Action, DrainSpec, NodeMaintenance } from '#api';

/** The states an agent may ask for that need a request. */
export type RequiredState = typeof HandshakeState.DrainRequired | typeof HandshakeState.RebootRequired;

/**
 * Reboot_Required: everything a drain may remove goes, whatever its owner or volumes (force, deleteEmptyDir), through
 * the eviction API so PodDisruptionBudgets still hold; DaemonSet, mirror and kmaint's own pods stay, as with
 * `kubectl drain --ignore-daemonsets --force --delete-emptydir-data`. The timeout is upstream's default: a drain
 * that cannot finish reports DrainTimeout and retries, it never gives up.
 */
export const REBOOT_DRAIN_SPEC: Readonly<DrainSpec> = Object.freeze({ force: true, deleteEmptyDir: true, timeoutSeconds: 300 });

// The name is computed where every module that recognises kmaint's requests reads it (api/kmaint-requests.ts).
export { handshakeRequestName };

/** Whether `nm` is the handshake request kmaint made for `node` (and not an object that merely took its name). */
export function isHandshakeRequestFor(nm: NodeMaintenance, node: string): boolean {
  return nm.metadata.labels?.[LABEL_HANDSHAKE] !== undefined && nm.spec.nodeName === node;
}

/** The desired state a handshake request was created for (its label). */
export function requestIntent(nm: NodeMaintenance): string | undefined {
  return nm.metadata.labels?.[LABEL_HANDSHAKE];
}

/**
 * The requestorID from the Node's annotation (default node-agent.kmaint.io), or why it cannot be used. kmaint's own
 * requestorIDs (the reaper's, cloud events', SR-IOV's) are reserved, in any letter case: a Node cannot make kmaint
 * file a request that claims to be one of kmaint's own.
 */
export function requestorOf(node: V1Node): { ok: true; requestorID: string } | { ok: false; problem: string } {
  const requestorID = node.metadata?.annotations?.[ANNOTATION_REQUESTOR] ?? DEFAULT_HANDSHAKE_REQUESTOR;
  if (RESERVED_REQUESTOR_IDS.includes(requestorID.toLowerCase())) {
    return { ok: false, problem: `${ANNOTATION_REQUESTOR} ${JSON.stringify(requestorID)} is reserved for kmaint's own requests (${RESERVED_REQUESTOR_IDS.join(', ')})` };
  }
  if (requestorID.length >= 2 && requestorID.length <= 63 && REQUESTOR_ID_PATTERN.test(requestorID)) return { ok: true, requestorID };
  return {
    ok: false,
    problem: `${ANNOTATION_REQUESTOR} ${JSON.stringify(requestorID)} is not a valid requestorID (2 to 63 characters: dot-separated labels of letters, digits and inner dashes)`,
  };
}

/**
 * The create action: cordon, the chosen drainSpec, labelled with the state it serves, and exempt from garbage
 * collection: the Node's desired state, not maxNodeMaintenanceTimeSeconds, decides when it ends.
 */
export function createRequestAction(
  node: string,
  namespace: string,
  desired: RequiredState,
  requestorID: string,
  drainSpec: DrainSpec,
  reason: string,
): Extract<Action, { kind: 'createMaintenance' }> {
  return {
    kind: 'createMaintenance',
    target: { namespace, name: handshakeRequestName(node) },
    labels: { [LABEL_HANDSHAKE]: desired },
    annotations: { [ANNOTATION_GC_IGNORE]: 'true' },
    spec: { requestorID, nodeName: node, cordon: true, drainSpec: { ...drainSpec } },
    reason,
  };
}
