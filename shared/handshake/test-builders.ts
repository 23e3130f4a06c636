// Fixtures for handshake tests: Nodes with handshake annotations, handshake requests, and a plan's writes folded
// back into the snapshot (to prove a second pass over the result writes nothing).
import type { V1Node } from '@kubernetes/client-node';
import { FINALIZER, LABEL_HANDSHAKE, maintenanceKey, namespacedName } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { aMaintenance } from '../scheduling/test-builders.ts';
import { loadHandshakeConfig } from './config.ts';
import type { HandshakeConfig } from './config.ts';
import { handshakeRequestName } from './request.ts';

export const NS = 'kmaint';

export interface HandshakeNodeOptions {
  /** @default 'worker-1' */
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A Node as a LIST returns it: uid `uid-<name>`, resourceVersion "7". */
export function aHandshakeNode(opts: HandshakeNodeOptions = {}): V1Node {
  const name = opts.name ?? 'worker-1';
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '7',
      ...(opts.labels !== undefined ? { labels: opts.labels } : {}),
      ...(opts.annotations !== undefined ? { annotations: opts.annotations } : {}),
    },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export interface RequestOptions {
  /** @default 'worker-1' */
  node?: string;
  /** The label value: the desired state the request was created for. @default 'Drain_Required' */
  intent?: string;
  /** Ready reason; '' = not initialised yet. @default 'Pending' */
  phase?: string;
  /** deletionTimestamp set, finalizer kept. @default false */
  deleting?: boolean;
  /** @default NS */
  namespace?: string;
  /** Leave the handshake label off (an object that merely has the name). @default false */
  unlabelled?: boolean;
}

/** The handshake request of a Node as the API server would return it. */
export function aRequest(opts: RequestOptions = {}): NodeMaintenance {
  const node = opts.node ?? 'worker-1';
  const nm = aMaintenance({
    name: handshakeRequestName(node),
    namespace: opts.namespace ?? NS,
    nodeName: node,
    requestorID: 'node-agent.kmaint.io',
    phase: opts.phase ?? 'Pending',
    deleting: opts.deleting ?? false,
  });
  // The drainer puts the finalizer on at admission: every request past Pending carries it.
  const admitted = !['', 'Pending'].includes(opts.phase ?? 'Pending');
  const metadata = { ...nm.metadata, ...(admitted ? { finalizers: [FINALIZER] } : {}) };
  return { ...nm, metadata: opts.unlabelled === true ? metadata : { ...metadata, labels: { [LABEL_HANDSHAKE]: opts.intent ?? 'Drain_Required' } } };
}

/** The handshake config of a MaintenanceOperatorConfig spec, through the real loader (undefined: no config object). */
export function configOf(spec: Record<string, unknown> | undefined): HandshakeConfig {
  return loadHandshakeConfig(spec === undefined ? undefined : { metadata: { name: 'default', namespace: NS }, spec }, NS);
}

/** The cluster after `actions`: annotations patched, requests created (not initialised), deletions done or begun. */
export function afterWrites(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[], actions: readonly Action[]): { nodes: V1Node[]; maintenances: NodeMaintenance[] } {
  let nextNodes = [...nodes];
  let nextMaintenances = [...maintenances];
  for (const action of actions) {
    if (action.kind === 'patchNodeAnnotations') {
      nextNodes = nextNodes.map((node) => {
        if (node.metadata?.name !== action.node.name) return node;
        const annotations: Record<string, string> = { ...node.metadata.annotations };
        for (const [key, value] of Object.entries(action.annotations)) {
          if (value === null) delete annotations[key];
          else annotations[key] = value;
        }
        return { ...node, metadata: { ...node.metadata, annotations, resourceVersion: '8' } };
      });
    } else if (action.kind === 'createMaintenance') {
      nextMaintenances.push({
        metadata: { name: action.target.name, namespace: action.target.namespace, uid: 'uid-new', resourceVersion: '1', labels: action.labels, annotations: action.annotations },
        spec: action.spec,
      });
    } else if (action.kind === 'deleteMaintenance') {
      const key = namespacedName(action.target);
      nextMaintenances = nextMaintenances.flatMap((nm) => {
        if (maintenanceKey(nm) !== key) return [nm];
        // A finalizer keeps the object (being deleted) until cleanup releases it.
        return (nm.metadata.finalizers ?? []).includes(FINALIZER) ? [{ ...nm, metadata: { ...nm.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }] : [];
      });
    }
  }
  return { nodes: nextNodes, maintenances: nextMaintenances };
}
