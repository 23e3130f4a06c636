// The Helm chart on the testbed, one release through its life: install over the upstream operator's CRDs (stopped,
// named fix, then installed with kmaint's CRDs in force), never starved (every worker cordoned and the control-plane
// node full: the CronJobs' pods are still bound), a Job stuck on a dead node does not hold back the next tick, upgrade
// over re-replaced CRDs, uninstall. The pods ask for the simulated run (kmaint.io/sim-run-seconds), so the simulated
// kubelet does not run kmaint's containers here: binding is asserted, not what the passes do (test/helm-pods.test.ts
// runs them).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchV1Api, type V1CronJob, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { crdSchemaDigest } from '../charts/crd-schema.ts';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { adminKubeConfig, kubectl, testbed, tokenKubeConfig, waitFor } from './support/cluster.ts';
import { FINALIZER } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
import { admin, bindPod, createNM, getNM, nodes, phaseOf, setUnschedulable } from './support/kmaint.ts';
import { runKmaint, type KmaintRun } from './support/kmaint-cli.ts';
import { waitEstablished } from './support/crd-established.ts';

const NS = 'kmaint-helm';
const RELEASE = 'kmh';
const NAME = 'kmh-kmaint';
const FUNCTIONS = ['scheduler', 'drainer', 'cleanup', 'reaper'] as const;
const CONFIG_CRD = 'maintenanceoperatorconfigs.maintenance.nvidia.com';
const NM_CRD = 'nodemaintenances.maintenance.nvidia.com';
/** What the upstream operator's MaintenanceOperatorConfig schema lacks (../shared/reference/in-cluster-notes.md §1.7). */
const CONFIG_EXTENSIONS = ['maxUnavailablePerZone', 'nodeHandshake', 'pools', 'reaper', 'slurm', 'windows', 'zoneLabel'];
const ZONE_LABEL = 'topology.kubernetes.io/zone';
const HOLD = 'kmaint.io/test-hold';
/** Issue 30's uninstall case: a request left in progress by an uninstall, on the last general node. */
const LEFT_REQUEST = 'left-by-uninstall';
/** The node lifecycle conditions of a Ready request (shared/lifecycle/node-conditions.ts), in the order kmaint adds them. */
const DRAINED_CONDITIONS = ['MaintenancePlanned=False', 'MaintenanceInProgress=True', 'DrainInProgress=False', 'Drained=True'];
const LEFT_NODE = (general: readonly string[]): string => general[general.length - 1] ?? '';
/** The node of the reap request (kmaint's own) left in progress by the uninstall: the last general node but one. */
const REAP_NODE = (general: readonly string[]): string => general[general.length - 2] ?? '';
const MEDIK8S_NS = 'medik8s-leases';
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/** Everything of kmaint's on `node` and in medik8s-leases for it, beyond what leftBehind() reads. */
async function leftOnNode(node: string): Promise<{ annotations: Record<string, string>; taints: string[]; lease: string | undefined }> {
  const n = await admin().core.readNode({ name: node });
  const lease = await kubectl(['get', 'lease', '-n', MEDIK8S_NS, `node-${node}`, '-o', 'jsonpath={.spec.holderIdentity}', '--ignore-not-found']);
  return {
    annotations: Object.fromEntries(Object.entries(n.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('kmaint.io/'))),
    taints: (n.spec?.taints ?? []).filter((t) => t.key === OUT_OF_SERVICE).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`),
    lease: lease.stdout === '' ? undefined : lease.stdout,
  };
}

/** The Node's Ready condition, as the reaper reads it: False for an hour (the simulated kubelet rewrites it later). */
async function patchReady(node: string, status: 'True' | 'False'): Promise<void> {
  const since = new Date(Date.now() - (status === 'False' ? 3600_000 : 0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition = { type: 'Ready', status, reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady', message: 'helm test', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: since };
  const r = await kubectl(['patch', 'node', node, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [condition] } })]);
  expect([r.code, r.stderr]).toEqual([0, '']);
}

/** What a request leaves on its node and on itself: the cordon, kmaint's record, kmaint's conditions, the finalizer. */
async function leftBehind(node: string): Promise<{ unschedulable: boolean; cordonedBy: string | undefined; kmaintConditions: string[]; finalizers: string[] | undefined }> {
  const n = await admin().core.readNode({ name: node });
  const nm = await getNM(NS, LEFT_REQUEST);
  return {
    unschedulable: n.spec?.unschedulable === true,
    cordonedBy: n.metadata?.annotations?.['kmaint.io/cordoned-by'],
    kmaintConditions: (n.status?.conditions ?? []).filter((c) => (c.message ?? '').startsWith('kmaint: ')).map((c) => `${c.type}=${c.status}`),
    finalizers: nm?.metadata.finalizers,
  };
}
/** `kmaint leftovers ...args` as an administrator runs it after the uninstall (kmaint's namespace: the release's). */
function leftovers(args: string[]): Promise<KmaintRun> {
  return runKmaint(['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', NS, 'leftovers', '--no-headers', ...args], 60_000);
}

/** The rows of `kmaint leftovers --no-headers`: object, record, owner, value. */
function listedRows(stdout: string): string[][] {
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s{2,}/));
}

/** The uids of the two requests the uninstall leaves (kmaint's admission records name them). */
async function uids(general: readonly string[]): Promise<{ left: string; reap: string }> {
  return { left: (await getNM(NS, LEFT_REQUEST))?.metadata.uid ?? '', reap: (await getNM(NS, `reap-${REAP_NODE(general)}`))?.metadata.uid ?? '' };
}

/** What `kmaint leftovers` lists after the uninstall of part 1's release (part 3 adds the out-of-service taint). */
function UNINSTALL_LEFT(general: readonly string[], ids: { left: string; reap: string }, outOfService = false): string[][] {
  const [node, reapNode] = [LEFT_NODE(general), REAP_NODE(general)];
  const by = `kmaint/${NS}/${LEFT_REQUEST}`;
  const reapBy = `kmaint/${NS}/reap-${reapNode}`;
  const conditions = (n: string): string[][] => DRAINED_CONDITIONS.map((c) => [`Node/${n}`, `condition ${c.split('=')[0] ?? ''}`, 'kmaint', c.split('=')[1] ?? '']);
  return [
    [`Lease/${MEDIK8S_NS}/node-${reapNode}`, 'holder', 'kmaint', reapBy],
    [`Lease/${MEDIK8S_NS}/node-${node}`, 'holder', 'kmaint', by],
    [`Node/${reapNode}`, 'cordon', 'kmaint', reapBy],
    [`Node/${reapNode}`, 'kmaint.io/cordoned-by', 'kmaint', reapBy],
    [`Node/${reapNode}`, 'kmaint.io/admitted', 'kmaint', `${NS}/reap-${reapNode}/${ids.reap}`],
    [`Node/${reapNode}`, 'kmaint.io/cordon-reason', 'kmaint', `NodeMaintenance ${NS}/reap-${reapNode} (requestor reaper.kmaint.io)`],
    ...conditions(reapNode),
    [`Node/${node}`, 'cordon', 'kmaint', by],
    [`Node/${node}`, 'kmaint.io/cordoned-by', 'kmaint', by],
    [`Node/${node}`, 'kmaint.io/admitted', 'kmaint', `${NS}/${LEFT_REQUEST}/${ids.left}`],
    ...(outOfService ? [[`Node/${node}`, 'kmaint.io/out-of-service-by', 'kmaint', by]] : []),
    [`Node/${node}`, 'kmaint.io/cordon-reason', 'kmaint', `NodeMaintenance ${NS}/${LEFT_REQUEST} (requestor upgrade.acme.com)`],
    ...(outOfService ? [[`Node/${node}`, `taint ${OUT_OF_SERVICE}`, 'kmaint', 'nodeshutdown:NoExecute']] : []),
    ...conditions(node),
    [`NodeMaintenance/${NS}/${LEFT_REQUEST}`, 'finalizer', 'kmaint', FINALIZER],
    [`NodeMaintenance/${NS}/reap-${reapNode}`, 'request', 'kmaint', 'reaper.kmaint.io'],
    [`NodeMaintenance/${NS}/reap-${reapNode}`, 'finalizer', 'kmaint', FINALIZER],
  ];
}

/** The chart's appVersion (NOTES.txt names it): the package's version. */
const PKG_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

interface Crd {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    names: { shortNames?: string[] };
    versions: Array<{ additionalPrinterColumns?: Array<{ name: string }>; schema: { openAPIV3Schema: { properties: Record<string, { properties?: Record<string, unknown> }> } } }>;
  };
}

/**
 * kmaint's CRD cut to the upstream operator's shape: no digest annotation; the config without kmaint's spec fields
 * and status conditions; the NodeMaintenance without the short name and the Waiting and Age columns.
 */
function upstreamShaped(file: string): Crd {
  const crd = parse(readFileSync(join('crds', file), 'utf8')) as Crd;
  delete crd.metadata.annotations;
  const version = crd.spec.versions[0];
  if (!version) throw new Error(`${file} has no version`);
  const props = version.schema.openAPIV3Schema.properties;
  if (crd.metadata.name === CONFIG_CRD) {
    for (const field of CONFIG_EXTENSIONS) delete props['spec']?.properties?.[field];
    delete props['status']?.properties?.['conditions'];
  } else {
    delete crd.spec.names.shortNames;
    version.additionalPrinterColumns = version.additionalPrinterColumns?.filter((c) => c.name !== 'Age' && c.name !== 'Waiting');
  }
  return crd;
}

/** As the upstream operator's chart leaves them: its CRDs in force. */
async function applyUpstreamCrds(): Promise<void> {
  const docs = readdirSync('crds').sort().map((f) => stringify(upstreamShaped(f)));
  const r = await kubectl(['apply', '-f', '-'], { input: docs.join('---\n') });
  expect([r.code, r.stderr]).toEqual([0, '']);
}

/** The step the chart's NOTES and README give. */
async function applyChartCrds(): Promise<void> {
  const r = await kubectl(['apply', '--server-side', '--force-conflicts', '-f', 'charts/kmaint/crds/']);
  expect([r.code, r.stdout.trim().split('\n'), r.stderr]).toEqual([0, [`customresourcedefinition.apiextensions.k8s.io/${CONFIG_CRD} serverside-applied`, `customresourcedefinition.apiextensions.k8s.io/${NM_CRD} serverside-applied`], '']);
  const established = await waitEstablished(kubectl, [`crd/${CONFIG_CRD}`, `crd/${NM_CRD}`], 30);
  expect(established.code).toBe(0);
}

function helm(args: string[]): Promise<HelmResult> {
  return runHelm(['--kubeconfig', testbed().kubeconfigPath, ...args], { home: join(testbed().dir, 'helm-home') });
}

/** What the chart's check says when the cluster's config CRD is not the chart's. */
function crdRefusal(verb: 'INSTALLATION' | 'UPGRADE'): string {
  const want = crdSchemaDigest(readFileSync(join('charts/kmaint/crds', `${CONFIG_CRD}.yaml`), 'utf8'));
  return (
    `Error: ${verb} FAILED: execution error at (kmaint/templates/serviceaccount.yaml:1:4): CustomResourceDefinition ${CONFIG_CRD} in the cluster is not this chart's ` +
    `(kmaint.io/crd-schema none, want ${want}): Helm does not update CRDs, and another copy (the NVIDIA maintenance operator's, or an older kmaint's) would prune ` +
    `kmaint's fields. Apply the chart's CRDs, then run this command again: kubectl apply --server-side --force-conflicts -f charts/kmaint/crds/`
  );
}

async function storedConfigSpec(): Promise<unknown> {
  const r = await kubectl(['get', 'maintenanceoperatorconfig', 'default', '-n', NS, '-o', 'json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { spec: unknown }).spec;
}

const batch = (): BatchV1Api => adminKubeConfig().makeApiClient(BatchV1Api);
const ownerOf = (j: V1Job): string => j.metadata?.ownerReferences?.find((o) => o.kind === 'CronJob')?.name ?? '';
const scheduledAt = (j: V1Job): string => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '';

async function jobPods(): Promise<V1Pod[]> {
  return (await admin().core.listNamespacedPod({ namespace: NS, labelSelector: 'batch.kubernetes.io/job-name' })).items;
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/helm] NOT RUN: the Helm tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

describe.skipIf(!HELM_BUILT)('the Helm chart charts/kmaint on the testbed (release kmh in namespace kmaint-helm)', () => {
  let workers: string[] = [];
  let general: string[] = [];
  let controlPlane = '';

  beforeAll(async () => {
    const all = await nodes();
    const pool = (n: (typeof all)[number]): string => n.metadata?.labels?.['kmaint.io/pool'] ?? '';
    workers = all.filter((n) => pool(n) !== 'control-plane').map((n) => n.metadata?.name ?? '');
    general = all.filter((n) => pool(n) === 'general').map((n) => n.metadata?.name ?? '');
    controlPlane = all.find((n) => pool(n) === 'control-plane')?.metadata?.name ?? '';
    expect([workers.length, general.length, controlPlane !== '']).toEqual([5, 4, true]);
    expect((await kubectl(['create', 'namespace', NS])).code).toBe(0);
  });

  afterAll(async () => {
    // The pod held Terminating, the Jobs and their pods, the filler; then the nodes, the namespace and the CRDs as the
    // global setup left them.
    for (const p of await jobPods()) {
      if (p.metadata?.finalizers?.includes(HOLD)) await kubectl(['patch', 'pod', '-n', NS, p.metadata.name ?? '', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    }
    await helm(['uninstall', RELEASE, '-n', NS, '--ignore-not-found']);
    await kubectl(['delete', 'jobs', '-n', NS, '--all', '--ignore-not-found', '--cascade=foreground', '--wait=true']);
    await kubectl(['delete', 'pods', '-n', NS, '--all', '--ignore-not-found', '--grace-period=0', '--force']);
    await kubectl(['wait', '--for=delete', 'pods', '-n', NS, '--all', '--timeout=60s']);
    for (const n of workers) await setUnschedulable(n, false);
    await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true']);
    // Waited for: later files create medik8s-leases themselves.
    await kubectl(['delete', 'namespace', MEDIK8S_NS, '--ignore-not-found', '--wait=true']);
    // As the global setup and installCrds() apply them (client-side), so later files' applies find their own state.
    const restored = await kubectl(['apply', '-f', 'crds/']);
    expect([restored.code, restored.stdout.trim().split('\n'), restored.stderr]).toEqual([0, [`customresourcedefinition.apiextensions.k8s.io/${CONFIG_CRD} unchanged`, `customresourcedefinition.apiextensions.k8s.io/${NM_CRD} unchanged`], '']);
  });

  it('over the upstream operator\'s CRDs helm install stops and names the fix; after it, kmaint\'s CRDs are in force and the stored config keeps kmaint\'s fields', async () => {
    await applyUpstreamCrds();
    // The hazard: the upstream schema prunes kmaint's fields from a stored config (kubectl refuses them unless told not
    // to validate; Helm only warns). The other fields are the CRD's defaults.
    const pruned = await kubectl(['apply', '--validate=false', '-n', NS, '-f', '-'], { input: JSON.stringify({ apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: { zoneLabel: ZONE_LABEL } }) });
    expect(pruned.code).toBe(0);
    expect(await storedConfigSpec()).toEqual({ logLevel: 'info', maxParallelOperations: 1, maxNodeMaintenanceTimeSeconds: 3600 });
    expect((await kubectl(['delete', 'maintenanceoperatorconfig', 'default', '-n', NS])).code).toBe(0);

    // The cluster the CronJobs' first pods meet: every worker cordoned, the control-plane node's CPU taken.
    for (const n of workers) await setUnschedulable(n, true);
    const cp = await admin().core.readNode({ name: controlPlane });
    await bindPod(NS, 'filler', controlPlane, { requests: { cpu: cp.status?.allocatable?.['cpu'] ?? '' } });

    const values = join(testbed().dir, 'helm-values.yaml');
    mkdirSync(testbed().dir, { recursive: true });
    writeFileSync(
      values,
      stringify({
        // The simulated kubelet keeps these pods running (their Jobs stay active) and stops them at once when deleted.
        operator: { image: { repository: 'registry.example.com' }, podAnnotations: { 'kmaint.io/sim-run-seconds': '3600', 'kmaint.io/sim-termination-seconds': '0' } },
        operatorConfig: { extraSpec: { zoneLabel: ZONE_LABEL } },
        // No tick on its own: the next test makes one due when it wants it (a tick in between would take its minute).
        cronJobs: { suspend: true },
      }),
    );
    const install = ['install', RELEASE, 'charts/kmaint', '-n', NS, '-f', values];
    const refused = await helm(install);
    expect([refused.code, refused.stderr.trim()]).toEqual([1, crdRefusal('INSTALLATION')]);
    expect((await helm(['list', '-n', NS, '-a', '-q'])).stdout).toBe('');

    await applyChartCrds();
    const installed = await helm(install);
    expect([installed.code, installed.stderr]).toEqual([0, '']);
    expect(installed.stdout).toContain(`kmaint ${PKG_VERSION} is installed in namespace ${NS} as release ${RELEASE}:`);
    const crds = await kubectl(['get', 'crd', CONFIG_CRD, NM_CRD, '-o', `jsonpath={.items[*].metadata.annotations.kmaint\\.io/crd-schema}`]);
    expect(crds.stdout.split(' ')).toEqual([CONFIG_CRD, NM_CRD].map((c) => crdSchemaDigest(readFileSync(join('crds', `${c}.yaml`), 'utf8'))));
    expect(await storedConfigSpec()).toEqual({ logLevel: 'info', maxParallelOperations: 1, maxNodeMaintenanceTimeSeconds: 3600, zoneLabel: ZONE_LABEL });
    const objects = await kubectl(['get', 'serviceaccount,role,rolebinding,cronjob', '-n', NS, '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name']);
    expect(objects.stdout.trim().split('\n')).toEqual([
      `serviceaccount/${NAME}`,
      `role.rbac.authorization.k8s.io/${NAME}`,
      `rolebinding.rbac.authorization.k8s.io/${NAME}`,
      ...FUNCTIONS.map((fn) => `cronjob.batch/${NAME}-${fn}`).sort(),
    ]);
    const cluster = await kubectl(['get', 'clusterrole,clusterrolebinding', '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name']);
    expect(cluster.stdout.trim().split('\n')).toEqual([
      `clusterrole.rbac.authorization.k8s.io/${NAME}`,
      `clusterrole.rbac.authorization.k8s.io/${NAME}-medik8s-leases`,
      // Grants nothing until sriov.bindNamespace binds it in the SR-IOV operator's namespace (issue 22).
      `clusterrole.rbac.authorization.k8s.io/${NAME}-sriov`,
      `clusterrolebinding.rbac.authorization.k8s.io/${NAME}`,
    ]);
  });

  it(
    'a Job whose pod is held Terminating stays in the CronJob\'s active list, and the next due tick still starts a Job (concurrencyPolicy Allow)',
    async () => {
      const cronJobName = `${NAME}-scheduler`;
      // A Job of the CronJob (as `kubectl create job --from` makes one: owned by it), its pod bound and running.
      expect((await kubectl(['create', 'job', 'stuck', '-n', NS, `--from=cronjob/${cronJobName}`])).code).toBe(0);
      const stuck = await batch().readNamespacedJob({ namespace: NS, name: 'stuck' });
      const pod = await waitFor('the pod of Job stuck running', async () => (await jobPods()).find((p) => p.metadata?.labels?.['batch.kubernetes.io/job-name'] === 'stuck' && p.status?.phase === 'Running'));
      // As on a dead node: the pod cannot go away (a finalizer nobody removes stands in for the missing kubelet).
      const podName = pod.metadata?.name ?? '';
      expect((await kubectl(['patch', 'pod', '-n', NS, podName, '--type=merge', '-p', JSON.stringify({ metadata: { finalizers: [HOLD] } })])).code).toBe(0);
      expect((await kubectl(['delete', 'pod', '-n', NS, podName, '--wait=false'])).code).toBe(0);

      // The Job joins the CronJob's active list (where the cronjob controller keeps the Jobs a tick started and where
      // Forbid looks before starting another), and the tick of the current minute is made due: lastScheduleTime two
      // minutes back leaves it unmet, and once the CronJob is resumed, inside startingDeadlineSeconds, the controller
      // starts it at once (past second 50 of the minute, the next minute's tick comes instead). The other CronJobs'
      // ticks too, for the next test.
      const before = new Set((await batch().listNamespacedJob({ namespace: NS })).items.map((j) => j.metadata?.name));
      const lastScheduleTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000).toISOString().replace('.000Z', 'Z');
      let activeBefore: string[] = [];
      for (const fn of FUNCTIONS) {
        const cj = await batch().readNamespacedCronJob({ namespace: NS, name: `${NAME}-${fn}` });
        const active = (cj.status?.active ?? []).map((r) => ({ apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name, uid: r.uid }));
        if (fn === 'scheduler') {
          activeBefore = active.map((r) => r.name ?? '');
          active.push({ apiVersion: 'batch/v1', kind: 'Job', namespace: NS, name: 'stuck', uid: stuck.metadata?.uid ?? '' });
        }
        const patched = await kubectl(['patch', 'cronjob', `${NAME}-${fn}`, '-n', NS, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { active, lastScheduleTime } })]);
        expect([patched.code, patched.stderr]).toEqual([0, '']);
      }
      const resumed = await kubectl(['patch', 'cronjob', '-n', NS, ...FUNCTIONS.map((fn) => `${NAME}-${fn}`), '--type=merge', '-p', '{"spec":{"suspend":false}}']);
      expect([resumed.code, resumed.stderr]).toEqual([0, '']);

      const next = await waitFor(
        `a new Job of CronJob ${cronJobName} while Job stuck is active`,
        async () => (await batch().listNamespacedJob({ namespace: NS })).items.find((j) => ownerOf(j) === cronJobName && !before.has(j.metadata?.name)),
        75_000,
        500,
      );
      expect(next.metadata?.name).toBe(`${cronJobName}-${Date.parse(scheduledAt(next)) / 60_000}`);
      const held = await admin().core.readNamespacedPod({ namespace: NS, name: podName });
      expect([held.metadata?.deletionTimestamp !== undefined, held.metadata?.finalizers]).toEqual([true, [HOLD]]);
      // Not finished for the cronjob controller: no Complete or Failed condition while its pod is Terminating.
      const conditions = (await batch().readNamespacedJob({ namespace: NS, name: 'stuck' })).status?.conditions ?? [];
      expect(conditions.filter((c) => c.type === 'Complete' || c.type === 'Failed')).toEqual([]);
      const cronJob: V1CronJob = await batch().readNamespacedCronJob({ namespace: NS, name: cronJobName });
      expect((cronJob.status?.active ?? []).map((r) => r.name).sort()).toEqual([...activeBefore, 'stuck', next.metadata?.name].sort());
    },
    120_000,
  );

  it(
    'every worker cordoned and the control-plane node full: each CronJob\'s first pod is still bound to a node, at system-cluster-critical; a pod without the defaults stays Pending',
    async () => {
      const bound = await waitFor(
        'a Job of each CronJob, its pod bound to a node',
        async () => {
          const pods = (await jobPods()).filter((p) => p.spec?.nodeName && p.metadata?.labels?.['batch.kubernetes.io/job-name'] !== 'stuck');
          const byFn = new Map(pods.map((p) => [p.metadata?.labels?.['app.kubernetes.io/component'] ?? '', p]));
          return FUNCTIONS.every((fn) => byFn.has(fn)) ? FUNCTIONS.map((fn) => byFn.get(fn) as V1Pod) : undefined;
        },
        90_000,
        1000,
      );
      // Bound to cordoned general-pool nodes: the control-plane node is full and the gpu node's taint is not tolerated.
      expect(bound.map((p) => [p.metadata?.labels?.['app.kubernetes.io/component'], general.includes(p.spec?.nodeName ?? ''), p.spec?.priority, p.spec?.priorityClassName])).toEqual(
        FUNCTIONS.map((fn) => [fn, true, 2000000000, 'system-cluster-critical']),
      );
      for (const p of bound) expect(await kubectl(['get', 'node', p.spec?.nodeName ?? '', '-o', 'jsonpath={.spec.unschedulable}'])).toMatchObject({ stdout: 'true' });

      // The same pod without the chart's class and tolerations finds no node.
      const template = structuredClone(bound[0]?.spec) as NonNullable<V1Pod['spec']>;
      const bare = { containers: template.containers.map((c) => ({ name: c.name, image: c.image, command: c.command, resources: c.resources })), restartPolicy: 'Never', serviceAccountName: NAME };
      await admin().core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'without-defaults' }, spec: bare } });
      const condition = await waitFor('pod without-defaults found unschedulable', async () => {
        const p = await admin().core.readNamespacedPod({ namespace: NS, name: 'without-defaults' });
        return p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
      });
      expect([condition.reason, condition.message?.startsWith(`0/${workers.length + 1} nodes are available: `)]).toEqual(['Unschedulable', true]);
      expect((await admin().core.readNamespacedPod({ namespace: NS, name: 'without-defaults' })).spec?.nodeName).toBeUndefined();
    },
    120_000,
  );

  it('over the CRDs replaced again, helm upgrade stops and names the fix; after it, the upgrade writes the config and kmaint\'s fields stay', async () => {
    await applyUpstreamCrds();
    const upgrade = ['upgrade', RELEASE, 'charts/kmaint', '-n', NS, '--reuse-values', '--set', 'operatorConfig.maxParallelOperations=2'];
    const refused = await helm(upgrade);
    expect([refused.code, refused.stderr.trim()]).toEqual([1, crdRefusal('UPGRADE')]);
    await applyChartCrds();
    const upgraded = await helm(upgrade);
    expect([upgraded.code, upgraded.stderr]).toEqual([0, '']);
    expect(await storedConfigSpec()).toEqual({ logLevel: 'info', maxParallelOperations: 2, maxNodeMaintenanceTimeSeconds: 3600, zoneLabel: ZONE_LABEL });
    expect((await helm(['history', RELEASE, '-n', NS, '-o', 'json'])).stdout).toMatch(/^\[\{"revision":1,.*"status":"superseded".*\},\{"revision":2,.*"status":"deployed".*\}\]\n?$/);
  });

  it('issue 30, uninstall with a maintenance in progress (part 1): a request Ready, its node cordoned by kmaint', async () => {
    // The test above left every worker cordoned (by hand, not by kmaint): maxUnavailable would hold the request.
    for (const n of workers) await setUnschedulable(n, false);
    // With the medik8s node leases bound (medik8s.leases) and the reaper on, so that the uninstall also meets a lease
    // kmaint holds and a request kmaint filed itself (its drain selects no pod: the lifecycle runs in a few passes).
    expect((await kubectl(['create', 'namespace', MEDIK8S_NS])).code).toBe(0);
    const extra = join(testbed().dir, 'helm-values-uninstall.yaml');
    const reaper = { enabled: true, dryRun: false, unhealthyForSeconds: 60, newNodeGracePeriodSeconds: 0, maxNodesUnhealthy: 1, maxNodesUnhealthyInSameZone: 1, provider: 'none', drainSpec: { force: true, podSelector: 'kmaint.io/helm-test=none' } };
    writeFileSync(extra, stringify({ medik8s: { leases: true }, operatorConfig: { extraSpec: { zoneLabel: ZONE_LABEL, reaper } } }));
    const upgraded = await helm(['upgrade', RELEASE, 'charts/kmaint', '-n', NS, '--reuse-values', '-f', extra]);
    expect([upgraded.code, upgraded.stderr]).toEqual([0, '']);
    // The release's passes, run here as its ServiceAccount on its config rather than waiting for the CronJobs' ticks
    // (the chart's admission policy lets only that account write kmaint's records).
    const token = await kubectl(['create', 'token', NAME, '-n', NS, '--duration', '10m']);
    const client = new KubeClient(tokenKubeConfig(token.stdout.trim(), NAME));
    // The reaper files its request before the other request's cordon counts as an unhealthy node for its guard.
    await patchReady(REAP_NODE(general), 'False');
    const filed = await runPass('reaper', { client, namespace: NS, now: () => new Date() });
    expect([filed.errors, filed.actions]).toEqual([[], { createMaintenance: 1, emitEvent: 1 }]);
    await createNM(NS, LEFT_REQUEST, { requestorID: 'upgrade.acme.com', nodeName: LEFT_NODE(general), cordon: true });
    await waitFor(`${NS}/${LEFT_REQUEST} and ${NS}/reap-${REAP_NODE(general)} Ready`, async () => {
      for (const fn of ['scheduler', 'drainer'] as const) await runPass(fn, { client, namespace: NS, now: () => new Date() });
      const phases = [phaseOf(await getNM(NS, LEFT_REQUEST)), phaseOf(await getNM(NS, `reap-${REAP_NODE(general)}`))];
      return phases.every((p) => p === 'Ready') ? true : undefined;
    }, 90_000, 200);
    // A pass that cordons leaves the node's conditions to the next one (docs/writes.md): the next tick's drainer.
    await runPass('drainer', { client, namespace: NS, now: () => new Date() });
    expect(await leftBehind(LEFT_NODE(general))).toEqual({ unschedulable: true, cordonedBy: `kmaint/${NS}/${LEFT_REQUEST}`, kmaintConditions: DRAINED_CONDITIONS, finalizers: [FINALIZER] });
    expect((await leftOnNode(LEFT_NODE(general))).lease).toBe(`kmaint/${NS}/${LEFT_REQUEST}`);
  });

  it('helm uninstall removes every object it made and keeps the CRDs', async () => {
    const r = await helm(['uninstall', RELEASE, '-n', NS, '--wait']);
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, `release "${RELEASE}" uninstalled`, '']);
    expect((await kubectl(['get', 'serviceaccount,role,rolebinding,cronjob,maintenanceoperatorconfig', '-n', NS, '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name'])).stdout).toBe('');
    expect((await kubectl(['get', 'maintenanceoperatorconfig', '-n', NS, '-o', 'name'])).stdout).toBe('');
    expect((await kubectl(['get', 'clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding', '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name'])).stdout).toBe('');
    expect((await kubectl(['get', 'crd', CONFIG_CRD, NM_CRD, '-o', 'name'])).stdout.trim().split('\n')).toEqual([`customresourcedefinition.apiextensions.k8s.io/${CONFIG_CRD}`, `customresourcedefinition.apiextensions.k8s.io/${NM_CRD}`]);
  });

  it("issue 30, uninstall with a maintenance in progress (part 2): the uninstall leaves the request's state; `kmaint leftovers` (docs/security.md \"Uninstalling\") lists exactly what is left", async () => {
    const node = LEFT_NODE(general);
    const reapNode = REAP_NODE(general);
    // Nothing of kmaint runs now: the request and what it holds stay, as docs/security.md "Uninstalling" says.
    expect((await kubectl(['delete', 'nodemaintenance', '-n', NS, LEFT_REQUEST, '--wait=false'])).code).toBe(0);
    expect(await leftBehind(node)).toEqual({ unschedulable: true, cordonedBy: `kmaint/${NS}/${LEFT_REQUEST}`, kmaintConditions: DRAINED_CONDITIONS, finalizers: [FINALIZER] });
    // The documented command, as an administrator runs it: every record of kmaint's, found by its mark.
    const listed = await leftovers([]);
    expect([listed.code, listedRows(listed.stdout), listed.stderr]).toEqual([1, UNINSTALL_LEFT(general, await uids(general)), `Slurm not read: no MaintenanceOperatorConfig ${NS}/default and no --slurm-url\n`]);
    expect((await getNM(NS, `reap-${reapNode}`))?.metadata.finalizers).toEqual([FINALIZER]);
  });

  it("issue 30, uninstall with a maintenance in progress (part 3): the medik8s lease, the out-of-service taint and kmaint's own request are left; docs/security.md's `kmaint leftovers --fix` removes them and everything of part 2", async () => {
    const node = LEFT_NODE(general);
    const reapNode = REAP_NODE(general);
    const reapRequest = `reap-${reapNode}`;
    // The out-of-service taint and its record, written here as kmaint writes them on a dead node (test/lifecycle's "a
    // dead node: kmaint adds the out-of-service taint …" shows kmaint adding them; a dead kubelet costs a minute).
    // NoExecute: the taint-eviction controller evicts the node's DaemonSet pods while it is there; they come back after.
    const daemons = async () => (await admin().core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` })).items.filter((p) => p.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet'));
    const daemonCount = (await daemons()).length;
    const tainted = await kubectl(['patch', 'node', node, '--type=merge', '-p', JSON.stringify({ metadata: { annotations: { 'kmaint.io/out-of-service-by': `kmaint/${NS}/${LEFT_REQUEST}` } }, spec: { taints: [{ key: OUT_OF_SERVICE, value: 'nodeshutdown', effect: 'NoExecute' }] } })]);
    expect(tainted.code).toBe(0);
    // What the uninstall left: the lease, the taint, and the reap request with its cordon, record and finalizer; the
    // chart's binding in medik8s-leases went with the release.
    expect((await kubectl(['get', 'rolebinding', '-n', MEDIK8S_NS, '-o', 'name'])).stdout).toBe('');
    expect((await leftOnNode(node)).taints).toEqual([`${OUT_OF_SERVICE}=nodeshutdown:NoExecute`]);
    expect((await leftOnNode(node)).lease).toBe(`kmaint/${NS}/${LEFT_REQUEST}`);
    const reap = await getNM(NS, reapRequest);
    expect([phaseOf(reap), reap?.metadata.finalizers, reap?.metadata.labels?.['kmaint.io/reaper']]).toEqual(['Ready', [FINALIZER], 'true']);
    const onReapNode = await leftOnNode(reapNode);
    expect([onReapNode.annotations['kmaint.io/cordoned-by'], onReapNode.lease]).toEqual([`kmaint/${NS}/${reapRequest}`, `kmaint/${NS}/${reapRequest}`]);
    const listed = await leftovers([]);
    expect([listed.code, listedRows(listed.stdout)]).toEqual([1, UNINSTALL_LEFT(general, await uids(general), true)]);

    // docs/security.md "Uninstalling": `kmaint leftovers --fix`, then nothing of kmaint's is left.
    const fixed = await leftovers(['--fix']);
    expect([fixed.code, fixed.stdout, fixed.stderr.split('\n').filter((l) => l.startsWith('not fixed') || l.includes('still left'))]).toEqual([0, '', []]);
    expect(await getNM(NS, reapRequest)).toBeUndefined();
    // Part 2's request: released by hand before, now by the command (its cordon, records and finalizer).
    expect(await leftBehind(node)).toEqual({ unschedulable: false, cordonedBy: undefined, kmaintConditions: [], finalizers: undefined });
    for (const n of [node, reapNode]) {
      const left = await admin().core.readNode({ name: n });
      expect([n, left.spec?.unschedulable === true, (left.status?.conditions ?? []).filter((c) => (c.message ?? '').startsWith('kmaint: ')).map((c) => c.type), await leftOnNode(n)]).toEqual([n, false, [], { annotations: {}, taints: [], lease: undefined }]);
    }
    expect((await kubectl(['get', 'lease', '-n', MEDIK8S_NS, '-o', 'name'])).stdout).toBe('');
    const again = await leftovers([]);
    expect([again.code, again.stdout]).toEqual([0, '']);
    await patchReady(reapNode, 'True');
    await waitFor(`${daemonCount} DaemonSet pods running on ${node} again`, async () => {
      const running = (await daemons()).filter((p) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp === undefined);
      return running.length === daemonCount ? true : undefined;
    }, 60_000, 250);
  });
});
