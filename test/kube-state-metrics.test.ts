// Issue 42 point 3 on the testbed: the request view without a Pushgateway. A real kube-state-metrics (the version pinned
// in testbed/peers/kube-state-metrics/go.mod, built from its Go module by testbed/peers/build-kube-state-metrics.ts;
// nothing of it committed) runs as a process against the testbed's API server with the chart's custom-resource-state
// config and ClusterRole, rendered by `helm template` and bound to a ServiceAccount of its own (so the chart's rules are
// what it reads with). Its /metrics exports a request's info, phase, conditions and creation time, line for line, and
// follows the phase as kmaint's scheduler pass moves it, and the drainer's to Rebooting (issue 43).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeconfigYaml } from '../testbed/certs.ts';
import { helmBinary, helmIsCurrent, runHelm } from '../testbed/helm.ts';
import { ksmBuildHint, ksmIsBuilt, pinnedKsmVersion } from '../testbed/peers/build-kube-state-metrics.ts';
import { freePort, startComponent, stopPid, waitUntilReady, type RunningComponent } from '../testbed/processes.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { ANNOTATION_REBOOT } from '../shared/api/index.ts';
import { admin, createNM, generalNodes, getNM, installCrds, pass, patchNM, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';

const ns = `ksm-${randomBytes(3).toString('hex')}`;
const RELEASE = `ksm-${randomBytes(3).toString('hex')}`;
/** The chart's objects for kube-state-metrics are named <release>-kmaint-kube-state-metrics. */
const KSM_NAME = `${RELEASE}-kmaint-kube-state-metrics`;
const SA = 'kube-state-metrics';
const NAME = 'firmware';
const REQUESTOR = 'firmware.example.com';
const PREFIX = 'kmaint_nodemaintenance_';

const binary = ksmIsBuilt();
const HELM_BUILT = helmIsCurrent();
if (!binary || !HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(
    `[test/kube-state-metrics] NOT RUN: needs ${[!binary ? `kube-state-metrics ${pinnedKsmVersion()} built in ~/.cache/kmaint-testbed/peers (${ksmBuildHint()})` : '', !HELM_BUILT ? `helm (${helmBinary()}; npm run testbed:build)` : ''].filter(Boolean).join(' and ')}; counted as skipped\n`,
  );
}

interface Obj {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
}

/** The chart's kube-state-metrics objects, as a user who points their own kube-state-metrics (ServiceAccount SA in ns) at them renders them. */
async function renderChart(): Promise<Obj[]> {
  const r = await runHelm([
    'template', RELEASE, 'charts/kmaint', '--namespace', ns, '--kube-version', '1.35.4', '--show-only', 'templates/kube-state-metrics.yaml',
    '--set', 'operator.image.repository=registry.example.com', '--set', 'metrics.kubeStateMetrics.enabled=true', '--set', `metrics.kubeStateMetrics.serviceAccount.name=${SA}`,
  ]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj | null).filter((o): o is Obj => o !== null);
}

/** The lines of kube-state-metrics' /metrics for the request (its namespace label), sample lines only, in its order. */
async function requestLines(url: string): Promise<string[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(PREFIX) && l.includes(`namespace="${ns}"`));
}

describe.skipIf(!binary || !HELM_BUILT)('kube-state-metrics with the chart\'s custom-resource-state config, on the testbed', () => {
  let ksm: RunningComponent | undefined;
  let url = '';
  let node = '';

  beforeAll(async () => {
    await installCrds();
    // 0 admits nothing: the first scheduler pass leaves the request Pending; the test raises it to 1 to admit it.
    await setConfig({ maxParallelOperations: 0 });
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    node = (await generalNodes())[0] ?? '';
    const objs = await renderChart();
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([`ConfigMap/${KSM_NAME}`, `ClusterRole/${KSM_NAME}`, `ClusterRoleBinding/${KSM_NAME}`]);
    const tb = testbed();
    const config = join(tb.dir, `${ns}-ksm-config.yaml`);
    writeFileSync(config, objs[0]?.data?.['config.yaml'] ?? '');
    for (const args of [['create', 'serviceaccount', SA, '-n', ns], ['apply', '-f', '-']]) {
      const r = await kubectl(args, args[0] === 'apply' ? { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs.slice(1) }) } : {});
      expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 0, '']);
    }
    const token = await kubectl(['create', 'token', SA, '-n', ns, '--duration', '1h']);
    expect(token.code).toBe(0);
    const kubeconfig = join(tb.dir, `kubeconfig-${SA}-${ns}`);
    writeFileSync(kubeconfig, kubeconfigYaml({ server: tb.server, caFile: tb.caFile, token: token.stdout.trim(), user: SA }), { mode: 0o600 });
    const [port, telemetry] = [await freePort(), await freePort()];
    url = `http://127.0.0.1:${port}`;
    ksm = startComponent('kube-state-metrics', binary ?? '', [
      `--kubeconfig=${kubeconfig}`, '--custom-resource-state-only', `--custom-resource-state-config-file=${config}`,
      '--host=127.0.0.1', `--port=${port}`, '--telemetry-host=127.0.0.1', `--telemetry-port=${telemetry}`,
    ], join(tb.dir, `kube-state-metrics-${ns}.log`));
    await waitUntilReady(ksm, async () => (await fetch(`http://127.0.0.1:${telemetry}/readyz`)).ok, 30_000);
  }, 120_000);

  afterAll(async () => {
    if (ksm) await stopPid(ksm.pid);
    await removeAllNMs(ns);
    await setConfig(undefined);
    await kubectl(['delete', 'clusterrolebinding,clusterrole', KSM_NAME, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
  }, 120_000);

  it('exports the request\'s info, creation time, conditions and phase, and follows the phase a scheduler pass moves, and the drainer to Rebooting', async () => {
    const created = await createNM(ns, NAME, { requestorID: REQUESTOR, nodeName: node });
    // The labels every series of the request carries; kube-state-metrics writes a line's labels sorted by name.
    const base: Record<string, string> = {
      customresource_group: 'maintenance.nvidia.com', customresource_kind: 'NodeMaintenance', customresource_version: 'v1alpha1',
      name: NAME, namespace: ns, node, requestor: REQUESTOR,
    };
    const line = (metric: string, extra: Record<string, string>, value: string | number): string =>
      `${PREFIX}${metric}{${Object.entries({ ...base, ...extra }).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}="${v}"`).join(',')}} ${value}`;
    // kube-state-metrics writes values as Go's strconv.FormatFloat(v, 'g', -1, 64): a Unix time in seconds has ten
    // digits, so it comes as e.g. 1.79618201e+09.
    const createdAt = (Date.parse(created.metadata.creationTimestamp ?? '') / 1000).toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
    const always = [line('info', { uid: created.metadata.uid ?? '' }, 1), line('created', {}, createdAt)];
    const phaseLines = (phase: string): string[] =>
      ['Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Rebooting', 'Ready', 'RequestorFailed'].map((p) => line('phase', { phase: p }, p === phase ? 1 : 0));
    /** Waits until kube-state-metrics' lines for the request are `want` (its watch delivers each change). */
    const exported = (want: string[], what: string): Promise<string[]> =>
      waitFor(what, async () => {
        const lines = await requestLines(url);
        return JSON.stringify([...lines].sort()) === JSON.stringify([...want].sort()) ? lines : undefined;
      }, 30_000, 200).catch(async (err: unknown) => {
        // The exact difference, not only the timeout.
        expect((await requestLines(url)).sort()).toEqual([...want].sort());
        throw err;
      });

    // New: no Ready condition yet, so no phase and no condition series.
    await exported(always, 'the new request exported');

    await pass('scheduler');
    expect(phaseOf(await getNM(ns, NAME))).toBe('Pending');
    // kmaint.io/Waiting beside Ready names the gate (maxParallelOperations 0): a query can find what a request waits on.
    const pending = await exported([
      ...always,
      line('condition', { reason: 'Pending', type: 'Ready' }, 0),
      line('condition', { reason: 'Parallel', type: 'kmaint.io/Waiting' }, 1),
      ...phaseLines('Pending'),
    ], 'the Pending request exported');
    // The line a PromQL query such as kmaint_nodemaintenance_phase{phase="Pending"} == 1 finds, written out once.
    expect(pending).toContain(
      `kmaint_nodemaintenance_phase{customresource_group="maintenance.nvidia.com",customresource_kind="NodeMaintenance",customresource_version="v1alpha1",name="firmware",namespace="${ns}",node="${node}",phase="Pending",requestor="firmware.example.com"} 1`,
    );

    // Admitted: the write that says Scheduled ends kmaint.io/Waiting, and its series goes.
    await setConfig({ maxParallelOperations: 1 });
    await pass('scheduler');
    expect(phaseOf(await getNM(ns, NAME))).toBe('Scheduled');
    await exported([
      ...always,
      line('condition', { reason: 'Scheduled', type: 'Ready' }, 0),
      ...phaseLines('Scheduled'),
    ], 'the Scheduled request exported');

    // Issue 43: a request that asks for a reboot is Rebooting once drained (its Job issued; no pass runs after it, so it
    // stays there), and kube-state-metrics says so as for any other phase.
    await patchNM(ns, NAME, { metadata: { annotations: { [ANNOTATION_REBOOT]: 'true' } } });
    await waitFor('the request Rebooting', async () => {
      await pass('drainer');
      return phaseOf(await getNM(ns, NAME)) === 'Rebooting' ? true : undefined;
    }, 60_000, 200);
    await exported([
      ...always,
      line('condition', { reason: 'Rebooting', type: 'Ready' }, 0),
      ...phaseLines('Rebooting'),
    ], 'the Rebooting request exported');

    // Deleted (kmaint's cleanup removes its finalizer): its series go with it.
    await removeAllNMs(ns);
    await exported([], 'the deleted request\'s series gone');
  });
});
