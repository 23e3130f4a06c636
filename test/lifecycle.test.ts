// The NodeMaintenance lifecycle end to end: kmaint's real passes through client-node, on the testbed and on the sim.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions, type ResourceV1ResourceClaim, type V1Deployment } from '@kubernetes/client-node';
import { ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_OUT_OF_SERVICE_BY, ANNOTATION_READY_TIME, FINALIZER, TAINT_OUT_OF_SERVICE } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
import { adminKubeConfig, auditLog, clusterKind, killKubeletNode, kmaintKubeConfig, kubectl, setKubeletNodeReady, testbed, waitFor } from './support/cluster.ts';
import { testbedOnlyTests } from './support/testbed-only.ts';
import {
  KMAINT_NS,
  admin,
  bindPod,
  createNM,
  deleteNM,
  driveUntil,
  generalNodes,
  getNM,
  installCrds,
  isUnschedulable,
  nodes,
  pass,
  patchNM,
  phaseOf,
  podsOn,
  removeAllNMs,
  runAll,
  setConfig,
  setUnschedulable,
  untilPhase,
} from './support/kmaint.ts';

const ns = `lc-${randomBytes(3).toString('hex')}`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** The seed README example's drainSpec: GPU and RDMA pods only. */
const SEED_GPU_DRAIN = { force: true, podSelector: '', timeoutSeconds: 0, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] };

/** One replica on `node` (through the scheduler, which allocates its claim) whose GPU comes from template one-gpu. */
function draDeployment(node: string): V1Deployment {
  const labels = { app: 'dra-trainer' };
  return {
    metadata: { name: 'dra-trainer' },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
          resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
          containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' }, claims: [{ name: 'gpu' }] } }],
        },
      },
    },
  };
}
let workers: string[] = [];

async function gone(namespace: string, name: string): Promise<boolean> {
  return driveUntil(`${namespace}/${name} gone`, async () => ((await getNM(namespace, name)) === undefined ? true : undefined));
}

async function nmTable(name?: string): Promise<string[][]> {
  const r = await kubectl(['get', 'nm', '-n', ns, ...(name === undefined ? [] : [name])]);
  return r.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
}

/**
 * The KEP-5683 conditions on `node` as kubectl shows them, "Type=Status/Reason" sorted, each with " <- message" when
 * the message is not `ownMessage`; the kubelet's Ready first when asked. One kubectl call.
 */
async function nodeConditions(node: string, ownMessage: string, withReady = false): Promise<string[]> {
  const r = await kubectl(['get', 'node', node, '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}|{.message}{"\\n"}{end}']);
  const lines = r.stdout.trim().split('\n').map((l) => {
    const [head = '', message = ''] = l.split('|');
    return message === ownMessage || head.startsWith('Ready=') ? head : `${head} <- ${message}`;
  });
  const ours = lines.filter((l) => /^(MaintenancePlanned|MaintenanceInProgress|DrainInProgress|Drained)=/.test(l)).sort();
  return withReady ? [...lines.filter((l) => l.startsWith('Ready=')), ...ours] : ours;
}

describe(`NodeMaintenance lifecycle on the ${clusterKind()}`, () => {
  const needs = testbedOnlyTests();
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    workers = await generalNodes();
    expect(workers.length).toBeGreaterThanOrEqual(3);
  });
  afterEach(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
    for (const w of workers) await setUnschedulable(w, false);
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  // The GPU and RDMA pods ask for resources a general node does not advertise: only the simulated kubelet runs them.
  needs.it('runs the seed README example: Pending -> ... -> Ready, evicting only filtered pods; deletion uncordons and the object goes', 'the simulated kubelet', async () => {
    const node = workers[0] as string;
    await bindPod(ns, 'important', node, { labels: { app: 'important' } });
    await bindPod(ns, 'gpu-user', node, { requests: { cpu: '10m', 'nvidia.com/gpu-a100': '1' } });
    await bindPod(ns, 'rdma-user', node, { requests: { cpu: '10m', 'nvidia.com/rdma_shared_device_a': '1' } });
    await bindPod(ns, 'plain', node);
    await waitFor('test pods running', async () => ((await podsOn(node)).filter((p) => p.metadata?.namespace === ns && p.status?.phase === 'Running').length === 4 ? true : undefined));
    const dsBefore = (await podsOn(node)).filter((p) => p.metadata?.ownerReferences?.[0]?.kind === 'DaemonSet').map((p) => p.metadata?.name).sort();

    await createNM(ns, 'my-maintenance-operation', {
      requestorID: 'some.one.acme.com',
      nodeName: node,
      cordon: true,
      waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 0 },
      drainSpec: { force: true, podSelector: '', timeoutSeconds: 0, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] },
    });
    expect((await pass('scheduler')).admitted).toBe(1);
    expect(phaseOf(await getNM(ns, 'my-maintenance-operation'))).toBe('Scheduled');
    expect(await nmTable()).toEqual([
      ['NAME', 'NODE', 'REQUESTOR', 'READY', 'PHASE', 'WAITING', 'FAILED', 'AGE'],
      [expect.stringMatching(/^my-maintenance-operation$/), node, 'some.one.acme.com', 'False', 'Scheduled', expect.stringMatching(/^\d+s$/)],
    ]);

    const waiting = await untilPhase(ns, 'my-maintenance-operation', 'WaitForPodCompletion');
    expect(waiting.status?.waitForCompletion).toEqual([`${ns}/important`]);
    expect(waiting.metadata.finalizers).toEqual([FINALIZER]);
    expect(waiting.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE]).toBe('false');
    expect(waiting.metadata.ownerReferences?.map((o) => [o.kind, o.name])).toEqual([['Node', node]]);
    expect(await isUnschedulable(node)).toBe(true);

    await admin().core.deleteNamespacedPod({ namespace: ns, name: 'important' });
    const ready = await untilPhase(ns, 'my-maintenance-operation', 'Ready');
    expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(ready.metadata.annotations?.[ANNOTATION_READY_TIME]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(ready.status?.drain).toEqual({ totalPods: expect.any(Number), evictionPods: 2, drainProgress: 100 });
    const left = (await podsOn(node)).filter((p) => !p.metadata?.deletionTimestamp);
    expect(left.filter((p) => p.metadata?.namespace === ns).map((p) => p.metadata?.name)).toEqual(['plain']);
    expect(left.filter((p) => p.metadata?.ownerReferences?.[0]?.kind === 'DaemonSet').map((p) => p.metadata?.name).sort()).toEqual(dsBefore);
    const table = await nmTable();
    expect(table[1]?.slice(1, 5)).toEqual([node, 'some.one.acme.com', 'True', 'Ready']);

    const events = await kubectl(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=my-maintenance-operation,reason=ConditionChanged', '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[*]}{.type}/{.message}{"\\n"}{end}']);
    // Several events share a second, so compare as a sorted list: each phase change exactly once.
    expect(events.stdout.trim().split('\n').sort()).toEqual(['Normal/Cordon', 'Normal/Draining', 'Normal/Pending', 'Normal/Ready', 'Normal/Scheduled', 'Normal/WaitForPodCompletion']);

    await deleteNM(ns, 'my-maintenance-operation');
    expect(await gone(ns, 'my-maintenance-operation')).toBe(true);
    expect(await isUnschedulable(node)).toBe(false);
  });

  // DRA (issue 20): on the testbed the simulated kubelet plays NVIDIA's DRA GPU driver (DeviceClass and ResourceSlice
  // gpu.nvidia.com), the real resourceclaim controller makes the claim from the template and the real kube-scheduler
  // allocates it. The sim stores DRA objects but allocates nothing: counted not applicable there.
  needs.it(
    "the seed's GPU-only drain evicts a Deployment pod whose GPU comes from a ResourceClaimTemplate (gpu.nvidia.com), leaves a plain pod, ends Ready",
    ['the simulated kubelet', 'a node in the gpu pool', 'DRA claim allocation by kube-scheduler'],
    async () => {
      const node = (await nodes()).filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'gpu').map((n) => n.metadata?.name ?? '').sort()[0] as string;
      const apps = adminKubeConfig().makeApiClient(AppsV1Api);
      // The generated ml Deployments use device-plugin GPUs on the only GPU node: their budgets would hold this drain
      // forever (no other node to move to), so they step aside for the test and come back after it.
      const mlScale = new Map<string, number>();
      for (const name of ['trainer', 'inference']) mlScale.set(name, (await apps.readNamespacedDeployment({ namespace: 'ml', name })).spec?.replicas ?? 0);
      const scaleMl = async (to: (name: string) => number): Promise<void> => {
        for (const name of mlScale.keys()) await apps.patchNamespacedDeployment({ namespace: 'ml', name, body: { spec: { replicas: to(name) } } }, mergePatch);
      };
      try {
        await scaleMl(() => 0);
        await admin().custom.createNamespacedCustomObject({
          group: 'resource.k8s.io',
          version: 'v1',
          namespace: ns,
          plural: 'resourceclaimtemplates',
          body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu' }, spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } }] } } } },
        });
        await apps.createNamespacedDeployment({ namespace: ns, body: draDeployment(node) });
        await bindPod(ns, 'plain-on-gpu-node', node);
        const [draPod, claim] = await waitFor('the DRA pod Running on the GPU node with its claim allocated and reserved', async () => {
          const pod = (await podsOn(node)).find((p) => p.metadata?.namespace === ns && p.metadata.labels?.['app'] === 'dra-trainer' && p.status?.phase === 'Running');
          const claimName = pod?.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
          if (!pod || !claimName) return undefined;
          const c = (await admin().custom.getNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaims', name: claimName })) as ResourceV1ResourceClaim;
          return c.status?.reservedFor?.some((r) => r.uid === pod.metadata?.uid) ? ([pod, c] as const) : undefined;
        });
        expect(claim.status?.allocation?.devices?.results?.map((r) => [r.driver, r.pool, r.request])).toEqual([['gpu.nvidia.com', node, 'gpu']]);
        // Waited for here, not before the Deployment: the two settle side by side.
        await waitFor('no ml pods on the GPU node', async () => ((await podsOn(node)).some((p) => p.metadata?.namespace === 'ml') ? undefined : true));
        expect(draPod.spec?.containers.flatMap((c) => Object.keys(c.resources?.requests ?? {}))).toEqual(['cpu']);

        await createNM(ns, 'gpu-dra', { requestorID: 'some.one.acme.com', nodeName: node, drainSpec: SEED_GPU_DRAIN });
        expect((await pass('scheduler')).admitted).toBe(1);
        // The pass that evicts reads one LIST of ResourceClaims, as a pod on the node has spec.resourceClaims.
        const evicting = await waitFor('the drainer pass that evicts', async () => {
          const summary = await pass('drainer');
          return (summary.actions['evictPod'] ?? 0) > 0 ? summary : undefined;
        });
        expect([evicting.actions['evictPod'], evicting.requests['list resourceclaims']]).toEqual([1, 1]);
        const ready = await untilPhase(ns, 'gpu-dra', 'Ready');
        expect(ready.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Ready', message: '' });
        expect(ready.status?.drain).toEqual({ totalPods: expect.any(Number), evictionPods: 1, drainProgress: 100 });
        const left = (await podsOn(node)).filter((p) => p.metadata?.namespace === ns && !p.metadata.deletionTimestamp);
        expect(left.map((p) => p.metadata?.name)).toEqual(['plain-on-gpu-node']);
        // Gone before the node is released, so that its replacement does not take the GPU again.
        await apps.deleteNamespacedDeployment({ namespace: ns, name: 'dra-trainer' });
      } finally {
        await removeAllNMs(ns);
        await scaleMl((name) => mlScale.get(name) ?? 0);
        await waitFor('the ml pods back and Running', async () => {
          const ml = (await admin().core.listNamespacedPod({ namespace: 'ml' })).items.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
          return ml.length === [...mlScale.values()].reduce((a, b) => a + b, 0) ? true : undefined;
        });
      }
    },
    180_000,
  );

  it('leaves a node cordoned before maintenance cordoned afterwards', async () => {
    const node = workers[1] as string;
    await setUnschedulable(node, true);
    await createNM(ns, 'pre-cordoned', { requestorID: 'ops.example.com', nodeName: node });
    const ready = await untilPhase(ns, 'pre-cordoned', 'Ready');
    expect(ready.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE]).toBe('true');
    await deleteNM(ns, 'pre-cordoned');
    await gone(ns, 'pre-cordoned');
    expect(await isUnschedulable(node)).toBe(true);
  });

  it.each([
    { phase: 'Pending', config: { maxParallelOperations: 0 } },
    { phase: 'Scheduled', config: undefined },
    { phase: 'WaitForPodCompletion', config: undefined },
    { phase: 'Draining', config: undefined },
    { phase: 'Ready', config: undefined },
  ])('cleans up when deleted in phase $phase', async ({ phase, config }) => {
    const node = workers[2] as string;
    await setConfig(config);
    if (phase === 'WaitForPodCompletion') await bindPod(ns, 'holder', node, { labels: { hold: 'yes' } });
    if (phase === 'Draining') await bindPod(ns, 'bare', node, { labels: { bare: 'yes' } });
    await createNM(ns, `del-${phase.toLowerCase()}`, {
      requestorID: 'ops.example.com',
      nodeName: node,
      ...(phase === 'WaitForPodCompletion' ? { waitForPodCompletion: { podSelector: 'hold=yes' } } : {}),
      // Without force the bare pod is refused, which holds the request in Draining.
      ...(phase === 'Draining' ? { drainSpec: { podSelector: 'bare=yes' } } : {}),
    });
    if (phase === 'Pending') {
      await pass('scheduler');
      const nm = await getNM(ns, 'del-pending');
      expect(phaseOf(nm)).toBe('Pending');
      expect(nm?.status?.conditions?.[0]?.message).toBe('waiting: maxParallelOperations 0 reached (0 in progress)');
      // kubectl's WAITING column: the gate, from kmaint.io/Waiting.
      expect(await nmTable('del-pending')).toEqual([
        ['NAME', 'NODE', 'REQUESTOR', 'READY', 'PHASE', 'WAITING', 'FAILED', 'AGE'],
        ['del-pending', node, 'ops.example.com', 'False', 'Pending', 'Parallel', expect.stringMatching(/^\d+s$/)],
      ]);
    } else if (phase === 'Scheduled') {
      // Only the scheduler ran: no finalizer yet and the node untouched, so deletion is immediate.
      await pass('scheduler');
      const nm = await getNM(ns, 'del-scheduled');
      expect([phaseOf(nm), nm?.metadata.finalizers]).toEqual(['Scheduled', undefined]);
      expect(await isUnschedulable(node)).toBe(false);
    } else {
      const nm = await untilPhase(ns, `del-${phase.toLowerCase()}`, phase);
      if (phase === 'Draining') expect(nm.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(`cannot delete pod with no controller: ${ns}/bare`);
      expect(await isUnschedulable(node)).toBe(true);
    }
    const row = (await nmTable()).find((r) => r[0] === `del-${phase.toLowerCase()}`);
    expect(row?.slice(1, 5)).toEqual([node, 'ops.example.com', phase === 'Ready' ? 'True' : 'False', phase]);
    await deleteNM(ns, `del-${phase.toLowerCase()}`);
    await gone(ns, `del-${phase.toLowerCase()}`);
    expect(await isUnschedulable(node)).toBe(false);
    await admin().core.deleteCollectionNamespacedPod({ namespace: ns });
  });

  it('lifts its cordon when the request was removed without its cleanup (finalizer stripped by hand): cleanup finds it by the node record', async () => {
    const node = workers[0] as string;
    await createNM(ns, 'stripped', { requestorID: 'ops.example.com', nodeName: node });
    await untilPhase(ns, 'stripped', 'Ready');
    expect(await isUnschedulable(node)).toBe(true);
    await patchNM(ns, 'stripped', { metadata: { finalizers: null } });
    await deleteNM(ns, 'stripped');
    expect(await getNM(ns, 'stripped')).toBeUndefined();
    const swept = await pass('cleanup');
    expect([swept.actions['uncordonNode'], swept.conflicts]).toEqual([1, 0]);
    expect(await isUnschedulable(node)).toBe(false);
    const after = await admin().core.readNode({ name: node });
    expect(Object.keys(after.metadata?.annotations ?? {}).filter((k) => k.startsWith('kmaint.io/cordon'))).toEqual([]);
  });

  it('holds the node while additionalRequestors is not empty', async () => {
    const node = workers[0] as string;
    await createNM(ns, 'shared', { requestorID: 'a.example.com', nodeName: node, additionalRequestors: ['b.example.com'] });
    await untilPhase(ns, 'shared', 'Ready');
    await deleteNM(ns, 'shared');
    await runAll(10_000);
    const held = await getNM(ns, 'shared');
    expect(held?.metadata.deletionTimestamp).toBeDefined();
    expect(held?.metadata.finalizers).toEqual([FINALIZER]);
    expect(await isUnschedulable(node)).toBe(true);
    await patchNM(ns, 'shared', { spec: { additionalRequestors: [] } });
    await gone(ns, 'shared');
    expect(await isUnschedulable(node)).toBe(false);
  });

  it('follows the requestor through RequestorFailed and back', async () => {
    const node = workers[1] as string;
    await createNM(ns, 'failing', { requestorID: 'fw.example.com', nodeName: node });
    await untilPhase(ns, 'failing', 'Ready');
    const nm = await getNM(ns, 'failing');
    const conditions = [...(nm?.status?.conditions ?? []), { type: 'RequestorFailed', status: 'True', reason: 'FailedMaintenance', message: 'firmware flash failed', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }];
    await patchNM(ns, 'failing', { status: { conditions } }, true);
    await untilPhase(ns, 'failing', 'RequestorFailed');
    expect((await nmTable())[1]?.slice(3, 6)).toEqual(['False', 'RequestorFailed', 'True']);
    // A failed maintenance waits for a person: never collected by the timer.
    await pass('cleanup', { now: new Date(Date.now() + 10 * 3600_000) });
    expect(await getNM(ns, 'failing')).toBeDefined();
    const cleared = (await getNM(ns, 'failing'))?.status?.conditions?.filter((c) => c.type !== 'RequestorFailed');
    await patchNM(ns, 'failing', { status: { conditions: cleared } }, true);
    await untilPhase(ns, 'failing', 'Ready');
  });

  it('garbage-collects a stale Ready object unless it carries the ignore annotation', async () => {
    await createNM(ns, 'stale', { requestorID: 'gc.example.com', nodeName: workers[0] as string });
    await createNM(ns, 'kept', { requestorID: 'gc.example.com', nodeName: workers[1] as string });
    await setConfig({ maxParallelOperations: 2 });
    await patchNM(ns, 'kept', { metadata: { annotations: { 'maintenance.nvidia.com/garbage-collector.ignore': 'true' } } });
    await untilPhase(ns, 'stale', 'Ready');
    await untilPhase(ns, 'kept', 'Ready');
    const summary = await pass('cleanup', { now: new Date(Date.now() + 3601_000) });
    expect(summary.collected).toBe(1);
    await gone(ns, 'stale');
    expect(await getNM(ns, 'kept')).toBeDefined();
    expect(await isUnschedulable(workers[0] as string)).toBe(false);
  });

  it('waits on a PodDisruptionBudget and completes once the budget allows', async () => {
    const node = workers[2] as string;
    const policy = adminKubeConfig().makeApiClient(PolicyV1Api);
    await bindPod(ns, 'guarded-a', node, { labels: { guard: 'yes' } });
    await policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { guard: 'yes' } } } } });
    // A Pending pod is evicted without a budget check (as the API does), so wait until it runs and the budget holds.
    await waitFor('guarded pod running and budget at 0', async () => {
      const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'guard' });
      return pdb.status?.currentHealthy === 1 && pdb.status.disruptionsAllowed === 0 ? true : undefined;
    });
    await createNM(ns, 'guarded', { requestorID: 'ops.example.com', nodeName: node, drainSpec: { force: true, podSelector: 'guard=yes' } });
    // KEP-5683 node conditions, read with kubectl at Scheduled, Draining, Ready and after release (issue 20); every
    // one carries kmaint's ownership mark and names the request.
    const own = `kmaint: NodeMaintenance ${ns}/guarded (requestor ops.example.com)`;
    expect((await pass('scheduler')).admitted).toBe(1);
    expect(await nodeConditions(node, own)).toEqual(['DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted', 'MaintenanceInProgress=False/MaintenanceScheduled', 'MaintenancePlanned=True/MaintenanceScheduled']);
    const blocked = await driveUntil('drain blocked by the budget', async () => {
      const nm = await getNM(ns, 'guarded');
      const msg = nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
      return phaseOf(nm) === 'Draining' && msg.includes(`waits for PodDisruptionBudget ${ns}/guard`) ? msg : undefined;
    });
    expect(blocked).toBe(`draining: 1 of 1 pods left; pod ${ns}/guarded-a waits for PodDisruptionBudget ${ns}/guard (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget`);
    // The pass that cordons a node leaves its conditions to the next pass (nodesCordoned, shared/lifecycle/node-conditions.ts):
    // the round that found the drain blocked may be the one that cordoned.
    await pass('drainer');
    expect(await nodeConditions(node, own)).toEqual(['DrainInProgress=True/EvictingPods', 'Drained=False/EvictingPods', 'MaintenanceInProgress=True/MaintenanceStarted', 'MaintenancePlanned=False/MaintenanceStarted']);
    await policy.patchNamespacedPodDisruptionBudget({ namespace: ns, name: 'guard', body: { spec: { minAvailable: 0 } } }, (await import('@kubernetes/client-node')).setHeaderOptions('Content-Type', 'application/merge-patch+json'));
    await untilPhase(ns, 'guarded', 'Ready');
    expect((await podsOn(node)).filter((p) => p.metadata?.namespace === ns && !p.metadata.deletionTimestamp)).toEqual([]);
    expect(await nodeConditions(node, own)).toEqual(['DrainInProgress=False/DrainCompleted', 'Drained=True/DrainCompleted', 'MaintenanceInProgress=True/MaintenanceStarted', 'MaintenancePlanned=False/MaintenanceStarted']);
    // Released: kmaint's four go, the kubelet's Ready stays.
    await deleteNM(ns, 'guarded');
    expect(await gone(ns, 'guarded')).toBe(true);
    expect(await nodeConditions(node, own, true)).toEqual(['Ready=True/KubeletReady']);
  });

  // Issue 20 item 4. Pod GC runs every 20 s in kube-controller-manager: this case waits for one of its rounds.
  needs.it('a dead node: kmaint adds the out-of-service taint, the control plane force-deletes the stuck pod, release removes the taint', 'kube-controller-manager pod GC and the simulated kubelet control handle', async () => {
    const node = workers[1] as string;
    await bindPod(ns, 'stuck', node, { labels: { dead: 'yes' } });
    await waitFor('pod stuck running', async () => ((await podsOn(node)).some((p) => p.metadata?.name === 'stuck' && p.status?.phase === 'Running') ? true : undefined));
    await setConfig({ outOfServiceTaint: { enabled: true, afterNotReadySeconds: 0 } });
    await killKubeletNode(node);
    try {
      const readyOf = async (): Promise<string> => (await kubectl(['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout;
      await waitFor('node NotReady', async () => ((await readyOf()) !== 'True' ? true : undefined));
      await createNM(ns, 'dead', { requestorID: 'ops.example.com', nodeName: node, drainSpec: { force: true, podSelector: 'dead=yes' } });
      const taintOf = async (): Promise<string> => (await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.taints[?(@.key=="node.kubernetes.io/out-of-service")].value}/{.spec.taints[?(@.key=="node.kubernetes.io/out-of-service")].effect} by {.metadata.annotations.kmaint\\.io/out-of-service-by}'])).stdout;
      const tainted = await driveUntil('kmaint adds the out-of-service taint', async () => ((await taintOf()).startsWith('nodeshutdown/') ? taintOf() : undefined));
      expect(tainted).toBe(`nodeshutdown/NoExecute by kmaint/${ns}/dead`);
      // Read right after the pass that added the taint: the request says what it did and why.
      const said = (await getNM(ns, 'dead'))?.status?.conditions?.find((c) => c.type === 'Ready');
      expect([said?.reason, said?.message?.replace(/since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/, 'since T')]).toEqual([
        'Draining',
        `draining: 1 of 1 pods left; node ${node} Ready=False since T (KubeletNotReady) with 1 pods stuck Terminating (${ns}/stuck); adding node.kubernetes.io/out-of-service (spec.outOfServiceTaint)`,
      ]);
      // The control plane, not kmaint, removes the pod: pod GC deletes a terminating pod of a NotReady node with the taint.
      await untilPhase(ns, 'dead', 'Ready', 90_000);
      expect((await podsOn(node)).filter((p) => p.metadata?.name === 'stuck')).toEqual([]);
      const events = await kubectl(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=dead,reason=OutOfServiceTaint', '-o', 'jsonpath={.items[*].type}']);
      expect(events.stdout).toBe('Warning');
      await deleteNM(ns, 'dead');
      expect(await gone(ns, 'dead')).toBe(true);
      expect(await taintOf()).toBe('/ by ');
    } finally {
      await setKubeletNodeReady(node, true);
    }
    await waitFor('node Ready again', async () => ((await kubectl(['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True' ? true : undefined));
  });

  it('spec.cordon false: Ready without a cordon or kmaint\'s cordon record on the node, and none after the release', async () => {
    const node = workers[2] as string;
    await createNM(ns, 'no-cordon', { requestorID: 'ops.example.com', nodeName: node, cordon: false });
    await untilPhase(ns, 'no-cordon', 'Ready');
    const marks = async (): Promise<[boolean, string[]]> => {
      const n = await admin().core.readNode({ name: node });
      return [n.spec?.unschedulable === true, Object.keys(n.metadata?.annotations ?? {}).filter((k) => k.startsWith('kmaint.io/cordon')).sort()];
    };
    expect(await marks()).toEqual([false, []]);
    await deleteNM(ns, 'no-cordon');
    await gone(ns, 'no-cordon');
    expect(await marks()).toEqual([false, []]);
  });

  it('spec.nodeConditions turned off: the next scheduler pass removes kmaint\'s node conditions from a node under a live request', async () => {
    const node = workers[2] as string;
    await setConfig({ nodeConditions: true });
    await createNM(ns, 'conditions', { requestorID: 'ops.example.com', nodeName: node });
    const own = `kmaint: NodeMaintenance ${ns}/conditions (requestor ops.example.com)`;
    expect((await pass('scheduler')).admitted).toBe(1);
    expect(await nodeConditions(node, own)).toEqual(['DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted', 'MaintenanceInProgress=False/MaintenanceScheduled', 'MaintenancePlanned=True/MaintenanceScheduled']);
    await setConfig({ nodeConditions: false });
    expect((await pass('scheduler')).errors).toEqual([]);
    expect(await nodeConditions(node, own, true)).toEqual(['Ready=True/KubeletReady']);
  });

  it('an out-of-service taint kmaint recorded goes on release with spec.outOfServiceTaint off, and is swept by cleanup once the request its record names is gone', async () => {
    const node = workers[1] as string;
    // kmaint adds it only to a dead node (the case above, a pod GC round of ~20 s); here the taint and its record are
    // written as kmaint writes them (one patch), but NoSchedule, so that the live node keeps its pods: release and sweep
    // judge the taint's key and the record alone.
    const taintAs = async (owner: string): Promise<void> => {
      const taints = (await admin().core.readNode({ name: node })).spec?.taints ?? [];
      await admin().core.patchNode({ name: node, body: { metadata: { annotations: { [ANNOTATION_OUT_OF_SERVICE_BY]: `kmaint/${ns}/${owner}` } }, spec: { taints: [...taints, { key: TAINT_OUT_OF_SERVICE, value: 'nodeshutdown', effect: 'NoSchedule' }] } } }, mergePatch);
    };
    const taintOf = async (): Promise<[string[], string | undefined]> => {
      const n = await admin().core.readNode({ name: node });
      // (the node lifecycle controller's node.kubernetes.io/unschedulable taint comes and goes with the cordon)
      const outOfService = (n.spec?.taints ?? []).filter((t) => t.key === TAINT_OUT_OF_SERVICE);
      return [outOfService.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`), n.metadata?.annotations?.[ANNOTATION_OUT_OF_SERVICE_BY]];
    };
    await createNM(ns, 'oos', { requestorID: 'ops.example.com', nodeName: node });
    await untilPhase(ns, 'oos', 'Ready');
    await taintAs('oos');
    expect(await taintOf()).toEqual([[`${TAINT_OUT_OF_SERVICE}=nodeshutdown:NoSchedule`], `kmaint/${ns}/oos`]);
    // No config: spec.outOfServiceTaint off.
    await deleteNM(ns, 'oos');
    await gone(ns, 'oos');
    expect(await taintOf()).toEqual([[], undefined]);

    // A record naming a request that does not exist (removed without its cleanup): the next cleanup pass sweeps it.
    await taintAs('ghost');
    const swept = await pass('cleanup');
    expect([swept.errors, swept.conflicts]).toEqual([[], 0]);
    expect(await taintOf()).toEqual([[], undefined]);
  });

  it('moves on from waitForPodCompletion after its timeout', async () => {
    const node = workers[0] as string;
    await bindPod(ns, 'forever', node, { labels: { batch: 'yes' } });
    await createNM(ns, 'impatient', { requestorID: 'ops.example.com', nodeName: node, waitForPodCompletion: { podSelector: 'batch=yes', timeoutSeconds: 2 } });
    const waiting = await untilPhase(ns, 'impatient', 'WaitForPodCompletion');
    expect(waiting.status?.waitForCompletion).toEqual([`${ns}/forever`]);
    await untilPhase(ns, 'impatient', 'Ready', 30_000);
  });

  it('releases a request whose node does not exist and never admits it', async () => {
    await createNM(ns, 'ghost', { requestorID: 'ops.example.com', nodeName: 'no-such-node' });
    await pass('scheduler');
    const nm = await getNM(ns, 'ghost');
    expect(phaseOf(nm)).toBe('Pending');
    expect(nm?.status?.conditions?.[0]?.message).toBe('waiting: node no-such-node not found');
  });

  needs.it('makes zero writes on a second pass over an unchanged cluster', 'the API server audit log', async () => {
    await createNM(ns, 'steady', { requestorID: 'ops.example.com', nodeName: workers[1] as string });
    await untilPhase(ns, 'steady', 'Ready');
    await runAll(20_000);
    const audit = auditLog();
    await audit.sync();
    const mark = audit.mark();
    for (const fn of ['scheduler', 'drainer', 'cleanup'] as const) await pass(fn);
    await audit.sync();
    const writes = audit.entries({ since: mark, user: testbed().kmaintUser }).filter((e) => !['get', 'list', 'watch'].includes(e.verb) && e.resource !== 'leases');
    expect(writes).toEqual([]);
  });

  it('never admits more than maxParallelOperations with two scheduler passes at once', async () => {
    await setConfig({ maxParallelOperations: 2 });
    for (const [i, w] of workers.slice(0, 3).entries()) await createNM(ns, `para-${i}`, { requestorID: 'ops.example.com', nodeName: w });
    const clients = [new KubeClient(kmaintKubeConfig()), new KubeClient(kmaintKubeConfig())];
    const results = await Promise.all(clients.map((client, i) => runPass('scheduler', { client, namespace: KMAINT_NS, now: () => new Date(), holder: `copy-${i}` })));
    const admittedNow = results.reduce((a, r) => a + r.admitted, 0);
    await pass('scheduler');
    const phases = await Promise.all([0, 1, 2].map(async (i) => phaseOf(await getNM(ns, `para-${i}`))));
    expect(phases.filter((p) => p === 'Scheduled').length).toBe(2);
    expect(admittedNow).toBeLessThanOrEqual(2);
    expect(results.map((r) => r.outcome).sort()).toEqual(results.some((r) => r.outcome === 'lease-held') ? ['applied', 'lease-held'] : ['applied', 'applied']);
  });

  it('reports an invalid config on the config object and admits nothing', async () => {
    await setConfig({ maxParallelOperations: 'abc%' });
    await createNM(ns, 'blocked', { requestorID: 'ops.example.com', nodeName: workers[0] as string });
    const s = await pass('scheduler');
    expect(s.admitted).toBe(0);
    expect(phaseOf(await getNM(ns, 'blocked'))).toBe('Pending');
    const cfg = (await admin().custom.getNamespacedCustomObject({ group: 'maintenance.nvidia.com', version: 'v1alpha1', namespace: KMAINT_NS, plural: 'maintenanceoperatorconfigs', name: 'default' })) as { status?: { conditions?: Array<{ type: string; status: string; message: string }> } };
    expect(cfg.status?.conditions?.map((c) => [c.type, c.status])).toEqual([['Valid', 'False']]);
    const events = await kubectl(['get', 'events', '-n', KMAINT_NS, '--field-selector', 'reason=InvalidConfig', '-o', 'jsonpath={.items[*].type}']);
    expect(events.stdout.split(' ')).toContain('Warning');
  });

  needs.report();
});
