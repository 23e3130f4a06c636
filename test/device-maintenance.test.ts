// Maintenance of one device (issue 45): a NodeMaintenance with kmaint.io/devices on the testbed, whose control plane
// runs DRADeviceTaints and DRADeviceTaintRules (resource.k8s.io/v1alpha3). The simulated kubelet plays NVIDIA's DRA GPU
// driver (8 GPUs per GPU node), the real kube-scheduler allocates the claims and honours the DeviceTaintRule kmaint
// writes; kmaint's passes run as its ServiceAccount with infra/devices bound. A second, small control plane without
// the gates shows the refusal.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CoreV1Api, CustomObjectsApi, PolicyV1Api, type ResourceV1ResourceClaim, type V1Pod } from '@kubernetes/client-node';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
import { startControlPlane } from '../testbed/start.ts';
import { kubeConfigFrom } from '../testbed/testbed.ts';
import { adminKubeConfig, auditLog, kubectl, testbed, waitFor } from './support/cluster.ts';
import { testbedOnlyTests } from './support/testbed-only.ts';
import { KMAINT_NS, admin, createNM, deleteNM, getNM, installCrds, nodes, pass, patchNM, podsOn, removeAllNMs, setConfig } from './support/kmaint.ts';
import { readStatus } from '../cli/status.ts';
import { nodeText } from '../cli/status-render.ts';
import { untilEstablished } from './support/crd-established.ts';

const ns = `dev-${randomBytes(3).toString('hex')}`;
const DRIVER = 'gpu.nvidia.com';
const RULES = { group: 'resource.k8s.io', version: 'v1alpha3', plural: 'devicetaintrules' };
const needs = testbedOnlyTests();

/** A pod pinned to `node` through the scheduler (which allocates its claim), its GPU from template `template`. */
function gpuPod(name: string, node: string, template: string): V1Pod {
  return {
    metadata: { name, labels: { app: name }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
    spec: {
      terminationGracePeriodSeconds: 1,
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: template }],
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' }, claims: [{ name: 'gpu' }] } }],
    },
  };
}

/** A ResourceClaimTemplate of one GPU, optionally only the GPU with attribute index `index`. */
function template(name: string, index?: number): object {
  const selectors = index === undefined ? {} : { selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].index == ${index}` } }] };
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name }, spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: DRIVER, ...selectors } }] } } } };
}

/** The device the Running pod `name` holds, once its claim is allocated and reserved for it. */
async function heldDevice(name: string): Promise<{ uid: string; device: string }> {
  return waitFor(`${name} Running with its claim allocated and reserved`, async () => {
    const pod = await admin().core.readNamespacedPod({ namespace: ns, name });
    const claimName = pod.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
    if (pod.status?.phase !== 'Running' || !claimName) return undefined;
    const claim = (await admin().custom.getNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaims', name: claimName })) as ResourceV1ResourceClaim;
    const device = claim.status?.allocation?.devices?.results?.[0]?.device;
    return device && claim.status?.reservedFor?.some((r) => r.uid === pod.metadata?.uid) ? { uid: pod.metadata?.uid ?? '', device } : undefined;
  }, 120_000);
}

async function kmaintRules(): Promise<Array<{ metadata: { name: string }; spec: Record<string, unknown> }>> {
  const list = (await admin().custom.listClusterCustomObject({ ...RULES, labelSelector: 'kmaint.io/device-maintenance=true' })) as { items: Array<{ metadata: { name: string }; spec: Record<string, unknown> }> };
  return list.items;
}

function readyCondition(nm: NodeMaintenance | undefined): { reason?: string; message?: string } | undefined {
  const c = nm?.status?.conditions?.find((x) => x.type === 'Ready');
  return c ? { reason: c.reason, message: c.message } : undefined;
}

describe('maintenance of one device (DeviceTaintRule, testbed)', () => {
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await kubectl(['delete', 'devicetaintrules.resource.k8s.io', '-l', 'kmaint.io/device-maintenance=true', '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=120s']);
    await kubectl(['delete', '-k', 'infra/devices', '--ignore-not-found']);
  });

  needs.it(
    'one GPU: only its holder is evicted (after its budget allows it), the pod on the other GPU stays, the node stays schedulable, no new claim gets the GPU until release lifts the rule; kmaint uses exactly the rights of infra/devices',
    ['the simulated kubelet', 'a node in the gpu pool', 'DRA claim allocation by kube-scheduler', 'RBAC enforcement', 'the API server audit log'],
    async () => {
      const node = (await nodes()).filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'gpu').map((n) => n.metadata?.name ?? '').sort()[0] as string;
      expect((await kubectl(['apply', '-k', 'infra/devices'])).code).toBe(0);
      const custom = admin().custom;
      for (const t of [template('one-gpu')]) await custom.createNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaimtemplates', body: t });
      await admin().core.createNamespacedPod({ namespace: ns, body: gpuPod('holder-a', node, 'one-gpu') });
      const a = await heldDevice('holder-a');
      await admin().core.createNamespacedPod({ namespace: ns, body: gpuPod('holder-b', node, 'one-gpu') });
      const b = await heldDevice('holder-b');
      expect(a.device).not.toBe(b.device);
      const policy = adminKubeConfig().makeApiClient(PolicyV1Api);
      await policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'holder-a' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'holder-a' } } } } });
      await waitFor('the budget of holder-a at 0', async () => ((await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'holder-a' })).status?.currentHealthy === 1 ? true : undefined));

      const audit = auditLog();
      await audit.sync();
      const mark = audit.mark();
      const target = `${DRIVER}/${node}/${a.device}`;
      await createNM(ns, 'one-gpu', { requestorID: 'gpu-health.acme.com', nodeName: node, drainSpec: { force: true, deleteEmptyDir: true } });
      await patchNM(ns, 'one-gpu', { metadata: { annotations: { 'kmaint.io/devices': target } } });
      expect((await pass('scheduler')).admitted).toBe(1);
      // One drainer pass walks Scheduled -> Cordon (the rule, no cordon) -> WaitForPodCompletion -> Draining (held by the budget).
      const blocked = await pass('drainer');
      expect([blocked.actions['createDeviceTaintRule'], blocked.actions['cordonNode'], blocked.actions['evictPod']]).toEqual([1, undefined, undefined]);
      const nm = await getNM(ns, 'one-gpu');
      const rules = await kmaintRules();
      expect(rules.map((r) => [r.metadata.name, r.spec])).toEqual([[`kmaint-device-${nm?.metadata.uid ?? ''}-0`, { deviceSelector: { driver: DRIVER, pool: node, device: a.device }, taint: { key: 'kmaint.io/maintenance', effect: 'NoSchedule', timeAdded: expect.any(String) } }]]);
      expect(nm?.metadata.annotations?.['kmaint.io/device-taint-rules']).toBe(rules[0]?.metadata.name);
      expect(readyCondition(nm)).toEqual({
        reason: 'Draining',
        message: `draining: 1 of 1 pods left; pod ${ns}/holder-a waits for PodDisruptionBudget ${ns}/holder-a (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget`,
      });
      expect((await admin().core.readNode({ name: node })).spec?.unschedulable).toBeUndefined();
      // kmaint status (as the admin) names the device and the pod holding it, read from the real claims.
      const [row] = (await readStatus(new KubeClient(adminKubeConfig()), KMAINT_NS, new Date(), { namespace: ns })).rows;
      expect([row?.holders, row && nodeText(row)]).toEqual([[{ pod: `${ns}/holder-a`, devices: [target] }], `${node} (devices: ${a.device}; held by: ${ns}/holder-a)`]);

      // The budget relaxed: exactly the holder of the GPU leaves; the pod on the other GPU runs on, the same pod.
      await policy.deleteNamespacedPodDisruptionBudget({ namespace: ns, name: 'holder-a' });
      const evicting = await pass('drainer');
      expect(evicting.actions['evictPod']).toBe(1);
      const ready = await waitFor('one-gpu Ready', async () => {
        await pass('drainer');
        const got = await getNM(ns, 'one-gpu');
        return readyCondition(got)?.reason === 'Ready' ? got : undefined;
      });
      expect(ready.status?.drain).toEqual({ totalPods: 1, evictionPods: 1, drainProgress: 100 });
      await waitFor('holder-a gone', async () => ((await podsOn(node)).some((p) => p.metadata?.namespace === ns && p.metadata.name === 'holder-a') ? undefined : true));
      expect((await podsOn(node)).filter((p) => p.metadata?.namespace === ns).map((p) => [p.metadata?.name, p.metadata?.uid, p.status?.phase])).toEqual([['holder-b', b.uid, 'Running']]);
      expect((await admin().core.readNode({ name: node })).spec?.unschedulable).toBeUndefined();

      // A new claim that can only use the tainted (now free) GPU: the real scheduler does not allocate it.
      await custom.createNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaimtemplates', body: template('that-gpu', Number(a.device.replace('gpu-', ''))) });
      await admin().core.createNamespacedPod({ namespace: ns, body: gpuPod('wants-that-gpu', node, 'that-gpu') });
      const unschedulable = await waitFor('wants-that-gpu found unschedulable', async () => {
        const pod = await admin().core.readNamespacedPod({ namespace: ns, name: 'wants-that-gpu' });
        const c = pod.status?.conditions?.find((x) => x.type === 'PodScheduled');
        return c?.status === 'False' && c.reason === 'Unschedulable' ? pod : undefined;
      });
      expect(unschedulable.spec?.nodeName).toBeUndefined();

      // Released: the rule goes, and the scheduler gives the GPU to the waiting claim.
      await deleteNM(ns, 'one-gpu');
      const cleanup = await pass('cleanup');
      expect(cleanup.actions['deleteDeviceTaintRule']).toBe(1);
      expect(await kmaintRules()).toEqual([]);
      expect(await getNM(ns, 'one-gpu')).toBeUndefined();
      expect((await heldDevice('wants-that-gpu')).device).toBe(a.device);

      // Least privilege: the device rights used are exactly infra/devices' four, and nothing was refused.
      await audit.sync();
      const requests = audit.entries({ since: mark, user: testbed().kmaintUser });
      expect(requests.filter((e) => e.code === 403).map((e) => `${e.verb} ${e.uri}`)).toEqual([]);
      expect([...new Set(requests.filter((e) => e.resource === 'devicetaintrules' || e.resource === 'resourceslices').map((e) => `${e.verb} ${e.resource}`))].sort()).toEqual([
        'create devicetaintrules',
        'delete devicetaintrules',
        'list devicetaintrules',
        'list resourceslices',
      ]);
      const canI = async (verb: string, what: string): Promise<string> => (await kubectl(['auth', 'can-i', verb, what, `--as=system:serviceaccount:${KMAINT_NS}:kmaint`])).stdout.trim();
      expect([await canI('update', 'devicetaintrules.resource.k8s.io'), await canI('patch', 'devicetaintrules.resource.k8s.io'), await canI('create', 'resourceslices.resource.k8s.io')]).toEqual(['no', 'no', 'no']);
    },
    300_000,
  );

  needs.it(
    'the reaper files a device request for the GPU a health agent reports (spec.reaper.devicesFrom): the holder evicted, the node never cordoned, nothing terminated; released when the report goes',
    ['the simulated kubelet', 'a node in the gpu pool', 'DRA claim allocation by kube-scheduler'],
    async () => {
      const node = (await nodes()).filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'gpu').map((n) => n.metadata?.name ?? '').sort()[0] as string;
      expect((await kubectl(['apply', '-k', 'infra/devices'])).code).toBe(0);
      await admin().custom.createNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaimtemplates', body: template('reaper-gpu') });
      await admin().core.createNamespacedPod({ namespace: ns, body: gpuPod('holder-c', node, 'reaper-gpu') });
      const c = await heldDevice('holder-c');
      const failing = `${DRIVER}/${node}/${c.device}`;
      const reported = "annotations.exists(k, k.startsWith('gpu-health.example.com/'))";
      await setConfig({ reaper: { enabled: true, dryRun: false, provider: 'none', unhealthyForSeconds: 0, newNodeGracePeriodSeconds: 0, reapPredicate: reported, unhealthyPredicate: reported, devicesFrom: "annotations.filter(k, k.startsWith('gpu-health.example.com/')).map(k, annotations[k])" } });
      try {
        expect((await kubectl(['annotate', 'node', node, `gpu-health.example.com/bad=${failing}`])).code).toBe(0);
        expect((await pass('reaper')).actions['createMaintenance']).toBe(1);
        const filed = await getNM(KMAINT_NS, `reap-${node}`);
        expect([filed?.metadata.annotations?.['kmaint.io/devices'], filed?.metadata.annotations?.['kmaint.io/reaper-provider-id'], filed?.spec.cordon]).toEqual([failing, undefined, false]);
        expect((await pass('scheduler')).admitted).toBe(1);
        expect((await pass('drainer')).actions['createDeviceTaintRule']).toBe(1);
        await waitFor(`reap-${node} Ready`, async () => {
          await pass('drainer');
          return readyCondition(await getNM(KMAINT_NS, `reap-${node}`))?.reason === 'Ready' ? true : undefined;
        });
        await waitFor('holder-c gone', async () => ((await podsOn(node)).some((p) => p.metadata?.namespace === ns && p.metadata.name === 'holder-c') ? undefined : true));
        expect((await admin().core.readNode({ name: node })).spec?.unschedulable).toBeUndefined();
        // Ready and still reported: kept, nothing terminated; the report gone: the reaper releases it, cleanup lifts the rule.
        expect((await pass('reaper')).actions).toEqual({});
        expect((await kubectl(['annotate', 'node', node, 'gpu-health.example.com/bad-'])).code).toBe(0);
        expect((await pass('reaper')).actions).toEqual({ deleteMaintenance: 1 });
        expect((await pass('cleanup')).actions['deleteDeviceTaintRule']).toBe(1);
        expect([await kmaintRules(), await getNM(KMAINT_NS, `reap-${node}`), (await admin().core.readNode({ name: node })).metadata?.annotations?.['kmaint.io/reaped']]).toEqual([[], undefined, undefined]);
      } finally {
        await kubectl(['annotate', 'node', node, 'gpu-health.example.com/bad-']);
        await setConfig(undefined);
        await kubectl(['delete', 'nodemaintenances.maintenance.nvidia.com', '-n', KMAINT_NS, `reap-${node}`, '--ignore-not-found', '--wait=false']);
      }
    },
    240_000,
  );

  needs.it('on a control plane without DeviceTaintRules (gates off), a device request is refused with the reason and its node is never cordoned', 'a control plane of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-gate-off-'));
    const started = Date.now();
    const cp = await startControlPlane({ dir, featureGates: {} });
    try {
      process.stderr.write(`[device-maintenance] control plane without the gates up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      const kc = kubeConfigFrom(cp.kubeconfigPath);
      const core = kc.makeApiClient(CoreV1Api);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const kubectlThere = (args: string[]) => kubectl([`--kubeconfig=${cp.kubeconfigPath}`, ...args]);
      await kubectlThere(['apply', '-f', 'crds/']);
      await untilEstablished(kubectlThere, ['crd/nodemaintenances.maintenance.nvidia.com', 'crd/maintenanceoperatorconfigs.maintenance.nvidia.com'], 60);
      await core.createNamespace({ body: { metadata: { name: KMAINT_NS } } });
      await core.createNode({ body: { metadata: { name: 'gpu-x' } } });
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: KMAINT_NS,
        plural: NODE_MAINTENANCE_PLURAL,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: 'one-gpu', annotations: { 'kmaint.io/devices': `${DRIVER}/gpu-x/gpu-0` } }, spec: { requestorID: 'gpu-health.acme.com', nodeName: 'gpu-x' } },
      });
      const summary = await runPass('scheduler', { client: new KubeClient(kc), namespace: KMAINT_NS, now: () => new Date() });
      expect([summary.admitted, summary.requests['list devicetaintrules'], summary.requests['list resourceslices']]).toEqual([0, 2, undefined]);
      await runPass('drainer', { client: new KubeClient(kc), namespace: KMAINT_NS, now: () => new Date() });
      const nm = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: NODE_MAINTENANCE_PLURAL, name: 'one-gpu' })) as NodeMaintenance;
      expect(readyCondition(nm)).toEqual({
        reason: 'Pending',
        message:
          'waiting: this cluster does not serve DeviceTaintRules (resource.k8s.io/v1beta2 from Kubernetes 1.36, or v1alpha3 in 1.35 with the feature gates DRADeviceTaints and DRADeviceTaintRules and --runtime-config=resource.k8s.io/v1alpha3=true), so kmaint cannot take single devices out of service; a device request is never treated as a node request',
      });
      expect((await core.readNode({ name: 'gpu-x' })).spec?.unschedulable).toBeUndefined();
    } finally {
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
