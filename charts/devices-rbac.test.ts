// The chart's RBAC for device-scoped requests (issue 45, `devices.enabled`), with a real helm (testbed/helm.ts): off by
// default, nothing of it rendered; on, the ClusterRole `<fullname>-devices` with exactly infra/devices' rules
// (DeviceTaintRules list/create/delete, ResourceSlices list: no get, update, patch or watch) bound to kmaint's
// ServiceAccount in the release namespace.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmBinary, helmIsCurrent, runHelm } from '../testbed/helm.ts';

const CHART = 'charts/kmaint';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: unknown[];
  roleRef?: unknown;
  subjects?: unknown[];
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/devices-rbac] NOT RUN: the chart tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

/** The rendered objects named `*-devices`, as `kind/name`-sorted plain objects. */
async function deviceObjects(release: string, namespace: string, set: string[]): Promise<Obj[]> {
  const r = await runHelm(['template', release, CHART, '--namespace', namespace, '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', ...set.flatMap((s) => ['--set', s])]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null && o.metadata.name.endsWith('-devices'));
}

/** infra/devices' ClusterRole rules: the kustomize install and the chart grant the same. */
function infraRules(): unknown[] {
  const docs = parseAllDocuments(readFileSync('infra/devices/cluster-role.yaml', 'utf8')).map((d) => d.toJS() as Obj);
  return docs.find((d) => d.kind === 'ClusterRole')?.rules ?? [];
}

describe.skipIf(!HELM_BUILT)('helm template: devices.enabled', () => {
  it('renders no devices ClusterRole or binding by default, nor with devices.enabled=false', async () => {
    expect(await deviceObjects('kmaint', 'kmaint', [])).toEqual([]);
    expect(await deviceObjects('kmaint', 'kmaint', ['devices.enabled=false'])).toEqual([]);
  });

  it("enabled: the ClusterRole with exactly infra/devices' rules, bound to kmaint's ServiceAccount in the release namespace", async () => {
    const objs = await deviceObjects('kmaint', 'ops', ['devices.enabled=true']);
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ClusterRole/kmaint-devices', 'ClusterRoleBinding/kmaint-devices']);
    const [role, binding] = objs;
    expect(role?.rules).toEqual([
      { apiGroups: ['resource.k8s.io'], resources: ['devicetaintrules'], verbs: ['list', 'create', 'delete'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['list'] },
    ]);
    expect(role?.rules).toEqual(infraRules());
    expect([binding?.roleRef, binding?.subjects]).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kmaint-devices' },
      [{ kind: 'ServiceAccount', name: 'kmaint', namespace: 'ops' }],
    ]);
  });

  it('follows the release name: another release gets its own role and binding', async () => {
    const objs = await deviceObjects('maint', 'ops', ['devices.enabled=true']);
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ClusterRole/maint-kmaint-devices', 'ClusterRoleBinding/maint-kmaint-devices']);
    expect([objs[1]?.roleRef, objs[1]?.subjects]).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'maint-kmaint-devices' },
      [{ kind: 'ServiceAccount', name: 'maint-kmaint', namespace: 'ops' }],
    ]);
  });
});
