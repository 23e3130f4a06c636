// charts/kmaint-crd on the testbed (docs/chart.md "CRDs"): over CRDs another tool applied (the global setup's
// `kubectl apply -f crds/`), helm install refuses until they are adopted as docs/chart.md says; helm upgrade then
// changes them (what Helm never does with charts/kmaint's crds/); helm uninstall keeps them (helm.sh/resource-policy).
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { kubectl, testbed } from './support/cluster.ts';

const RELEASE = 'kmc';
/** Where Helm keeps the release record; the CRDs themselves are cluster-wide. */
const NS = 'default';
const CRDS = ['maintenanceoperatorconfigs.maintenance.nvidia.com', 'nodemaintenances.maintenance.nvidia.com'];
const HELM_LABELS = ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/version', 'helm.sh/chart'];
const HELM_ANNOTATIONS = ['meta.helm.sh/release-name', 'meta.helm.sh/release-namespace', 'helm.sh/resource-policy'];
const PKG_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

interface LiveCrd {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { versions: Array<{ schema: { openAPIV3Schema: { description?: string } } }> };
}

function helm(args: string[]): Promise<HelmResult> {
  return runHelm(['--kubeconfig', testbed().kubeconfigPath, ...args], { home: join(testbed().dir, 'helm-crd-home') });
}

async function liveCrds(): Promise<LiveCrd[]> {
  const r = await kubectl(['get', 'crd', ...CRDS, '-o', 'json']);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return (JSON.parse(r.stdout) as { items: LiveCrd[] }).items;
}

/** The adoption of docs/chart.md: the labels and annotations by which Helm recognises its own objects. */
async function adopt(): Promise<void> {
  const labelled = await kubectl(['label', 'crd', ...CRDS, 'app.kubernetes.io/managed-by=Helm', '--overwrite']);
  const annotated = await kubectl(['annotate', 'crd', ...CRDS, `meta.helm.sh/release-name=${RELEASE}`, `meta.helm.sh/release-namespace=${NS}`, '--overwrite']);
  expect([labelled.code, annotated.code]).toEqual([0, 0]);
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/helm-crd] NOT RUN: the CRD chart tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

describe.skipIf(!HELM_BUILT)('the chart charts/kmaint-crd on the testbed (release kmc)', () => {
  let uids: string[] = [];

  beforeAll(async () => {
    uids = (await liveCrds()).map((c) => c.metadata.uid);
  });

  afterAll(async () => {
    // The CRDs as the global setup left them: Helm's marks removed, then the files applied as it applies them.
    await helm(['uninstall', RELEASE, '-n', NS, '--ignore-not-found']);
    await kubectl(['label', 'crd', ...CRDS, ...HELM_LABELS.map((l) => `${l}-`)]);
    await kubectl(['annotate', 'crd', ...CRDS, ...HELM_ANNOTATIONS.map((a) => `${a}-`)]);
    const restored = await kubectl(['apply', '-f', 'crds/']);
    expect([restored.code, restored.stderr]).toEqual([0, '']);
    const left = await liveCrds();
    expect(left.map((c) => [c.metadata.uid, Object.keys(c.metadata.labels ?? {}), Object.keys(c.metadata.annotations ?? {}).filter((a) => a !== 'kubectl.kubernetes.io/last-applied-configuration')])).toEqual(
      uids.map((uid) => [uid, [], ['kmaint.io/crd-schema']]),
    );
  });

  it('over CRDs applied by kubectl, helm install refuses; after the adoption docs/chart.md gives, it takes them over in place with the keep policy', async () => {
    const refused = await helm(['install', RELEASE, 'charts/kmaint-crd', '-n', NS]);
    expect([refused.code, refused.stderr.trim().split('\n')[0]]).toEqual([
      1,
      `Error: INSTALLATION FAILED: Unable to continue with install: CustomResourceDefinition "${CRDS[0]}" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": must be set to "${RELEASE}"; annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "${NS}"`,
    ]);

    await adopt();
    const installed = await helm(['install', RELEASE, 'charts/kmaint-crd', '-n', NS]);
    expect([installed.code, installed.stderr]).toEqual([0, '']);
    const live = await liveCrds();
    expect(live.map((c) => [c.metadata.uid, c.metadata.labels?.['app.kubernetes.io/instance'], c.metadata.labels?.['helm.sh/chart'], c.metadata.annotations?.['helm.sh/resource-policy']])).toEqual(
      uids.map((uid) => [uid, RELEASE, `kmaint-crd-${PKG_VERSION}`, 'keep']),
    );
  });

  it('helm upgrade applies a changed CRD (a new schema description in a copy of the chart), and upgrading back restores it', async () => {
    const next = join(testbed().dir, 'kmaint-crd-next');
    rmSync(next, { recursive: true, force: true });
    mkdirSync(next, { recursive: true });
    cpSync('charts/kmaint-crd', next, { recursive: true });
    const file = join(next, 'files', `${CRDS[1]}.yaml`);
    const crd = parse(readFileSync(file, 'utf8')) as LiveCrd;
    const original = crd.spec.versions[0]?.schema.openAPIV3Schema.description;
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
    if (schema) schema.description = 'changed by test/helm-crd';
    writeFileSync(file, stringify(crd));

    const upgraded = await helm(['upgrade', RELEASE, next, '-n', NS]);
    expect([upgraded.code, upgraded.stderr]).toEqual([0, '']);
    expect((await liveCrds())[1]?.spec.versions[0]?.schema.openAPIV3Schema.description).toBe('changed by test/helm-crd');

    const back = await helm(['upgrade', RELEASE, 'charts/kmaint-crd', '-n', NS]);
    expect([back.code, back.stderr]).toEqual([0, '']);
    expect((await liveCrds())[1]?.spec.versions[0]?.schema.openAPIV3Schema.description).toBe(original);
  });

  it('helm uninstall keeps both CRDs (helm.sh/resource-policy: keep), the same objects', async () => {
    const r = await helm(['uninstall', RELEASE, '-n', NS, '--wait']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.trim().split('\n')).toEqual([
      'These resources were kept due to the resource policy:',
      ...CRDS.map((c) => `[CustomResourceDefinition] ${c}`),
      '',
      `release "${RELEASE}" uninstalled`,
    ]);
    expect((await liveCrds()).map((c) => c.metadata.uid)).toEqual(uids);
  });
});
