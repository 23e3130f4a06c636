// The chart's monitoring for a Prometheus Operator user (issue 42 point 3) with a real helm (testbed/helm.ts): the
// kube-state-metrics config and rights for the request view, kmaint's own kube-state-metrics with a ServiceMonitor only
// where the Prometheus Operator's API is served, and a runbook page behind every alert. test/kube-state-metrics.test.ts
// runs the config in a real kube-state-metrics on the testbed.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { Phase, PHASE_REBOOTING } from '../shared/api/index.ts';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';

const CHART = 'charts/kmaint';
const KUBE_VERSION = '1.35.4';
const SERVICE_MONITOR_API = 'monitoring.coreos.com/v1/ServiceMonitor';
const KSM = 'kmaint-kube-state-metrics';
const CONFIG_FILE = 'charts/kmaint/files/kube-state-metrics.yaml';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  rules?: unknown;
  subjects?: unknown;
  spec?: Record<string, unknown>;
}

interface CrsConfig {
  spec: { resources: Array<{ groupVersionKind: unknown; labelsFromPath: Record<string, string[]>; metrics: Array<{ name: string; each: { type: string; stateSet?: { path: string[]; list: string[] } } }> }> };
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/monitoring] NOT RUN: the monitoring chart tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

/** `helm template` as release kmaint in namespace kmaint, with --set-json pairs and extra helm arguments. */
function template(set: string[], extra: string[] = []): Promise<HelmResult> {
  return runHelm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', KUBE_VERSION, '--set', 'operator.image.repository=registry.example.com', ...set.flatMap((s) => ['--set-json', s]), ...extra]);
}

async function render(set: string[], extra: string[] = []): Promise<Obj[]> {
  const r = await template(set, extra);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj | null).filter((o): o is Obj => o !== null);
}

const ksmObjects = (objs: Obj[]): string[] => objs.filter((o) => o.metadata.name === KSM).map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`);

describe('the kube-state-metrics config of the chart (files/kube-state-metrics.yaml)', () => {
  const config = parse(readFileSync(CONFIG_FILE, 'utf8')) as CrsConfig;
  const resource = config.spec.resources[0];

  it('reads NodeMaintenance of maintenance.nvidia.com/v1alpha1, with namespace, name, node and requestor on every series', () => {
    expect(config.spec.resources.length).toBe(1);
    expect(resource?.groupVersionKind).toEqual({ group: 'maintenance.nvidia.com', version: 'v1alpha1', kind: 'NodeMaintenance' });
    expect(resource?.labelsFromPath).toEqual({ namespace: ['metadata', 'namespace'], name: ['metadata', 'name'], node: ['spec', 'nodeName'], requestor: ['spec', 'requestorID'] });
    expect(resource?.metrics.map((m) => [m.name, m.each.type])).toEqual([['info', 'Info'], ['phase', 'StateSet'], ['condition', 'Gauge'], ['created', 'Gauge']]);
  });

  it('lists every phase kmaint writes as the Ready condition\'s reason (shared/api Phase, and Rebooting after Draining: issue 43), in the state machine\'s order', () => {
    const phase = resource?.metrics.find((m) => m.name === 'phase')?.each.stateSet;
    const list = [Phase.Pending, Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining, PHASE_REBOOTING, Phase.Ready, Phase.RequestorFailed];
    expect(Object.values(Phase).filter((p) => !list.includes(p))).toEqual([]);
    expect(phase).toEqual({ labelName: 'phase', path: ['status', 'conditions', '[type=Ready]', 'reason'], list });
  });
});

describe.skipIf(!HELM_BUILT)('helm template: the request view from kube-state-metrics', () => {
  it('renders nothing of it by default', async () => {
    expect(ksmObjects(await render([]))).toEqual([]);
  });

  it('enabled: the ConfigMap holding files/kube-state-metrics.yaml as config.yaml and the ClusterRole reading the requests; no binding without a ServiceAccount', async () => {
    const objs = await render(['metrics.kubeStateMetrics.enabled=true']);
    expect(ksmObjects(objs)).toEqual(['ConfigMap/kmaint', 'ClusterRole/']);
    expect(objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === KSM)?.data).toEqual({ 'config.yaml': readFileSync(CONFIG_FILE, 'utf8') });
    expect(objs.find((o) => o.kind === 'ClusterRole' && o.metadata.name === KSM)?.rules).toEqual([
      { apiGroups: ['maintenance.nvidia.com'], resources: ['nodemaintenances'], verbs: ['list', 'watch'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
    ]);
  });

  it('enabled with your kube-state-metrics\' namespace and ServiceAccount: the ConfigMap there and the ClusterRole bound to it; no ServiceMonitor (you scrape your own)', async () => {
    const objs = await render(['metrics.kubeStateMetrics={"enabled":true,"namespace":"monitoring","serviceAccount":{"name":"kps-kube-state-metrics"}}'], ['--api-versions', SERVICE_MONITOR_API]);
    expect(ksmObjects(objs)).toEqual(['ConfigMap/monitoring', 'ClusterRole/', 'ClusterRoleBinding/']);
    expect(objs.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === KSM)?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'kps-kube-state-metrics', namespace: 'monitoring' }]);
  });

  it('deploy: kmaint\'s own kube-state-metrics (only the config\'s metrics) and its Service; the ServiceMonitor only where monitoring.coreos.com/v1 (or its ServiceMonitor) is served', async () => {
    const set = ['metrics.kubeStateMetrics={"enabled":true,"deploy":{"enabled":true}}'];
    const [without, withApi, withGroupVersion, monitorOff] = await Promise.all([
      render(set),
      render([...set, 'metrics.kubeStateMetrics.serviceMonitor.labels={"release":"kps"}', 'metrics.kubeStateMetrics.serviceMonitor.interval="30s"'], ['--api-versions', SERVICE_MONITOR_API]),
      render(set, ['--api-versions', 'monitoring.coreos.com/v1']),
      render([...set, 'metrics.kubeStateMetrics.serviceMonitor.enabled=false'], ['--api-versions', SERVICE_MONITOR_API]),
    ]);
    expect(ksmObjects(without)).toEqual(['ServiceAccount/kmaint', 'ConfigMap/kmaint', 'ClusterRole/', 'ClusterRoleBinding/', 'Service/kmaint', 'Deployment/kmaint']);
    expect(ksmObjects(withApi)).toEqual(['ServiceAccount/kmaint', 'ConfigMap/kmaint', 'ClusterRole/', 'ClusterRoleBinding/', 'Service/kmaint', 'Deployment/kmaint', 'ServiceMonitor/kmaint']);
    expect(ksmObjects(withGroupVersion)).toEqual(ksmObjects(withApi));
    expect(ksmObjects(monitorOff)).toEqual(ksmObjects(without));
    expect(without.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === KSM)?.subjects).toEqual([{ kind: 'ServiceAccount', name: KSM, namespace: 'kmaint' }]);
    const deployment = without.find((o) => o.kind === 'Deployment' && o.metadata.name === KSM)?.spec as {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: { serviceAccountName: string; containers: Array<{ image: string; args: string[] }>; volumes: unknown } };
    };
    expect(deployment.template.spec.serviceAccountName).toBe(KSM);
    expect(deployment.template.spec.containers.map((c) => [c.image, c.args])).toEqual([[
      'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0',
      ['--custom-resource-state-only', '--custom-resource-state-config-file=/etc/kmaint-kube-state-metrics/config.yaml', '--port=8080', '--telemetry-port=8081'],
    ]]);
    expect(deployment.template.spec.volumes).toEqual([{ name: 'config', configMap: { name: KSM } }]);
    const selector = { 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/instance': 'kmaint', 'app.kubernetes.io/component': 'kube-state-metrics' };
    expect(deployment.selector.matchLabels).toEqual(selector);
    expect(deployment.template.metadata.labels).toMatchObject(selector);
    // No pass pod is selected by the Service: theirs carry their function as component.
    expect(without.find((o) => o.kind === 'Service' && o.metadata.name === KSM)?.spec).toEqual({ selector, ports: [{ name: 'http-metrics', port: 8080, targetPort: 'http-metrics' }] });
    const monitor = withApi.find((o) => o.kind === 'ServiceMonitor');
    expect([monitor?.apiVersion, monitor?.metadata.labels?.['release'], monitor?.spec]).toEqual([
      'monitoring.coreos.com/v1',
      'kps',
      { selector: { matchLabels: selector }, namespaceSelector: { matchNames: ['kmaint'] }, endpoints: [{ port: 'http-metrics', honorLabels: true, interval: '30s' }] },
    ]);
  });

  it('deploy: its pod runs as nobody (65534), non-root, with the runtime\'s seccomp profile; under openshift.enabled with no fixed uid', async () => {
    const set = ['metrics.kubeStateMetrics={"enabled":true,"deploy":{"enabled":true}}'];
    const podSecurity = (objs: Obj[]): unknown => (objs.find((o) => o.kind === 'Deployment' && o.metadata.name === KSM)?.spec as { template: { spec: { securityContext: unknown } } }).template.spec.securityContext;
    const [plain, openshift] = await Promise.all([render(set), render([...set, 'openshift.enabled=true'])]);
    expect(podSecurity(plain)).toEqual({ runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } });
    expect(podSecurity(openshift)).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  });

  it('refuses deploy without enabled, with a one-line reason', async () => {
    const r = await template(['metrics.kubeStateMetrics.deploy.enabled=true']);
    expect([r.code, r.stderr.trim()]).toEqual([
      1,
      'Error: execution error at (kmaint/templates/kube-state-metrics.yaml:9:4): metrics.kubeStateMetrics.deploy.enabled needs metrics.kubeStateMetrics.enabled=true (the config and the ClusterRole it runs with)\n\nUse --debug flag to render out invalid YAML',
    ]);
  });

  it('refuses a key it does not have under metrics.kubeStateMetrics (values.schema.json)', async () => {
    const r = await template(['metrics.kubeStateMetrics.image="x"']);
    expect([r.code, r.stderr.trim()]).toEqual([1, 'Error: values don\'t meet the specifications of the schema(s) in the following chart(s):\nkmaint:\n- at \'/metrics/kubeStateMetrics\': additional properties \'image\' not allowed']);
  });
});

describe.skipIf(!HELM_BUILT)('helm template: every alert has a runbook', () => {
  interface Rule { alert: string; annotations: Record<string, string> }
  const rules = async (set: string[]): Promise<Rule[]> => {
    const rule = (await render(['metrics.prometheusRule.enabled=true', ...set])).find((o) => o.kind === 'PrometheusRule');
    return (rule?.spec as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);
  };

  it('each runbook_url is docs/runbooks/<alert>.md, a page that exists, with metrics.prometheusRule.runbookBaseUrl in front when set', async () => {
    const [plain, based] = await Promise.all([rules([]), rules(['metrics.prometheusRule.runbookBaseUrl="https://git.example.com/platform/kmaint/blob/v0.1.0/"'])]);
    expect(plain.map((r) => r.annotations['runbook_url'])).toEqual(plain.map((r) => `docs/runbooks/${r.alert}.md`));
    expect(plain.map((r) => existsSync(r.annotations['runbook_url'] ?? ''))).toEqual(plain.map(() => true));
    expect(plain.length).toBe(4);
    expect(based.map((r) => r.annotations['runbook_url'])).toEqual(plain.map((r) => `https://git.example.com/platform/kmaint/blob/v0.1.0/docs/runbooks/${r.alert}.md`));
  });

  it('each runbook page names its alert in its title and says how to look (kmaint explain or status) and what to do', () => {
    const alerts = (parse(readFileSync('infra/alerts/prometheusrule.yaml', 'utf8')) as { spec: { groups: Array<{ rules: Rule[] }> } }).spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    for (const alert of alerts) {
      const page = readFileSync(`docs/runbooks/${alert}.md`, 'utf8');
      expect([alert, page.split('\n')[0]]).toEqual([alert, `# ${alert}`]);
      expect([alert, ['## What it means', '## How to look', '## What to do'].filter((h) => !page.includes(`\n${h}\n`))]).toEqual([alert, []]);
      expect([alert, /kmaint (explain|status)/.test(page)]).toEqual([alert, true]);
    }
  });
});
