// The chart's opt-in pre-delete hook (leftoversHook.enabled): `kmaint leftovers --fix` as a Job with its own
// ServiceAccount and RBAC, every object a hook removed once it succeeded; nothing rendered by default.
// test/leftovers.test.ts runs the command on the testbed with exactly these rights.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmIsCurrent, runHelm } from '../testbed/helm.ts';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  rules?: unknown[];
  spec?: { backoffLimit: number; activeDeadlineSeconds: number; template: { spec: { serviceAccountName: string; containers: Array<{ image: string; command: string[] }> } } };
}

async function hookObjects(set: string[]): Promise<Obj[]> {
  const r = await runHelm(['template', 'kmaint', 'charts/kmaint', '--namespace', 'kmaint', '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', ...set.flatMap((s) => ['--set', s])]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null && (o.metadata.annotations?.['helm.sh/hook'] ?? '') !== '');
}

describe.skipIf(!helmIsCurrent())('leftoversHook', () => {
  it('is off by default: no hook object', async () => {
    expect(await hookObjects([])).toEqual([]);
  });

  it('on: a pre-delete Job running `kmaint leftovers --fix` as its own ServiceAccount, its RBAC created first (weight -10), all removed once it succeeded; the lease rights only with medik8s.leases', async () => {
    const objs = await hookObjects(['leftoversHook.enabled=true', 'medik8s.leases=true', 'leftoversHook.slurmTokenSecret=slurm-jwt']);
    expect(objs.map((o) => [o.kind, o.metadata.namespace ?? '', o.metadata.name, o.metadata.annotations?.['helm.sh/hook'], o.metadata.annotations?.['helm.sh/hook-weight'], o.metadata.annotations?.['helm.sh/hook-delete-policy']])).toEqual([
      ['ServiceAccount', 'kmaint', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['ClusterRole', '', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['ClusterRole', '', 'kmaint-leftovers-leases', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['ClusterRoleBinding', '', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['Role', 'kmaint', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['RoleBinding', 'kmaint', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['RoleBinding', 'medik8s-leases', 'kmaint-leftovers', 'pre-delete', '-10', 'before-hook-creation,hook-succeeded'],
      ['Job', 'kmaint', 'kmaint-leftovers', 'pre-delete', '0', 'before-hook-creation,hook-succeeded'],
    ]);
    const rules = (kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name)?.rules;
    expect(rules('ClusterRole', 'kmaint-leftovers')).toEqual([
      { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'patch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      { apiGroups: ['maintenance.nvidia.com'], resources: ['nodemaintenances'], verbs: ['list', 'patch', 'delete'] },
      { apiGroups: ['maintenance.nvidia.com'], resources: ['nodemaintenances/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['medik8s-leases'], verbs: ['get'] },
    ]);
    expect(rules('ClusterRole', 'kmaint-leftovers-leases')).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'delete'] }]);
    expect(rules('Role', 'kmaint-leftovers')).toEqual([
      { apiGroups: ['maintenance.nvidia.com'], resources: ['maintenanceoperatorconfigs'], resourceNames: ['default'], verbs: ['get'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['slurm-jwt'], verbs: ['get'] },
    ]);
    const job = objs.find((o) => o.kind === 'Job')?.spec;
    expect([job?.backoffLimit, job?.activeDeadlineSeconds, job?.template.spec.serviceAccountName, job?.template.spec.containers.map((c) => [c.image, c.command])]).toEqual([
      0,
      300,
      'kmaint-leftovers',
      [['registry.example.com/kmaint:0.1.0', ['kmaint', 'leftovers', '--fix', '-o', 'json', '--no-device-taint-rules']]],
    ]);
  });

  it('with devices.enabled: list and delete DeviceTaintRules (cluster-wide, as kmaint created them) and the Job reads them; without: neither', async () => {
    const objs = await hookObjects(['leftoversHook.enabled=true', 'devices.enabled=true']);
    const clusterRole = objs.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'kmaint-leftovers')?.rules;
    expect(clusterRole?.slice(-1)).toEqual([{ apiGroups: ['resource.k8s.io'], resources: ['devicetaintrules'], verbs: ['list', 'delete'] }]);
    expect(objs.find((o) => o.kind === 'Job')?.spec?.template.spec.containers.map((c) => c.command)).toEqual([['kmaint', 'leftovers', '--fix', '-o', 'json']]);
    const without = await hookObjects(['leftoversHook.enabled=true']);
    expect(without.flatMap((o) => o.rules ?? []).filter((r) => JSON.stringify(r).includes('devicetaintrules'))).toEqual([]);
  });

  it('without medik8s.leases: no lease rights', async () => {
    const objs = await hookObjects(['leftoversHook.enabled=true']);
    expect(objs.filter((o) => o.metadata.namespace === 'medik8s-leases' || o.metadata.name.endsWith('-leases'))).toEqual([]);
  });
});
