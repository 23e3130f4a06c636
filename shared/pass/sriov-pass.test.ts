// Issue 30 point 6: once spec.nodeHandshake.protocol is no longer sriov-network-operator, nothing answers the
// operator's daemon for kmaint's SR-IOV requests and their GC-ignore keeps their Nodes cordoned: the scheduler deletes
// kmaint's own (its namespace, name, label and requestorID together); a config that cannot be read deletes nothing.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import { loadConfig } from './config.ts';
import type { KubeClient } from '../kube/index.ts';
import { aRequest } from '../reaper/test-builders.ts';
import { planPass } from './passes.ts';
import type { BaseSnapshot } from './snapshot.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const config = (spec: Record<string, unknown>): MaintenanceOperatorConfig => ({ metadata: { name: 'default', namespace: 'kmaint', uid: 'uid-config' }, spec }) as MaintenanceOperatorConfig;
const node = (name: string): V1Node => ({ metadata: { name, uid: `uid-${name}`, resourceVersion: '3' }, spec: {} });
const sriov = (name: string, nodeName: string, meta: Partial<NodeMaintenance['metadata']> = {}, requestorID = 'sriov-network-operator.kmaint.io'): NodeMaintenance =>
  aRequest(name, nodeName, requestorID, 'Ready', { labels: { 'kmaint.io/sriov-handshake': 'Drain_Required' }, annotations: { 'maintenance.nvidia.com/garbage-collector.ignore': 'true' }, ...meta });

const nodes = [node('a'), node('b'), node('c')];
const maintenances = [
  sriov('sriov-a', 'a'),
  // Copies: in a tenant namespace, or in kmaint's under another requestorID; never kmaint's to delete.
  sriov('sriov-b', 'b', { namespace: 'tenant' }),
  sriov('sriov-c', 'c', {}, 'upgrade.example.com'),
];
const deleted: Action[] = [
  {
    kind: 'deleteMaintenance',
    target: { namespace: 'kmaint', name: 'sriov-a', uid: 'uid-sriov-a', resourceVersion: '11' },
    reason: 'node a: spec.nodeHandshake.protocol is no longer sriov-network-operator, so no SR-IOV drain is served',
  },
];

/** A client whose SR-IOV reads fail: with the protocol on, the scheduler reads the operator's objects and fails closed. */
const client = {
  listSriovNodeStates: () => Promise.reject(new Error('sriovnetworknodestates is forbidden')),
  listSriovPoolConfigs: () => Promise.reject(new Error('sriovnetworkpoolconfigs is forbidden')),
} as unknown as KubeClient;

async function schedulerDeletes(cfg: MaintenanceOperatorConfig | undefined): Promise<Action[]> {
  const snapshot: BaseSnapshot = { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), nodeList: nodes, maintenances, malformed: [], rawConfig: cfg };
  const input = { config: loadConfig(snapshot, nodes.length, 'kmaint'), maintenances: new Map(maintenances.map((nm) => [`${nm.metadata.namespace ?? ''}/${nm.metadata.name}`, nm])), namespace: 'kmaint', now: NOW };
  const plan = await planPass('scheduler', { client, namespace: 'kmaint', now: () => NOW }, snapshot, input);
  return plan.actions.filter((a) => a.kind === 'deleteMaintenance');
}

describe("the scheduler deletes kmaint's own SR-IOV requests once the protocol is off", () => {
  it.each<[string, MaintenanceOperatorConfig | undefined, Action[]]>([
    ['protocol kmaint: off, ours deleted, the copies kept', config({ nodeHandshake: { protocol: 'kmaint' } }), deleted],
    ['no nodeHandshake (protocol kmaint by default): off', config({}), deleted],
    ['no config object (every feature at its default): off', undefined, deleted],
    ['protocol sriov-network-operator (its objects unreadable here): kept', config({ nodeHandshake: { protocol: 'sriov-network-operator' } }), []],
    ['a config that does not pass its schema says nothing of the protocol: fail closed, kept', config({ nodeHandshake: { protocol: 'sriov' } }), []],
  ])('%s', async (_rule, cfg, expected) => {
    expect(await schedulerDeletes(cfg)).toEqual(expected);
  });
});
