// Snapshots: what is kept from a live cluster and what never is; a file that is not a snapshot is refused in one line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSnapshot, readSnapshotFile, SnapshotError, validateSnapshot } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/small-cluster.json', import.meta.url));

const node: V1Node = {
  metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' }, annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
  spec: { unschedulable: true, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], providerID: 'aws:///z1/i-0123' },
  status: {
    capacity: { cpu: '8', memory: '32Gi', pods: '110' },
    allocatable: { cpu: '7910m', memory: '31Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True' }],
    images: [{ names: ['registry.example.com/app:1'], sizeBytes: 1 }],
  },
};

const pod: V1Pod = {
  metadata: {
    namespace: 'web',
    name: 'api-1',
    labels: { app: 'api' },
    annotations: { 'vault.hashicorp.com/agent-inject-secret-db': 'secret/data/db', 'kubernetes.io/config.mirror': 'abc' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-5f9', uid: 'u-1', controller: true }],
  },
  spec: {
    nodeName: 'n1',
    serviceAccountName: 'api',
    terminationGracePeriodSeconds: 45,
    containers: [
      {
        name: 'main',
        image: 'registry.example.com/api:1.2.3',
        command: ['/api', '--token=s3cr3t'],
        args: ['--password=hunter2'],
        env: [{ name: 'DB_PASSWORD', value: 'hunter2' }],
        envFrom: [{ secretRef: { name: 'db-credentials' } }],
        resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
      },
    ],
    volumes: [
      { name: 'creds', secret: { secretName: 'db-credentials' } },
      { name: 'scratch', emptyDir: {} },
    ],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    nodeSelector: { 'topology.kubernetes.io/zone': 'z1' },
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

const pdb: V1PodDisruptionBudget = { metadata: { namespace: 'web', name: 'api' }, spec: { selector: { matchLabels: { app: 'api' } }, maxUnavailable: '25%' } };

describe('buildSnapshot', () => {
  const s = buildSnapshot({ nodes: [node], pods: [pod], pdbs: [pdb], config: { metadata: { name: 'default' }, spec: { maxParallelOperations: 3 } }, configNamespace: 'kmaint' }, new Date('2026-01-05T10:00:00Z'), 'https://api.example.com');

  it('keeps what a simulation needs: placement, owner, resources, grace, budgets, config', () => {
    expect(s.nodes).toEqual([
      {
        name: 'n1',
        labels: { 'topology.kubernetes.io/zone': 'z1' },
        unschedulable: true,
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
        allocatable: { cpu: '7910m', memory: '31Gi', pods: '110' },
        ready: true,
      },
    ]);
    expect(s.pods).toEqual([
      {
        namespace: 'web',
        name: 'api-1',
        nodeName: 'n1',
        phase: 'Running',
        ready: true,
        labels: { app: 'api' },
        owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-5f9', uid: 'u-1' },
        mirror: true,
        containers: [{ name: 'main', requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } }],
        terminationGracePeriodSeconds: 45,
        emptyDirVolumes: ['scratch'],
        nodeSelector: { 'topology.kubernetes.io/zone': 'z1' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      },
    ]);
    expect(s.podDisruptionBudgets).toEqual([{ namespace: 'web', name: 'api', selector: { matchLabels: { app: 'api' } }, maxUnavailable: '25%' }]);
    expect(s.config).toEqual({ namespace: 'kmaint', spec: { maxParallelOperations: 3 } });
    expect(s).toMatchObject({ apiVersion: 'kmaint.io/v1alpha1', kind: 'ClusterSnapshot', formatVersion: 1, takenAt: '2026-01-05T10:00:00.000Z', source: 'https://api.example.com' });
  });

  it.each(['hunter2', 's3cr3t', 'db-credentials', 'vault.hashicorp.com', 'registry.example.com', 'secret/data/db', 'aws:///z1', 'serviceAccountName'])(
    'never writes %s (env, args, images, secrets, annotations, provider IDs)',
    (text) => {
      expect(JSON.stringify(s)).not.toContain(text);
    },
  );

  it('leaves out pods being deleted and pods on nodes it does not list', () => {
    const gone: V1Pod = { ...pod, metadata: { ...pod.metadata, name: 'api-2', deletionTimestamp: new Date('2026-01-05T09:59:00Z') } };
    const orphan: V1Pod = { ...pod, metadata: { ...pod.metadata, name: 'api-3' }, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: 'n9' } };
    const t = buildSnapshot({ nodes: [node], pods: [pod, gone, orphan], pdbs: [], configNamespace: 'kmaint' }, new Date(0), '');
    expect(t.pods.map((p) => p.name)).toEqual(['api-1']);
  });
});

describe('reading a snapshot file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-snapshot-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const fixture = JSON.parse(JSON.stringify(readSnapshotFile(FIXTURE))) as Record<string, unknown> & { pods: Array<Record<string, unknown>> };

  it('reads the committed fixture', () => {
    const s = readSnapshotFile(FIXTURE);
    expect([s.nodes.length, s.pods.length, s.podDisruptionBudgets.length]).toEqual([5, 19, 3]);
  });

  it.each([
    ['not JSON', 'nope', (p: string) => `${p}: not JSON: Unexpected token`],
    ['another document', JSON.stringify({ apiVersion: 'v1', kind: 'List' }), (p: string) => `${p}: not a kmaint cluster snapshot: apiVersion: Invalid input: expected "kmaint.io/v1alpha1"`],
    ['a newer format', JSON.stringify({ ...fixture, formatVersion: 2 }), (p: string) => `${p}: not a kmaint cluster snapshot: formatVersion: formatVersion must be 1 (this kmaint reads snapshot format 1 only)`],
    ['a pod with a field the format does not have', JSON.stringify({ ...fixture, pods: [{ ...fixture.pods[0], env: [] }] }), (p: string) => `${p}: not a kmaint cluster snapshot: pods[0]: Unrecognized key: "env"`],
    ['a pod on a node it does not list', JSON.stringify({ ...fixture, pods: [{ ...fixture.pods[0], nodeName: 'elsewhere' }] }), (p: string) => `${p}: not a usable cluster snapshot: pods[0].nodeName: node "elsewhere" is not in the snapshot`],
  ])('refuses %s in one line naming the file and the field', (_what, text, message) => {
    const path = write(`${_what.replace(/\W+/g, '-')}.json`, text);
    let error: unknown;
    try {
      readSnapshotFile(path);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    expect((error as Error).message.startsWith(message(path))).toBe(true);
  });

  it('refuses a missing file', () => {
    expect(() => readSnapshotFile(join(dir, 'absent.json'))).toThrow(`${join(dir, 'absent.json')}: cannot read the snapshot: ENOENT`);
  });

  it('validates what it is given, not only files', () => {
    expect(() => validateSnapshot({}, 'stdin')).toThrow('stdin: not a kmaint cluster snapshot: apiVersion: ');
  });
});
