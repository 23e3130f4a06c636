// charts/kmaint-crd, kmaint's CRDs as templates (Karpenter's karpenter-crd pattern), with a real helm
// (testbed/helm.ts): it renders exactly crds/, with the release's labels and, unless keep=false, the keep policy that
// leaves the CRDs and every request in place on `helm uninstall`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { helmBinary, helmIsCurrent, runHelm } from '../testbed/helm.ts';

const CHART = 'charts/kmaint-crd';
const KUBE_VERSION = '1.35.4';
const PKG_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const CRD_FILES = readdirSync('crds').filter((f) => f.endsWith('.yaml')).sort();

interface Crd {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: unknown;
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/kmaint-crd] NOT RUN: the CRD chart tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

async function render(set: string[] = []): Promise<Crd[]> {
  const r = await runHelm(['template', 'crds', CHART, '--kube-version', KUBE_VERSION, ...set.flatMap((s) => ['--set-json', s])]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Crd | null)
    .filter((o): o is Crd => o !== null);
}

describe('the chart charts/kmaint-crd', () => {
  it('carries crds/, byte for byte, in files/', () => {
    expect(readdirSync(join(CHART, 'files')).sort()).toEqual(CRD_FILES);
    for (const f of CRD_FILES) expect(readFileSync(join(CHART, 'files', f), 'utf8')).toBe(readFileSync(join('crds', f), 'utf8'));
  });

  it('has the package\'s version and appVersion', () => {
    const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
    expect([chart.version, chart.appVersion]).toEqual([PKG_VERSION, PKG_VERSION]);
  });
});

describe.skipIf(!HELM_BUILT)('helm lint and helm template of charts/kmaint-crd', () => {
  it('helm lint --strict passes with no warning', async () => {
    const r = await runHelm(['lint', '--strict', CHART, '--kube-version', KUBE_VERSION]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.trim().split('\n')).toEqual(['==> Linting charts/kmaint-crd', '[INFO] Chart.yaml: icon is recommended', '', '1 chart(s) linted, 0 chart(s) failed']);
  });

  it('renders each CRD of crds/ with its spec and digest unchanged, the release\'s labels and the keep policy', async () => {
    const rendered = await render();
    const want = CRD_FILES.map((f) => parse(readFileSync(join('crds', f), 'utf8')) as Crd);
    expect(rendered.map((c) => c.metadata.name)).toEqual(want.map((c) => c.metadata.name));
    for (const [i, c] of rendered.entries()) {
      const source = want[i];
      expect([c.kind, c.spec]).toEqual(['CustomResourceDefinition', source?.spec]);
      expect(c.metadata.annotations).toEqual({ ...source?.metadata.annotations, 'helm.sh/resource-policy': 'keep' });
      expect(c.metadata.labels).toEqual({
        'app.kubernetes.io/name': 'kmaint',
        'app.kubernetes.io/instance': 'crds',
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/version': PKG_VERSION,
        'helm.sh/chart': `kmaint-crd-${PKG_VERSION}`,
      });
    }
  });

  it('keep=false leaves the keep policy out (uninstalling then deletes the CRDs and every request)', async () => {
    const rendered = await render(['keep=false']);
    expect(rendered.map((c) => c.metadata.annotations?.['helm.sh/resource-policy'])).toEqual(CRD_FILES.map(() => undefined));
  });

  it('refuses a value it does not have (values.schema.json)', async () => {
    const r = await runHelm(['template', 'crds', CHART, '--kube-version', KUBE_VERSION, '--set', 'crds.keep=false']);
    expect([r.code, r.stderr.trim()]).toEqual([1, 'Error: values don\'t meet the specifications of the schema(s) in the following chart(s):\nkmaint-crd:\n- at \'\': additional properties \'crds\' not allowed']);
  });
});

describe.skipIf(!HELM_BUILT)('the CRD chart\'s kubeVersion', () => {
  it('is charts/kmaint\'s: renders for Kubernetes 1.30 and refuses 1.29 with Helm\'s message', async () => {
    const kubeVersion = (file: string): string => (parse(readFileSync(file, 'utf8')) as { kubeVersion: string }).kubeVersion;
    expect(kubeVersion(join(CHART, 'Chart.yaml'))).toBe(kubeVersion('charts/kmaint/Chart.yaml'));
    const [v130, v129] = await Promise.all(['1.30.0', '1.29.15'].map((v) => runHelm(['template', 'crds', CHART, '--kube-version', v])));
    expect([v130?.code, v130?.stderr]).toEqual([0, '']);
    expect(parseAllDocuments(v130?.stdout ?? '').map((d) => (d.toJS() as Crd | null)?.metadata.name).filter(Boolean)).toEqual(CRD_FILES.map((f) => f.replace(/\.yaml$/, '')));
    expect([v129?.code, v129?.stderr.trim()]).toEqual([1, 'Error: chart requires kubeVersion: >= 1.30.0-0 which is incompatible with Kubernetes v1.29.15\n\nUse --debug flag to render out invalid YAML']);
  });
});
