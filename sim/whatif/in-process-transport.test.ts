// The in-process transport's unfiltered LISTs are reused while their collection is unchanged: each caller gets its own
// array, and any write to the kind is seen by the next LIST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimApiServer, type SimApiServer } from '../apiserver/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { readDrainPods, type BaseSnapshot } from '../../shared/pass/index.ts';
import { aMaintenance, withAdmissionRecords } from '../../shared/scheduling/test-builders.ts';
import { InProcessTransport } from './in-process-transport.ts';

const NODES = { apiVersion: 'v1', resource: 'nodes' };
let server: SimApiServer;
let client: KubeClient;

const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { pool: 'a' } } });

beforeAll(async () => {
  server = await startSimApiServer();
  for (const name of ['n2', 'n1']) server.local.create(NODES, '', node(name));
  client = new KubeClient(new InProcessTransport(server.local, server.context));
});
afterAll(async () => {
  await server.stop();
});

describe('KubeClient over the in-process transport: LIST of a whole collection', () => {
  it('gives each call its own array of the same frozen objects while nothing changed', async () => {
    const first = await client.listNodes();
    const second = await client.listNodes();
    expect(first.map((n) => n.metadata?.name)).toEqual(['n1', 'n2']);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    first.pop();
    expect((await client.listNodes()).map((n) => n.metadata?.name)).toEqual(['n1', 'n2']);
  });

  it.each([
    ['a patch', () => void server.local.patch(NODES, '', 'n1', { spec: { unschedulable: true } }), ['n1 true', 'n2 false']],
    ['a create', () => void server.local.create(NODES, '', node('n0')), ['n0 false', 'n1 true', 'n2 false']],
    ['a delete', () => void server.local.delete(NODES, '', 'n2'), ['n0 false', 'n1 true']],
  ])('sees %s at the next LIST', async (_what, write, expected) => {
    await client.listNodes();
    write();
    expect((await client.listNodes()).map((n) => `${n.metadata?.name ?? ''} ${String(n.spec?.unschedulable === true)}`)).toEqual(expected);
  });

  it('counts a LIST per page either way', async () => {
    const before = client.counts.byVerb['list nodes'] ?? 0;
    await client.listNodes();
    await client.listNodes();
    expect((client.counts.byVerb['list nodes'] ?? 0) - before).toBe(2);
  });
});

describe('KubeClient over the in-process transport: ResourceClaims (resource.k8s.io/v1)', () => {
  const CLAIMS = { apiVersion: 'resource.k8s.io/v1', resource: 'resourceclaims' };
  it('lists the claims of every namespace in one LIST, sorted by namespace and name', async () => {
    for (const [namespace, name] of [['team-b', 'gpu-b'], ['team-a', 'gpu-a']] as const) {
      server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      server.local.create(CLAIMS, namespace, {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name, namespace },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } }] } },
      });
    }
    const before = client.counts.byVerb['list resourceclaims'] ?? 0;
    expect((await client.listResourceClaims()).map((c) => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`)).toEqual(['team-a/gpu-a', 'team-b/gpu-b']);
    expect((client.counts.byVerb['list resourceclaims'] ?? 0) - before).toBe(1);
  });
});

describe('readDrainPods: the ResourceClaims LIST', () => {
  const PODS = { apiVersion: 'v1', resource: 'pods' };
  const pod = (name: string, node: string, claim?: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'drained' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'pause' }], ...(claim ? { resourceClaims: [{ name: 'gpu', resourceClaimName: claim }] } : {}) },
  });
  const base = (nodes: string[]): BaseSnapshot => {
    const maintenances = nodes.map((node) => aMaintenance({ name: `nm-${node}`, nodeName: node, phase: 'Draining' }));
    // Requests kmaint admitted: their Nodes carry its admission record (issue 40).
    const list = withAdmissionRecords(nodes.map((name) => ({ metadata: { name } })), maintenances);
    return {
      nodes: new Map(list.map((n) => [n.metadata?.name ?? '', n])),
      nodeList: list,
      maintenances,
      malformed: [],
      rawConfig: undefined,
    };
  };
  const claimLists = async (nodes: string[]): Promise<number> => {
    const before = client.counts.byVerb['list resourceclaims'] ?? 0;
    await readDrainPods(client, base(nodes));
    return (client.counts.byVerb['list resourceclaims'] ?? 0) - before;
  };

  it('one LIST for the whole pass when pods on two drained nodes name claims; none when no drained pod does', async () => {
    server.local.create({ apiVersion: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'drained' } });
    server.local.create(PODS, 'drained', pod('dra-1', 'n1', 'gpu-a'));
    server.local.create(PODS, 'drained', pod('dra-2', 'n2', 'gpu-b'));
    server.local.create(PODS, 'drained', pod('plain', 'n3'));
    expect(await claimLists(['n1', 'n2'])).toBe(1);
    expect(await claimLists(['n3'])).toBe(0);
  });
});
