// `kmaint leftovers` and the objects kmaint creates outside its own kinds (issues 43-45), on the testbed's real control
// plane. A validation that failed, by kmaint's own passes (spec.validation, the simulated kubelet ending the pod with
// exit code 1): its kept Job, the node's validation.kmaint.io/ records and KmaintValidationFailed, and the cordon it
// keeps. A reboot Job (the simulated kubelet reboots its node, the Job completes) and a DeviceTaintRule tainting a GPU
// the simulated DRA driver publishes, written by kmaint's own write path (applyActions with kmaint's createRebootJob and
// createDeviceTaintRule actions: the manifests kmaint posts), as an uninstall in the middle of their requests leaves
// them. Beside them, look-alikes someone else made (kmaint's name without its labels, its label on another name). The
// command lists exactly kmaint's; --fix, run as the chart's pre-delete hook's ServiceAccount with that hook's RBAC only
// (devices.enabled), deletes the Jobs (their pods with them) and the rule, drops the records and the condition, keeps
// the failed node's cordon and every look-alike.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import type { Action } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { applyActions } from '../shared/pass/index.ts';
import { helmBinary, helmIsCurrent, runHelm } from '../testbed/helm.ts';
import { adminKubeConfig, kubectl, testbed, tokenKubeConfig, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, driveUntil, generalNodes, getNM, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { runKmaint } from './support/kmaint-cli.ts';

const ns = `lj-${randomBytes(3).toString('hex')}`;
const RELEASE = 'klj';
const HOOK_SA = `${RELEASE}-kmaint-leftovers`;
const UID_REBOOT = 'f00d0001-0000-4000-8000-000000000001';
const UID_OTHER = 'f00d0002-0000-4000-8000-000000000002';
const UID_DEVICE = 'f00d0003-0000-4000-8000-000000000003';
const RULES = { group: 'resource.k8s.io', version: 'v1alpha3', plural: 'devicetaintrules' };
const LOOKALIKE_JOBS = [`kmaint-reboot-${UID_OTHER}`, `kmaint-validate-${UID_REBOOT}`];
const LOOKALIKE_RULES = ['gpu-burn-in', `kmaint-device-${UID_REBOOT}-0`];

const batch = (): BatchV1Api => adminKubeConfig().makeApiClient(BatchV1Api);

async function jobState(name: string): Promise<string | undefined> {
  const job = await batch().readNamespacedJob({ namespace: KMAINT_NS, name }).catch(() => undefined);
  return job?.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;
}

/** The Jobs of kmaint's namespace not being deleted, and the pods of kmaint's two, by name. */
async function jobsLeft(): Promise<{ jobs: string[]; pods: string[] }> {
  const jobs = (await batch().listNamespacedJob({ namespace: KMAINT_NS })).items.filter((j) => j.metadata?.deletionTimestamp === undefined).map((j) => j.metadata?.name ?? '');
  const pods = (await admin().core.listNamespacedPod({ namespace: KMAINT_NS, labelSelector: 'batch.kubernetes.io/job-name' })).items.map((p) => p.metadata?.labels?.['batch.kubernetes.io/job-name'] ?? '');
  return { jobs: jobs.filter((n) => n.startsWith('kmaint-')).sort(), pods: [...new Set(pods.filter((n) => n.startsWith('kmaint-')))].sort() };
}

async function rulesLeft(): Promise<string[]> {
  const list = (await admin().custom.listClusterCustomObject(RULES)) as { items: Array<{ metadata: { name: string } }> };
  return list.items.map((r) => r.metadata.name).sort();
}

/** A GPU of the simulated DRA driver: its node, pool and device name, from the ResourceSlices. */
async function aGpu(): Promise<{ node: string; pool: string; device: string }> {
  const slices = (await admin().custom.listClusterCustomObject({ group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices' })) as { items: Array<{ spec: { driver: string; nodeName?: string; pool: { name: string }; devices?: Array<{ name: string }> } }> };
  const slice = slices.items.find((s) => s.spec.driver === 'gpu.nvidia.com' && (s.spec.devices?.length ?? 0) > 0);
  if (slice === undefined) throw new Error('the testbed publishes no gpu.nvidia.com ResourceSlice');
  return { node: slice.spec.nodeName ?? '', pool: slice.spec.pool.name, device: slice.spec.devices?.[0]?.name ?? '' };
}

/** A Job someone else made: kmaint's name form, not kmaint's labels (it runs as any Job's pod does). */
function lookalikeJob(name: string, node: string): V1Job {
  const labels = { 'app.kubernetes.io/name': 'kmaint', 'app.kubernetes.io/component': 'burn-in' };
  return {
    metadata: { name, labels },
    spec: { backoffLimit: 0, template: { metadata: { labels, annotations: { 'kmaint.io/sim-run-seconds': '1' } }, spec: { nodeName: node, restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example/burn-in:1' }] } } },
  };
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) process.stderr.write(`[test/leftovers-jobs] NOT RUN: needs helm (${helmBinary()}) for the hook's RBAC: npm run testbed:build builds it; counted as skipped\n`);

/** What kmaint may have left on the node: the cordon, its kmaint.io/ and validation.kmaint.io/ records, KmaintValidationFailed. */
async function onNode(name: string): Promise<{ unschedulable: boolean; records: string[]; condition: boolean }> {
  const n = await admin().core.readNode({ name });
  return {
    unschedulable: n.spec?.unschedulable === true,
    records: Object.keys(n.metadata?.annotations ?? {}).filter((k) => k.startsWith('validation.kmaint.io/') || k.startsWith('kmaint.io/')).sort(),
    condition: (n.status?.conditions ?? []).some((c) => c.type === 'KmaintValidationFailed'),
  };
}

describe.skipIf(!HELM_BUILT)("kmaint leftovers: kmaint's reboot Job, kept validation Job and DeviceTaintRule (testbed)", () => {
  let validateNode = '';
  let validateJob = '';

  afterAll(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
    const jobs = [`kmaint-reboot-${UID_REBOOT}`, ...(validateJob !== '' ? [validateJob] : []), ...LOOKALIKE_JOBS];
    await kubectl(['delete', 'job', '-n', KMAINT_NS, ...jobs, '--ignore-not-found', '--cascade=background']);
    // A run that failed before --fix: what the failed validation left on its node.
    if (validateNode !== '') {
      const left = await onNode(validateNode);
      if (left.records.length > 0) await kubectl(['annotate', 'node', validateNode, ...left.records.map((k) => `${k}-`)]);
      const at = ((await admin().core.readNode({ name: validateNode })).status?.conditions ?? []).findIndex((c) => c.type === 'KmaintValidationFailed');
      if (at >= 0) await kubectl(['patch', 'node', validateNode, '--subresource=status', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: `/status/conditions/${at}` }])]);
      await setUnschedulable(validateNode, false);
    }
    await kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    await kubectl(['delete', 'devicetaintrules.resource.k8s.io', `kmaint-device-${UID_DEVICE}-0`, ...LOOKALIKE_RULES, '--ignore-not-found']);
    await kubectl(['delete', 'clusterrole,clusterrolebinding,role,rolebinding,serviceaccount', '-n', KMAINT_NS, '-l', `app.kubernetes.io/instance=${RELEASE}`, '--ignore-not-found']);
  });

  it("lists exactly kmaint's Jobs, rule, records and condition; --fix as the hook removes them (the Jobs' pods too), keeps the failed node's cordon and every look-alike", async () => {
    const general = await generalNodes();
    const rebootNode = general[0] ?? '';
    validateNode = general[1] ?? '';
    const gpu = await aGpu();

    // A release whose validation fails, by kmaint's passes: the node stays cordoned, the Job is kept for its logs.
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    await setConfig({ validation: { job: { image: 'registry.example/validate:1', command: ['dcgmi', 'diag', '-r', '3'], env: [{ name: 'KMAINT_SIM_EXIT_CODE', value: '1' }, { name: 'KMAINT_SIM_RUN_SECONDS', value: '1' }] } } });
    await createNM(ns, 'drv', { requestorID: 'validation.example.com', nodeName: validateNode });
    const ready = await driveUntil(`${ns}/drv Ready`, async () => {
      const nm = await getNM(ns, 'drv');
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    }, 120_000);
    validateJob = `kmaint-validate-${ready.metadata.uid ?? ''}`;
    await deleteNM(ns, 'drv');
    await driveUntil(`${ns}/drv released after its failed validation`, async () => ((await getNM(ns, 'drv')) === undefined ? true : undefined), 120_000);
    expect(await onNode(validateNode)).toEqual({ unschedulable: true, records: ['kmaint.io/admitted', 'validation.kmaint.io/cordoned-by', 'validation.kmaint.io/for', 'validation.kmaint.io/job', 'validation.kmaint.io/outcome'], condition: true });

    const client = new KubeClient(adminKubeConfig());
    const ref = (name: string) => ({ namespace: 'team', name, resourceVersion: '' });
    const actions: Action[] = [
      { kind: 'createRebootJob', job: { namespace: KMAINT_NS, name: `kmaint-reboot-${UID_REBOOT}`, nodeName: rebootNode, image: 'docker.io/library/debian:bookworm-slim', command: ['systemctl', 'reboot'], privileged: true, hostPID: true, request: 'team/fw' }, maintenance: ref('fw'), reason: 'test' },
      { kind: 'createDeviceTaintRule', rule: { name: `kmaint-device-${UID_DEVICE}-0`, device: { driver: 'gpu.nvidia.com', pool: gpu.pool, device: gpu.device }, request: 'team/gpu' }, maintenance: ref('gpu'), reason: 'test' },
    ];
    const applied = await applyActions(actions, { client, maintenances: new Map(), now: new Date(), component: 'kmaint-drainer', namespace: KMAINT_NS });
    expect([applied.errors, applied.blocked]).toEqual([[], []]);
    for (const name of LOOKALIKE_JOBS) await batch().createNamespacedJob({ namespace: KMAINT_NS, body: lookalikeJob(name, validateNode) });
    for (const [name, labels] of [[LOOKALIKE_RULES[0], { 'kmaint.io/device-maintenance': 'true' }], [LOOKALIKE_RULES[1], {}]] as const) {
      await admin().custom.createClusterCustomObject({ ...RULES, body: { apiVersion: 'resource.k8s.io/v1alpha3', kind: 'DeviceTaintRule', metadata: { name, labels }, spec: { deviceSelector: { driver: 'gpu.nvidia.com', pool: gpu.pool, device: gpu.device }, taint: { key: 'example.com/burn-in', effect: 'NoSchedule' } } } });
    }
    // The reboot ran (the simulated kubelet rebooted the node) and the validation failed: what the uninstall left.
    await waitFor('the reboot Job Complete and the validation Job Failed', async () => ((await jobState(`kmaint-reboot-${UID_REBOOT}`)) === 'Complete' && (await jobState(validateJob)) === 'Failed' ? true : undefined), 90_000, 250);

    const kubeconfig = ['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', KMAINT_NS];
    const listed = await runKmaint([...kubeconfig, 'leftovers', '--no-headers'], 60_000);
    expect([listed.code, listed.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/))]).toEqual([
      1,
      [
        [`DeviceTaintRule/kmaint-device-${UID_DEVICE}-0`, 'device taint', 'kmaint', `team/gpu on gpu.nvidia.com/${gpu.pool}/${gpu.device}`],
        [`Job/${KMAINT_NS}/kmaint-reboot-${UID_REBOOT}`, 'reboot Job', 'kmaint', `team/fw on node ${rebootNode} (Complete)`],
        [`Job/${KMAINT_NS}/${validateJob}`, 'validation Job', 'kmaint', `${ns}/drv on node ${validateNode} (Failed)`],
        // The admission record stays with the cordon the failed validation keeps.
        [`Node/${validateNode}`, 'kmaint.io/admitted', 'kmaint', `${ns}/drv/${ready.metadata.uid ?? ''}`],
        [`Node/${validateNode}`, 'validation.kmaint.io/job', 'kmaint', `${KMAINT_NS}/${validateJob}`],
        [`Node/${validateNode}`, 'validation.kmaint.io/for', 'kmaint', `${ns}/drv/${ready.metadata.uid ?? ''}`],
        [`Node/${validateNode}`, 'validation.kmaint.io/outcome', 'kmaint', 'Failed'],
        [`Node/${validateNode}`, 'validation.kmaint.io/cordoned-by', 'kmaint', `kmaint/${ns}/drv`],
        [`Node/${validateNode}`, 'condition KmaintValidationFailed', 'kmaint', 'True'],
      ],
    ]);

    // --fix with the hook's rights only (devices.enabled: the DeviceTaintRule rights; the Jobs' in the namespace).
    const hook = await runHelm(['--kubeconfig', testbed().kubeconfigPath, 'template', RELEASE, 'charts/kmaint', '-n', KMAINT_NS, '--set', 'operator.image.repository=registry.example.com', '--set', 'leftoversHook.enabled=true', '--set', 'devices.enabled=true', '--show-only', 'templates/leftovers-hook.yaml'], { home: join(testbed().dir, 'helm-home-leftovers-jobs') });
    expect([hook.code, hook.stderr]).toEqual([0, '']);
    const rbac = parseAllDocuments(hook.stdout).map((d) => d.toJS() as { kind: string } | null).filter((o): o is { kind: string } => o !== null && o.kind !== 'Job');
    expect((await kubectl(['apply', '-f', '-'], { input: rbac.map((o) => stringify(o)).join('---\n') })).code).toBe(0);
    const token = await kubectl(['create', 'token', HOOK_SA, '-n', KMAINT_NS, '--duration', '10m']);
    const hookKubeconfig = join(testbed().dir, 'kubeconfig-leftovers-jobs-hook');
    writeFileSync(hookKubeconfig, tokenKubeConfig(token.stdout.trim(), HOOK_SA).exportConfig(), { mode: 0o600 });
    const fixed = await runKmaint(['--kubeconfig', hookKubeconfig, '--kmaint-namespace', KMAINT_NS, 'leftovers', '--fix'], 60_000);
    expect([fixed.code, fixed.stdout, fixed.stderr.split('\n').filter((l) => l.startsWith('fix: delete') || l.startsWith('not fixed') || l.includes('still left'))]).toEqual([
      0,
      '',
      [
        `fix: delete reboot Job ${KMAINT_NS}/kmaint-reboot-${UID_REBOOT}: kmaint's reboot Job for team/fw, with no kmaint to delete it`,
        `fix: delete validation Job ${KMAINT_NS}/${validateJob}: kmaint's validation Job for ${ns}/drv, with no kmaint to delete it`,
        `fix: delete DeviceTaintRule kmaint-device-${UID_DEVICE}-0: kmaint's device taint for team/gpu, with no kmaint to lift it`,
      ],
    ]);
    // The failed node: records and condition gone, its cordon kept (the node failed; an administrator lifts it).
    expect(await onNode(validateNode)).toEqual({ unschedulable: true, records: [], condition: false });
    // Background propagation: the garbage collector takes the Jobs' pods after them.
    expect(await waitFor("kmaint's Jobs' pods gone", async () => {
      const left = await jobsLeft();
      return left.pods.every((p) => LOOKALIKE_JOBS.includes(p)) ? left : undefined;
    }, 60_000)).toEqual({ jobs: [...LOOKALIKE_JOBS].sort(), pods: [...LOOKALIKE_JOBS].sort() });
    expect(await rulesLeft()).toEqual([...LOOKALIKE_RULES].sort());
    const again = await runKmaint([...kubeconfig, 'leftovers'], 60_000);
    expect([again.code, again.stdout]).toEqual([0, '']);
    await setUnschedulable(validateNode, false);
    // The rebooted node back in service, as the testbed's next file expects it.
    await waitFor(`${rebootNode} Ready after its reboot`, async () => ((await admin().core.readNode({ name: rebootNode })).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? true : undefined), 60_000);
  });
});
