// The Helm chart charts/kmaint with a real helm (testbed/helm.ts): lint, what `helm template` renders for each value,
// the same objects as the kustomize base infra/base, and CRDs identical to crds/ with their schema digest.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { binaryPath } from '../testbed/versions.ts';
import { binariesAreCurrent } from '../testbed/build.ts';
import { CRD_SCHEMA_ANNOTATION, crdSchemaDigest } from './crd-schema.ts';

const run = promisify(execFile);
const CHART = 'charts/kmaint';
/** The testbed's Kubernetes version: helm's own default capabilities (v1.20) are older than the chart's kubeVersion. */
const KUBE_VERSION = '1.35.4';
const FUNCTIONS = ['scheduler', 'drainer', 'cleanup', 'reaper'];
/** The image repository every rendering names: without one the chart refuses to render (see the test below). */
const REPOSITORY = 'registry.example.com';
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
/** The chart's version and appVersion, and so the default image tag. */
const PKG_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
/** The labels of every object and every pod template of release `release`. */
const STANDARD_LABELS = (release: string): Record<string, string> => ({
  'app.kubernetes.io/name': 'kmaint',
  'app.kubernetes.io/instance': release,
  'app.kubernetes.io/managed-by': 'Helm',
  'app.kubernetes.io/version': PKG_VERSION,
  'helm.sh/chart': `kmaint-${PKG_VERSION}`,
});

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    serviceAccountName: string;
    priorityClassName?: string;
    tolerations?: unknown[];
    nodeSelector?: Record<string, string>;
    affinity?: unknown;
    imagePullSecrets?: unknown[];
    securityContext?: unknown;
    containers: Array<{ image: string; imagePullPolicy?: string; command: string[]; resources?: unknown }>;
  };
}

interface CronJobSpec {
  schedule: string;
  suspend?: boolean;
  concurrencyPolicy: string;
  startingDeadlineSeconds: number;
  jobTemplate: { spec: { backoffLimit: number; activeDeadlineSeconds: number; template: PodTemplate } };
}

const helm = (args: string[]): Promise<HelmResult> => runHelm(args);

function parsed(yamlText: string): Obj[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/** `helm template` of the chart as release `kmaint` in namespace `kmaint` (infra/base's names), with `--set` pairs. */
function template(set: string[], opts: { release?: string; namespace?: string } = {}): Promise<HelmResult> {
  return helm(['template', opts.release ?? 'kmaint', CHART, '--namespace', opts.namespace ?? 'kmaint', '--kube-version', KUBE_VERSION, ...set.flatMap((s) => ['--set-json', s])]);
}

/** `template` with operator.image.repository=REPOSITORY before the `set` pairs; fails the test unless helm renders. */
async function render(set: string[] = [], opts: { release?: string; namespace?: string } = {}): Promise<Obj[]> {
  const r = await template([`operator.image.repository=${JSON.stringify(REPOSITORY)}`, ...set], opts);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parsed(r.stdout);
}

const key = (o: Obj): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const cronJob = (objs: Obj[], name: string): CronJobSpec => objs.find((o) => o.kind === 'CronJob' && o.metadata.name === name)?.spec as unknown as CronJobSpec;
const pod = (objs: Obj[], name = 'kmaint-scheduler'): PodTemplate => cronJob(objs, name).jobTemplate.spec.template;

const HELM_BUILT = helmIsCurrent();
const KUBECTL_BUILT = binariesAreCurrent();
if (!HELM_BUILT || !KUBECTL_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(
    `[charts/chart] NOT RUN: the chart tests need ${[!HELM_BUILT ? `helm (${helmBinary()})` : '', !KUBECTL_BUILT ? 'the testbed\'s kubectl' : ''].filter(Boolean).join(' and ')}: npm run testbed:build builds them; they are counted as skipped\n`,
  );
}

describe('the chart\'s metadata', () => {
  it('its version and appVersion are the package\'s', () => {
    const chart = parsed(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))[0] as unknown as { version: string; appVersion: string };
    expect([chart.version, chart.appVersion]).toEqual([PKG_VERSION, PKG_VERSION]);
  });
});

describe('the chart\'s Artifact Hub annotations', () => {
  const chart = parsed(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))[0] as unknown as { appVersion: string; annotations: Record<string, string> };
  const list = (k: string): Array<Record<string, unknown>> => parsed(chart.annotations[k] ?? '')[0] as unknown as Array<Record<string, unknown>>;

  it('name the package\'s license and the image of appVersion', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
    expect([chart.annotations['artifacthub.io/license'], list('artifacthub.io/images')]).toEqual([pkg.license, [{ name: 'kmaint', image: `kmaint:${chart.appVersion}` }]]);
  });

  it('list the CRDs of crds/ (kind, version, name) and an example of each kind', () => {
    const crds = readdirSync('crds').filter((f) => f.endsWith('.yaml')).map((f) => parsed(readFileSync(join('crds', f), 'utf8'))[0] as unknown as { metadata: { name: string }; spec: { names: { kind: string }; versions: Array<{ name: string }> } });
    const want = crds.map((c) => ({ kind: c.spec.names.kind, version: c.spec.versions.map((v) => v.name).join(','), name: c.metadata.name })).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(list('artifacthub.io/crds').map((c) => ({ kind: c['kind'], version: c['version'], name: c['name'] })).sort((a, b) => String(a.kind).localeCompare(String(b.kind)))).toEqual(want);
    expect(list('artifacthub.io/crdsExamples').map((e) => e['kind']).sort()).toEqual(want.map((c) => c.kind));
  });
});

describe('the chart\'s alerts', () => {
  it('are infra/alerts/prometheusrule.yaml, byte for byte (one set of rules; shared/metrics/alerts.test.ts checks their metrics)', () => {
    expect(readFileSync(join(CHART, 'files/prometheusrule.yaml'), 'utf8')).toBe(readFileSync('infra/alerts/prometheusrule.yaml', 'utf8'));
  });
});

describe('the CRDs of the chart', () => {
  const files = readdirSync('crds').filter((f) => f.endsWith('.yaml')).sort();

  it('are crds/, byte for byte', () => {
    expect(readdirSync(join(CHART, 'crds')).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(join(CHART, 'crds', f), 'utf8')).toBe(readFileSync(join('crds', f), 'utf8'));
  });

  it.each(files)('%s carries the digest of its spec (run npx tsx charts/crd-schema.ts crds/*.yaml after a change)', (f) => {
    const text = readFileSync(join('crds', f), 'utf8');
    expect(parsed(text)[0]?.metadata.annotations?.[CRD_SCHEMA_ANNOTATION]).toBe(crdSchemaDigest(text));
  });
});

describe.skipIf(!HELM_BUILT || !KUBECTL_BUILT)('helm lint and helm template of charts/kmaint', () => {
  it('helm lint --strict passes with no warning', async () => {
    const r = await helm(['lint', '--strict', CHART, '--kube-version', KUBE_VERSION, '--set', `operator.image.repository=${REPOSITORY}`]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.trim().split('\n')).toEqual(['==> Linting charts/kmaint', '[INFO] Chart.yaml: icon is recommended', '', '1 chart(s) linted, 0 chart(s) failed']);
  });

  it('renders the objects of infra/base and infra/admission-policy, field for field, except the Namespace (helm install --create-namespace) and Helm\'s own labels', async () => {
    // infra/base names the image kmaint:latest and its overlays set it: this one as the chart's repository does.
    const overlay = mkdtempSync(join(tmpdir(), 'kmaint-overlay-'));
    writeFileSync(join(overlay, 'kustomization.yaml'), `resources: [${relative(overlay, resolve('infra/base'))}]\nimages: [{name: kmaint, newName: ${REPOSITORY}/kmaint}]\n`);
    const built = await Promise.all([overlay, 'infra/admission-policy'].map((dir) => run(binaryPath('kubectl'), ['kustomize', dir], { maxBuffer: 16 * 1024 * 1024 })));
    rmSync(overlay, { recursive: true, force: true });
    const base = new Map(built.flatMap((b) => parsed(b.stdout)).map((o) => [key(o), o]));
    const HELM_LABELS = ['app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/version', 'helm.sh/chart'];
    // The chart's default tag is its appVersion.
    const withoutHelmLabels = (labels: Record<string, string> | undefined): Record<string, string> => Object.fromEntries(Object.entries(labels ?? {}).filter(([k]) => !HELM_LABELS.includes(k)));
    const chart = (await render(['operator.image.tag="latest"'])).map((o) => {
      const bare = { ...o, metadata: { ...o.metadata, labels: withoutHelmLabels(o.metadata.labels) } };
      if (o.kind !== 'CronJob') return bare;
      // The pod templates carry Helm's labels too.
      const spec = o.spec as unknown as CronJobSpec;
      const template = { ...spec.jobTemplate.spec.template, metadata: { ...spec.jobTemplate.spec.template.metadata, labels: withoutHelmLabels(spec.jobTemplate.spec.template.metadata.labels) } };
      return { ...bare, spec: { ...spec, jobTemplate: { ...spec.jobTemplate, spec: { ...spec.jobTemplate.spec, template } } } };
    });
    expect([...base.keys()].filter((k) => !chart.some((o) => key(o) === k))).toEqual(['Namespace//kmaint']);
    expect(chart.map(key).filter((k) => !base.has(k))).toEqual([]);
    for (const o of chart) expect({ [key(o)]: o }).toEqual({ [key(o)]: base.get(key(o)) });
  });

  it('by default: these objects, with Helm\'s labels on each', async () => {
    const objs = await render([], { release: 'ops', namespace: 'maint' });
    expect(objs.map(key)).toEqual([
      'ServiceAccount/maint/ops-kmaint',
      'ClusterRole//ops-kmaint',
      'ClusterRole//ops-kmaint-medik8s-leases',
      'ClusterRole//ops-kmaint-sriov',
      'ClusterRoleBinding//ops-kmaint',
      'Role/maint/ops-kmaint',
      'RoleBinding/maint/ops-kmaint',
      'CronJob/maint/ops-kmaint-scheduler',
      'CronJob/maint/ops-kmaint-drainer',
      'CronJob/maint/ops-kmaint-cleanup',
      'CronJob/maint/ops-kmaint-reaper',
      'MaintenanceOperatorConfig/maint/default',
      'ValidatingAdmissionPolicy//ops-kmaint-requests',
      'ValidatingAdmissionPolicyBinding//ops-kmaint-requests',
    ]);
    expect(objs[0]?.metadata.labels).toEqual({
      'app.kubernetes.io/name': 'kmaint',
      'app.kubernetes.io/instance': 'ops',
      'app.kubernetes.io/managed-by': 'Helm',
      'app.kubernetes.io/version': PKG_VERSION,
      'helm.sh/chart': `kmaint-${PKG_VERSION}`,
    });
    const binding = objs.find((o) => o.kind === 'ClusterRoleBinding') as unknown as { roleRef: { name: string }; subjects: unknown[] };
    expect([binding.roleRef.name, binding.subjects]).toEqual(['ops-kmaint', [{ kind: 'ServiceAccount', name: 'ops-kmaint', namespace: 'maint' }]]);
  });

  it.each(FUNCTIONS)('CronJob kmaint-%s by default: never starved, and a Job stuck on a dead node does not stop the schedule', async (fn) => {
    const objs = await render();
    const spec = cronJob(objs, `kmaint-${fn}`);
    expect([spec.schedule, spec.suspend, spec.concurrencyPolicy, spec.startingDeadlineSeconds, spec.jobTemplate.spec.backoffLimit, spec.jobTemplate.spec.activeDeadlineSeconds]).toEqual([
      '* * * * *',
      undefined,
      'Allow',
      50,
      0,
      100,
    ]);
    const p = pod(objs, `kmaint-${fn}`);
    expect([p.spec.priorityClassName, p.spec.tolerations]).toEqual([
      'system-cluster-critical',
      [
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
      ],
    ]);
    expect([p.spec.serviceAccountName, p.spec.containers[0]?.image, p.spec.containers[0]?.command, p.metadata.labels]).toEqual([
      'kmaint',
      `${REPOSITORY}/kmaint:${PKG_VERSION}`,
      ['kmaint', 'run', fn, '--timeout', '50s', '-o', 'json'],
      { ...STANDARD_LABELS('kmaint'), 'app.kubernetes.io/component': fn },
    ]);
  });

  // Each row: --set-json values, then what they change in the rendering (read by `pick`).
  it.each<{ rule: string; set: string[]; pick: (objs: Obj[]) => unknown; want: unknown }>([
    {
      rule: 'operator.image.{repository,name,tag,imagePullPolicy} make the image as upstream\'s chart does',
      set: ['operator.image={"repository":"registry.example.com/ops","name":"km","tag":"0.1.0","imagePullPolicy":"Always"}'],
      pick: (o) => [pod(o).spec.containers[0]?.image, pod(o).spec.containers[0]?.imagePullPolicy],
      want: ['registry.example.com/ops/km:0.1.0', 'Always'],
    },
    { rule: 'imagePullSecrets (top level, as upstream)', set: ['imagePullSecrets=[{"name":"pull"}]'], pick: (o) => pod(o).spec.imagePullSecrets, want: [{ name: 'pull' }] },
    { rule: 'operator.nodeSelector', set: ['operator.nodeSelector={"pool":"infra"}'], pick: (o) => pod(o).spec.nodeSelector, want: { pool: 'infra' } },
    {
      rule: 'operator.affinity',
      set: ['operator.affinity={"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists"}]}}]}}'],
      pick: (o) => pod(o).spec.affinity,
      want: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] } }] } },
    },
    { rule: 'operator.tolerations replace the defaults', set: ['operator.tolerations=[{"key":"dedicated","operator":"Exists"}]'], pick: (o) => pod(o).spec.tolerations, want: [{ key: 'dedicated', operator: 'Exists' }] },
    { rule: 'operator.priorityClassName "" leaves the class out', set: ['operator.priorityClassName=""'], pick: (o) => Object.hasOwn(pod(o).spec, 'priorityClassName'), want: false },
    { rule: 'operator.resources', set: ['operator.resources={"requests":{"cpu":"50m"}}'], pick: (o) => pod(o).spec.containers[0]?.resources, want: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '384Mi' } } },
    { rule: 'operator.podSecurityContext', set: ['operator.podSecurityContext={"runAsUser":2000}'], pick: (o) => (pod(o).spec.securityContext as { runAsUser: number }).runAsUser, want: 2000 },
    {
      rule: 'operator.podAnnotations and podLabels (app.kubernetes.io/name stays)',
      set: ['operator.podAnnotations={"a":"1"}', 'operator.podLabels={"team":"ops","app.kubernetes.io/name":"other"}'],
      pick: (o) => [pod(o).metadata.annotations, pod(o).metadata.labels],
      want: [{ a: '1' }, { team: 'ops', ...STANDARD_LABELS('kmaint'), 'app.kubernetes.io/component': 'scheduler' }],
    },
    {
      rule: 'operator.env follows KMAINT_NAMESPACE and KMAINT_SERVICE_ACCOUNT (the pod\'s own, so the drain keeps kmaint\'s pods whatever the release is called)',
      set: ['operator.env=[{"name":"KMAINT_PUSHGATEWAY_URL","value":"http://pushgateway.monitoring.svc:9091"}]'],
      pick: (o) => (pod(o).spec.containers[0] as unknown as { env: unknown[] }).env,
      want: [
        { name: 'KMAINT_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'KMAINT_SERVICE_ACCOUNT', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
        { name: 'KMAINT_LOG_LEVEL', value: 'info' },
        { name: 'KMAINT_PUSHGATEWAY_URL', value: 'http://pushgateway.monitoring.svc:9091' },
      ],
    },
    {
      rule: 'operator.serviceAccount.annotations',
      set: ['operator.serviceAccount.annotations={"eks.amazonaws.com/role-arn":"arn:aws:iam::1:role/k"}'],
      pick: (o) => o.find((x) => x.kind === 'ServiceAccount')?.metadata.annotations,
      want: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/k' },
    },
    {
      rule: 'cronJobs.{functions,schedule,timeout,suspend} pick the CronJobs and what they run',
      set: ['cronJobs.functions=["drainer","cleanup"]', 'cronJobs.schedule="*/2 * * * *"', 'cronJobs.timeout="30s"', 'cronJobs.suspend=true'],
      pick: (o) => o.filter((x) => x.kind === 'CronJob').map((x) => [x.metadata.name, cronJob(o, x.metadata.name).schedule, cronJob(o, x.metadata.name).suspend, pod(o, x.metadata.name).spec.containers[0]?.command]),
      want: [
        ['kmaint-drainer', '*/2 * * * *', true, ['kmaint', 'run', 'drainer', '--timeout', '30s', '-o', 'json']],
        ['kmaint-cleanup', '*/2 * * * *', true, ['kmaint', 'run', 'cleanup', '--timeout', '30s', '-o', 'json']],
      ],
    },
    {
      rule: 'operatorConfig: a 0 is written (it admits nothing), a percentage stays a string, null is left out',
      set: ['operatorConfig.maxParallelOperations=0', 'operatorConfig.maxUnavailable="10%"', 'operatorConfig.maxNodeMaintenanceTimeSeconds=null', 'operatorConfig.logLevel="debug"'],
      pick: (o) => o.find((x) => x.kind === 'MaintenanceOperatorConfig')?.spec,
      want: { logLevel: 'debug', maxParallelOperations: 0, maxUnavailable: '10%' },
    },
    {
      rule: 'operatorConfig.extraSpec adds kmaint\'s fields',
      set: ['operatorConfig.extraSpec={"zoneLabel":"topology.kubernetes.io/zone","maxUnavailablePerZone":1}'],
      pick: (o) => o.find((x) => x.kind === 'MaintenanceOperatorConfig')?.spec,
      want: { logLevel: 'info', maxParallelOperations: 1, maxNodeMaintenanceTimeSeconds: 3600, zoneLabel: 'topology.kubernetes.io/zone', maxUnavailablePerZone: 1 },
    },
    { rule: 'operatorConfig.deploy=false: no config', set: ['operatorConfig.deploy=false'], pick: (o) => o.filter((x) => x.kind === 'MaintenanceOperatorConfig').length, want: 0 },
    {
      rule: 'criticalPodsQuota.create: a ResourceQuota for the pods of the priority class',
      set: ['criticalPodsQuota.create=true'],
      pick: (o) => o.find((x) => x.kind === 'ResourceQuota')?.spec,
      want: { hard: { pods: '12' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['system-cluster-critical'] }] } },
    },
    {
      rule: 'operator.serviceAccount.create=false with a name: no ServiceAccount made; the pods run as it, every binding and the admission policy name it',
      set: ['operator.serviceAccount={"create":false,"name":"ops-sa"}', 'medik8s.leases=true', 'sriov.bindNamespace="sriov-network-operator"'],
      pick: (o) => [
        o.filter((x) => x.kind === 'ServiceAccount').length,
        pod(o).spec.serviceAccountName,
        o.filter((x) => x.kind.endsWith('Binding') && x.kind !== 'ValidatingAdmissionPolicyBinding').map((x) => (x as unknown as { subjects: unknown[] }).subjects),
        JSON.stringify(o.find((x) => x.kind === 'ValidatingAdmissionPolicy')?.spec).includes("request.userInfo.username != 'system:serviceaccount:kmaint:ops-sa'"),
      ],
      want: [0, 'ops-sa', Array.from({ length: 4 }, () => [{ kind: 'ServiceAccount', name: 'ops-sa', namespace: 'kmaint' }]), true],
    },
    {
      rule: 'operator.serviceAccount.name names the ServiceAccount the chart creates',
      set: ['operator.serviceAccount.name="maint-runner"'],
      pick: (o) => [o.filter((x) => x.kind === 'ServiceAccount').map((x) => x.metadata.name), pod(o).spec.serviceAccountName],
      want: [['maint-runner'], 'maint-runner'],
    },
    {
      rule: 'metrics.pushgatewayUrl sets KMAINT_PUSHGATEWAY_URL after the pod\'s own variables, before operator.env',
      set: ['metrics.pushgatewayUrl="http://pushgateway.monitoring.svc:9091"', 'operator.env=[{"name":"NODE_OPTIONS","value":"--max-old-space-size=256"}]'],
      pick: (o) => (pod(o).spec.containers[0] as unknown as { env: Array<{ name: string }> }).env.map((e) => e.name),
      want: ['KMAINT_NAMESPACE', 'KMAINT_SERVICE_ACCOUNT', 'KMAINT_LOG_LEVEL', 'KMAINT_PUSHGATEWAY_URL', 'NODE_OPTIONS'],
    },
    {
      rule: 'metrics.prometheusRule: the rules of infra/alerts/prometheusrule.yaml, with the release\'s labels and the extra ones, where asked',
      set: ['metrics.prometheusRule={"enabled":true,"namespace":"monitoring","labels":{"release":"kps"}}'],
      pick: (o) => {
        const rule = o.find((x) => x.kind === 'PrometheusRule');
        return [rule?.apiVersion, rule?.metadata.name, rule?.metadata.namespace, rule?.metadata.labels?.['release'], rule?.metadata.labels?.['app.kubernetes.io/instance'], rule?.spec];
      },
      want: ['monitoring.coreos.com/v1', 'kmaint', 'monitoring', 'kps', 'kmaint', (parsed(readFileSync('infra/alerts/prometheusrule.yaml', 'utf8'))[0] as unknown as { spec: unknown }).spec],
    },
    {
      rule: 'metrics.dashboard: a ConfigMap holding files/dashboard.json as it is, labelled for Grafana\'s sidecar',
      set: ['metrics.dashboard={"enabled":true,"namespace":"monitoring","annotations":{"grafana_folder":"Maintenance"}}'],
      pick: (o) => {
        const cm = o.find((x) => x.kind === 'ConfigMap') as (Obj & { data: Record<string, string> }) | undefined;
        return [cm?.metadata.name, cm?.metadata.namespace, cm?.metadata.labels?.['grafana_dashboard'], cm?.metadata.annotations, cm?.data];
      },
      want: ['kmaint-dashboard', 'monitoring', '1', { grafana_folder: 'Maintenance' }, { 'kmaint-dashboard.json': readFileSync(join(CHART, 'files/dashboard.json'), 'utf8') }],
    },
    {
      rule: 'openshift.enabled: no fixed uid, gid, fsGroup or supplemental groups (the restricted SCC assigns them); the rest stays',
      set: ['openshift.enabled=true', 'operator.podSecurityContext={"fsGroup":1000,"supplementalGroups":[1000]}'],
      pick: (o) => [pod(o).spec.securityContext, (pod(o).spec.containers[0] as unknown as { securityContext: unknown }).securityContext],
      want: [{ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } }],
    },
    {
      rule: 'medik8s.leases binds the lease ClusterRole inside medik8s-leases only',
      set: ['medik8s.leases=true'],
      pick: (o) => o.filter((x) => x.kind === 'RoleBinding' && x.metadata.namespace === 'medik8s-leases').map((x) => [x.metadata.name, (x as unknown as { roleRef: { name: string } }).roleRef.name]),
      want: [['kmaint', 'kmaint-medik8s-leases']],
    },
    {
      rule: 'sriov.bindNamespace binds the SR-IOV handshake ClusterRole inside that namespace only',
      set: ['sriov.bindNamespace="nvidia-network-operator"'],
      pick: (o) => o.filter((x) => x.kind === 'RoleBinding' && x.metadata.namespace === 'nvidia-network-operator').map((x) => [x.metadata.name, (x as unknown as { roleRef: { name: string } }).roleRef.name]),
      want: [['kmaint-sriov', 'kmaint-sriov']],
    },
  ])('$rule', async ({ set, pick, want }) => {
    expect(pick(await render(set))).toEqual(want);
  });

  it('operator.serviceAccount.create=false without a name is refused (the rights would go to the namespace\'s default ServiceAccount)', async () => {
    const r = await helm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', KUBE_VERSION, '--set', `operator.image.repository=${REPOSITORY}`, '--set', 'operator.serviceAccount.create=false']);
    expect([r.code, r.stderr.trim()]).toEqual([
      1,
      'Error: execution error at (kmaint/templates/rbac.yaml:2:11): operator.serviceAccount.create=false needs operator.serviceAccount.name: the ServiceAccount kmaint\'s rights are bound to (create it first)\n\nUse --debug flag to render out invalid YAML',
    ]);
  });

  it('every object and every pod template carries the standard labels, with every optional object on', async () => {
    const objs = await render(['criticalPodsQuota.create=true', 'medik8s.leases=true', 'sriov.bindNamespace="sriov-network-operator"', 'operator.podLabels={"app.kubernetes.io/instance":"spoofed"}'], { release: 'ops', namespace: 'maint' });
    const missing = (labels: Record<string, string> | undefined): string[] => Object.entries(STANDARD_LABELS('ops')).filter(([k, v]) => labels?.[k] !== v).map(([k]) => k);
    expect(objs.map((o) => ({ object: key(o), missing: missing(o.metadata.labels) })).filter((o) => o.missing.length > 0)).toEqual([]);
    const cronJobs = objs.filter((o) => o.kind === 'CronJob');
    expect(cronJobs.map((o) => [o.metadata.name, missing(pod(objs, o.metadata.name).metadata.labels)])).toEqual(FUNCTIONS.map((fn) => [`ops-kmaint-${fn}`, []]));
    // The 14 default objects, the ResourceQuota and the two RoleBindings of medik8s and SR-IOV.
    expect(objs.length).toBe(17);
  });

  it('helm template without a cluster checks no CRD (lookup finds nothing) and renders the CRDs only with --include-crds', async () => {
    const r = await helm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', KUBE_VERSION, '--set', `operator.image.repository=${REPOSITORY}`, '--include-crds']);
    expect(r.code).toBe(0);
    expect(parsed(r.stdout).filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([
      'maintenanceoperatorconfigs.maintenance.nvidia.com',
      'nodemaintenances.maintenance.nvidia.com',
    ]);
  });
});

/** Helm's refusal by the chart's own `fail`: the template and position it stopped at, then the reason. */
const failed = (at: string, reason: string): string => `Error: execution error at (kmaint/templates/${at}): ${reason}\n\nUse --debug flag to render out invalid YAML`;

describe.skipIf(!HELM_BUILT || !KUBECTL_BUILT)('the chart\'s image and modes (issue 42)', () => {
  // Each row: --set-json values (after operator.image.repository), then what they change in the rendering.
  it.each<{ rule: string; set: string[]; pick: (objs: Obj[]) => unknown; want: unknown }>([
    { rule: 'operator.image.digest without a tag: <repository>/<name>@<digest>', set: [`operator.image.digest="${DIGEST}"`], pick: (o) => pod(o).spec.containers[0]?.image, want: `${REPOSITORY}/kmaint@${DIGEST}` },
    { rule: 'operator.image.digest with a tag: <repository>/<name>:<tag>@<digest>', set: [`operator.image.digest="${DIGEST}"`, 'operator.image.tag="0.1.0"'], pick: (o) => pod(o).spec.containers[0]?.image, want: `${REPOSITORY}/kmaint:0.1.0@${DIGEST}` },
    { rule: 'a repository with a trailing slash gets no double slash', set: ['operator.image.repository="ghcr.io/acme/"'], pick: (o) => pod(o).spec.containers[0]?.image, want: `ghcr.io/acme/kmaint:${PKG_VERSION}` },
    {
      rule: 'cronJobs.functions=[all]: one CronJob <fullname>-all running `kmaint run all`, with the default resources',
      set: ['cronJobs.functions=["all"]'],
      pick: (o) => o.filter((x) => x.kind === 'CronJob').map((x) => [x.metadata.name, pod(o, x.metadata.name).metadata.labels['app.kubernetes.io/component'], pod(o, x.metadata.name).spec.containers[0]?.command, pod(o, x.metadata.name).spec.containers[0]?.resources]),
      want: [['kmaint-all', 'all', ['kmaint', 'run', 'all', '--timeout', '50s', '-o', 'json'], { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '384Mi' } }]],
    },
    {
      rule: 'cronJobs.wake=watch: every CronJob runs --wake watch and the ClusterRole grants watch on the three lists a run watches (infra/wake-watch\'s rules)',
      set: ['cronJobs.wake="watch"', 'cronJobs.functions=["scheduler","drainer"]'],
      pick: (o) => [
        o.filter((x) => x.kind === 'CronJob').map((x) => pod(o, x.metadata.name).spec.containers[0]?.command),
        ((o.find((x) => x.kind === 'ClusterRole' && x.metadata.name === 'kmaint') as unknown as { rules: Array<{ resources: string[]; verbs: string[] }> }).rules).filter((r) => r.verbs.includes('watch')).map((r) => [r.resources, r.verbs]),
      ],
      want: [
        [
          ['kmaint', 'run', 'scheduler', '--timeout', '50s', '--wake', 'watch', '-o', 'json'],
          ['kmaint', 'run', 'drainer', '--timeout', '50s', '--wake', 'watch', '-o', 'json'],
        ],
        [
          [['pods'], ['list', 'delete', 'watch']],
          [['poddisruptionbudgets'], ['list', 'watch']],
          [['nodemaintenances'], ['list', 'patch', 'delete', 'watch']],
        ],
      ],
    },
    {
      rule: 'cronJobs.wake=poll (the default) grants no watch',
      set: [],
      pick: (o) => ((o.find((x) => x.kind === 'ClusterRole' && x.metadata.name === 'kmaint') as unknown as { rules: Array<{ verbs: string[] }> }).rules).filter((r) => r.verbs.includes('watch')).length,
      want: 0,
    },
    {
      rule: 'cronJobs.resources.<function> is merged over operator.resources for that function only',
      set: ['cronJobs.resources={"drainer":{"limits":{"memory":"1Gi"}},"reaper":{"requests":{"cpu":"10m"}}}', 'operator.resources={"requests":{"cpu":"50m","memory":"64Mi"},"limits":{"memory":"256Mi"}}'],
      pick: (o) => FUNCTIONS.map((fn) => [fn, pod(o, `kmaint-${fn}`).spec.containers[0]?.resources]),
      want: [
        ['scheduler', { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } }],
        ['drainer', { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '1Gi' } }],
        ['cleanup', { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } }],
        ['reaper', { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '256Mi' } }],
      ],
    },
    {
      rule: 'operatorConfig.logLevel is the config\'s and the passes\' (KMAINT_LOG_LEVEL, which kmaint\'s --log-level defaults to)',
      set: ['operatorConfig.logLevel="debug"'],
      pick: (o) => [o.find((x) => x.kind === 'MaintenanceOperatorConfig')?.spec?.['logLevel'], FUNCTIONS.map((fn) => (pod(o, `kmaint-${fn}`).spec.containers[0] as unknown as { env: Array<{ name: string; value?: string }> }).env.find((e) => e.name === 'KMAINT_LOG_LEVEL')?.value)],
      want: ['debug', ['debug', 'debug', 'debug', 'debug']],
    },
  ])('$rule', async ({ set, pick, want }) => {
    expect(pick(await render(set))).toEqual(want);
  });

  // Each row: --set-json values, and the one-line reason helm stops with (exit 1, nothing rendered).
  it.each<{ rule: string; set: string[]; message: string }>([
    {
      rule: 'no image repository (the default values): no silent kmaint:<tag> that no node can pull',
      set: [],
      message: failed('cronjobs.yaml:74:24', 'operator.image.repository is not set: set it to the registry path holding kmaint\'s image (the image is <repository>/<name>:<tag>), e.g. --set operator.image.repository=registry.example.com'),
    },
    {
      rule: 'the NVIDIA operator\'s repository, which there is the whole image path',
      set: ['operator.image.repository="ghcr.io/mellanox/maintenance-operator"'],
      message: failed('cronjobs.yaml:74:24', 'operator.image.repository ghcr.io/mellanox/maintenance-operator is the NVIDIA maintenance operator\'s image: in kmaint it is the registry path in front of operator.image.name (kmaint); set it to where kmaint\'s image is'),
    },
    {
      rule: 'the NVIDIA operator\'s operator.replicas',
      set: [`operator.image.repository="${REPOSITORY}"`, 'operator.replicas=1'],
      message: failed('cronjobs.yaml:5:4', 'operator.replicas (the NVIDIA operator\'s Deployment): kmaint runs CronJobs, not a Deployment; use cronJobs.functions and cronJobs.schedule; remove it from the values'),
    },
    {
      rule: 'the NVIDIA operator\'s operator.admissionController',
      set: [`operator.image.repository="${REPOSITORY}"`, 'operator.admissionController={"enable":true}'],
      message: failed('cronjobs.yaml:5:4', 'operator.admissionController (the NVIDIA operator\'s webhook): kmaint checks requests with a ValidatingAdmissionPolicy; use admissionPolicy.enabled; remove it from the values'),
    },
    {
      rule: 'the NVIDIA operator\'s webhookService',
      set: [`operator.image.repository="${REPOSITORY}"`, 'webhookService={"type":"ClusterIP"}'],
      message: failed('cronjobs.yaml:5:4', 'webhookService (the NVIDIA operator\'s webhook Service): kmaint has no webhook; use admissionPolicy.enabled; remove it from the values'),
    },
    {
      rule: 'the NVIDIA operator\'s metricsService',
      set: [`operator.image.repository="${REPOSITORY}"`, 'metricsService={"type":"ClusterIP"}'],
      message: failed('cronjobs.yaml:5:4', 'metricsService (the NVIDIA operator\'s metrics Service): kmaint\'s passes push their metrics; use metrics.pushgatewayUrl and metrics.prometheusRule; remove it from the values'),
    },
    {
      rule: 'all beside other functions (each would run twice)',
      set: [`operator.image.repository="${REPOSITORY}"`, 'cronJobs.functions=["all","drainer"]'],
      message: failed('cronjobs.yaml:5:4', 'cronJobs.functions ["all","drainer"]: all runs every function in one CronJob; list it alone ([all]) or list the functions'),
    },
  ])('refuses $rule', async ({ set, message }) => {
    const r = await template(set);
    expect([r.code, r.stdout, r.stderr.trim()]).toEqual([1, '', message]);
  });
});

describe.skipIf(!HELM_BUILT)('the chart\'s kubeVersion', () => {
  it('renders for Kubernetes 1.30 (ValidatingAdmissionPolicy v1 is GA there) and refuses 1.29 with Helm\'s message', async () => {
    const set = ['--set', `operator.image.repository=${REPOSITORY}`];
    const [v130, v129] = await Promise.all(['1.30.0', '1.29.15'].map((v) => helm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', v, ...set])));
    expect([v130?.code, v130?.stderr]).toEqual([0, '']);
    expect(parsed(v130?.stdout ?? '').filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy')).map((o) => o.apiVersion)).toEqual(['admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1']);
    expect([v129?.code, v129?.stderr.trim()]).toEqual([1, 'Error: chart requires kubeVersion: >= 1.30.0-0 which is incompatible with Kubernetes v1.29.15\n\nUse --debug flag to render out invalid YAML']);
  });
});
