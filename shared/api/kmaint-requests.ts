// The requests kmaint files itself for one node's own reason (a reaper verdict, a cloud retirement, an SR-IOV or
// node-agent handshake drain): the names it computes for them, and the one rule that recognises them (issue 40). A
// requestor can copy any string (requestorID, labels) into a request in a namespace it may write, so a request is
// kmaint's only where and as kmaint made it: in kmaint's namespace, under the name kmaint computes for its Node, with
// kmaint's label and requestorID — all four.
import { createHash } from 'node:crypto';
import {
  CLOUD_EVENT_REQUEST_PREFIX,
  CLOUD_EVENTS_REQUESTOR,
  DEFAULT_HANDSHAKE_REQUESTOR,
  HANDSHAKE_REQUEST_PREFIX,
  LABEL_CLOUD_EVENT,
  LABEL_HANDSHAKE,
  LABEL_REBOOT_SENTINEL,
  LABEL_REAPER,
  LABEL_SRIOV_HANDSHAKE,
  REAP_REQUEST_PREFIX,
  REAPER_REQUESTOR,
  REBOOT_REQUEST_PREFIX,
  REBOOT_SENTINEL_REQUESTOR,
  SRIOV_HANDSHAKE_REQUESTOR,
  SRIOV_REQUEST_PREFIX,
} from './constants.ts';
import type { NodeMaintenance } from './types.ts';

/** Longest object name the API server accepts (a DNS subdomain). */
const MAX_NAME = 253;
const HASH_LENGTH = 8;

/** `<prefix><node>`; a name that would be too long keeps a prefix of the Node's name and adds a hash of all of it. */
export function nodeRequestName(prefix: string, node: string): string {
  const plain = `${prefix}${node}`;
  if (plain.length <= MAX_NAME) return plain;
  const hash = createHash('sha256').update(node).digest('hex').slice(0, HASH_LENGTH);
  return `${plain.slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/[-.]+$/, '')}-${hash}`;
}

/** `reap-<node>` (hashed when too long for an object name). */
export function reapRequestName(node: string): string {
  return nodeRequestName(REAP_REQUEST_PREFIX, node);
}

/** `cloud-event-<node>` (hashed when too long for an object name). */
export function cloudEventRequestName(node: string): string {
  return nodeRequestName(CLOUD_EVENT_REQUEST_PREFIX, node);
}

/** `reboot-<node>` (hashed when too long for an object name): the reboot sentinel's request. */
export function rebootRequestName(node: string): string {
  return nodeRequestName(REBOOT_REQUEST_PREFIX, node);
}

/** `handshake-<node>` (hashed when too long for an object name). */
export function handshakeRequestName(node: string): string {
  return nodeRequestName(HANDSHAKE_REQUEST_PREFIX, node);
}

/** `sriov-<node>`, hashed past 253 characters as the kmaint handshake's names (the hash keeps `handshake-`'s cut). */
export function sriovRequestName(node: string): string {
  return `${SRIOV_REQUEST_PREFIX}${handshakeRequestName(node).slice(HANDSHAKE_REQUEST_PREFIX.length)}`;
}

interface KmaintRequestKind {
  readonly name: (node: string) => string;
  readonly label: string;
  /** The label's value; undefined: any (the handshakes' labels carry the state they serve). */
  readonly labelValue?: string;
  readonly requestorID: string;
}

/**
 * Each kind of request kmaint files for a node's own reason. The node-agent handshake counts under its default
 * requestor only: a Node may name another requestor (kmaint.io/requestor), whose requests are that requestor's.
 */
const KMAINT_NODE_REQUESTS: readonly KmaintRequestKind[] = [
  { name: reapRequestName, label: LABEL_REAPER, labelValue: 'true', requestorID: REAPER_REQUESTOR },
  { name: cloudEventRequestName, label: LABEL_CLOUD_EVENT, labelValue: 'true', requestorID: CLOUD_EVENTS_REQUESTOR },
  { name: rebootRequestName, label: LABEL_REBOOT_SENTINEL, labelValue: 'true', requestorID: REBOOT_SENTINEL_REQUESTOR },
  { name: sriovRequestName, label: LABEL_SRIOV_HANDSHAKE, requestorID: SRIOV_HANDSHAKE_REQUESTOR },
  { name: handshakeRequestName, label: LABEL_HANDSHAKE, requestorID: DEFAULT_HANDSHAKE_REQUESTOR },
];

/**
 * Whether kmaint filed `nm` for its Node's own reason: in kmaint's `namespace` (undefined: none is known, so no request
 * is), named, labelled and of the requestorID kmaint gives that kind. A copy anywhere else is a requestor's own request.
 */
export function isKmaintNodeRequest(nm: NodeMaintenance, namespace: string | undefined): boolean {
  if (namespace === undefined || nm.metadata.namespace !== namespace) return false;
  return KMAINT_NODE_REQUESTS.some((k) => isOfKind(nm, k));
}

function isOfKind(nm: NodeMaintenance, k: KmaintRequestKind): boolean {
  const labels = nm.metadata.labels ?? {};
  return nm.spec.requestorID === k.requestorID && labels[k.label] !== undefined && (k.labelValue === undefined || labels[k.label] === k.labelValue) && nm.metadata.name === k.name(nm.spec.nodeName);
}

/**
 * The reaper's own reap request: in kmaint's `namespace`, named `reap-<node>`, labelled and of the reaper's requestorID
 * (only these are terminated and deleted as the reaper's, and force-deleted after their timeout). Here, beside the other
 * kinds, so that the drain reads it without depending on the reaper.
 */
export function isReapRequest(nm: NodeMaintenance, namespace: string): boolean {
  return nm.metadata.namespace === namespace && isOfKind(nm, KMAINT_NODE_REQUESTS[0] as KmaintRequestKind);
}
