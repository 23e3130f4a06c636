// Issue 45 point 3 on the testbed: drainSpec.freeDevices frees every user of the GPU node's devices. The simulated
// kubelet plays NVIDIA's DRA GPU driver; the real resourceclaim controller, kube-scheduler, disruption controller and
// DaemonSet controller (kube-controller-manager v1.35) do the rest. A DaemonSet pod holding a GPU by DRA claim is
// evicted; the DaemonSet controller, seeing kmaint.io/devices-draining:NoSchedule, does not put it back until the
// request is released, then does; the driver's DaemonSet pod (app=nvidia-driver-daemonset) keeps running; a device user
// covered by a PodDisruptionBudget holds the drain and the request's message says so.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { AppsV1Api, PolicyV1Api, type ResourceV1ResourceClaim, type V1DaemonSet, type V1Deployment, type V1Node, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import { ANNOTATION_DEVICES_DRAINING_BY, TAINT_DEVICES_DRAINING } from '../shared/api/index.ts';
import { adminKubeConfig, clusterKind, kubectl, waitFor } from './support/cluster.ts';
import { testbedOnlyTests } from './support/testbed-only.ts';
import { admin, createNM, deleteNM, driveUntil, getNM, installCrds, nodes, pass, phaseOf, podsOn, removeAllNMs } from './support/kmaint.ts';

const ns = `dd-${randomBytes(3).toString('hex')}`;
const POOL = 'kmaint.io/pool';

/** A pod template holding one GPU of `node` through a claim made from template one-gpu, quick to stop on the sim. */
function gpuPodSpec(node: string): { annotations: Record<string, string>; spec: V1PodSpec } {
  return {
    annotations: { 'kmaint.io/sim-termination-seconds': '0' },
    spec: {
      terminationGracePeriodSeconds: 1,
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m' }, claims: [{ name: 'gpu' }] } }],
    },
  };
}

function daemonSet(name: string, labels: Record<string, string>, node: string): V1DaemonSet {
  const { annotations, spec } = gpuPodSpec(node);
  return { metadata: { name }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels, annotations }, spec } } };
}

function deployment(name: string, labels: Record<string, string>, node: string): V1Deployment {
  const { annotations, spec } = gpuPodSpec(node);
  return { metadata: { name }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels, annotations }, spec } } };
}

/** This namespace's pods on `node` not being deleted, by their `app` label, each Running with its claim reserved for it. */
async function gpuHolders(node: string): Promise<Map<string, V1Pod>> {
  const pods = (await podsOn(node)).filter((p) => p.metadata?.namespace === ns && !p.metadata.deletionTimestamp);
  const held = new Map<string, V1Pod>();
  for (const pod of pods) {
    const claimName = pod.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
    if (pod.status?.phase !== 'Running' || !claimName) continue;
    const claim = (await admin().custom.getNamespacedCustomObject({ group: 'resource.k8s.io', version: 'v1', namespace: ns, plural: 'resourceclaims', name: claimName })) as ResourceV1ResourceClaim;
    if (claim.status?.reservedFor?.some((r) => r.uid === pod.metadata?.uid)) held.set(pod.metadata?.labels?.['app'] ?? '', pod);
  }
  return held;
}

const taintOf = (node: V1Node | undefined): string[] => (node?.spec?.taints ?? []).filter((t) => t.key === TAINT_DEVICES_DRAINING).map((t) => `${t.key}:${t.effect}`);

describe(`drainSpec.freeDevices on the ${clusterKind()}`, () => {
  const needs = testbedOnlyTests();
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  needs.it(
    'a GPU-holding DaemonSet pod is evicted and not recreated while the request holds the node (its taint), the driver DaemonSet pod stays, a PDB-covered device user holds the drain and says so; after release the DaemonSet pod comes back',
    ['the simulated kubelet', 'a node in the gpu pool', 'DRA claim allocation by kube-scheduler'],
    async () => {
      const node = (await nodes()).filter((n) => n.metadata?.labels?.[POOL] === 'gpu').map((n) => n.metadata?.name ?? '').sort()[0] as string;
      const apps = adminKubeConfig().makeApiClient(AppsV1Api);
      const policy = adminKubeConfig().makeApiClient(PolicyV1Api);
      try {
        await admin().custom.createNamespacedCustomObject({
          group: 'resource.k8s.io',
          version: 'v1',
          namespace: ns,
          plural: 'resourceclaimtemplates',
          body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu' }, spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } }] } } } },
        });
        await apps.createNamespacedDaemonSet({ namespace: ns, body: daemonSet('gpu-monitor', { app: 'gpu-monitor' }, node) });
        await apps.createNamespacedDaemonSet({ namespace: ns, body: daemonSet('nvidia-driver-daemonset', { app: 'nvidia-driver-daemonset' }, node) });
        await apps.createNamespacedDeployment({ namespace: ns, body: deployment('trainer', { app: 'trainer' }, node) });
        await policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'trainer' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'trainer' } } } } });
        const before = await waitFor('three GPU holders Running on the GPU node, each with its claim reserved', async () => {
          const held = await gpuHolders(node);
          return held.size === 3 ? held : undefined;
        });
        expect([...before.keys()].sort()).toEqual(['gpu-monitor', 'nvidia-driver-daemonset', 'trainer']);
        const monitorPod = before.get('gpu-monitor')?.metadata?.name ?? '';
        const driverPod = before.get('nvidia-driver-daemonset')?.metadata?.name ?? '';
        const trainerPod = before.get('trainer')?.metadata?.name ?? '';

        // The plain drain selects nothing here (podSelector): every pod this drain removes is freeDevices' doing.
        await createNM(ns, 'driver-upgrade', { requestorID: 'driver.upgrade.example.com', nodeName: node, drainSpec: { podSelector: 'kmaint.example.com/none=selected', timeoutSeconds: 0, freeDevices: {} } });
        expect((await pass('scheduler')).admitted).toBe(1);
        const held = await waitFor('the drain holding on the trainer budget, gpu-monitor gone', async () => {
          // The pods read before the pass: its message then counts a gpu-monitor pod already gone (read after it, the
          // pod could go between the pass's own read and ours, and the message would still count it).
          const left = await podsOn(node);
          await pass('drainer');
          const nm = await getNM(ns, 'driver-upgrade');
          const message = nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
          return message.includes('PodDisruptionBudget') && !left.some((p) => p.metadata?.name === monitorPod) ? { nm, message } : undefined;
        });
        expect([phaseOf(held.nm), held.message]).toEqual([
          'Draining',
          `draining: 1 of 2 pods left; pod ${ns}/${trainerPod} waits for PodDisruptionBudget ${ns}/trainer (allows 0 disruptions: needs 1 healthy, has 1 of 1 expected): a single replica: its only pod cannot leave without breaking the budget`,
        ]);
        const tainted = (await nodes()).find((n) => n.metadata?.name === node);
        expect([taintOf(tainted), tainted?.metadata?.annotations?.[ANNOTATION_DEVICES_DRAINING_BY]]).toEqual([[`${TAINT_DEVICES_DRAINING}:NoSchedule`], `kmaint/${ns}/driver-upgrade`]);
        // The real DaemonSet controller's verdict, made when the evicted pod went: no daemon pod wanted on the node while
        // the taint is there. (The driver's DaemonSet, untolerating too, keeps its running pod: NoSchedule evicts
        // nothing, and v1.35's node-update path does not even re-sync a DaemonSet whose pod may go on running.)
        const monitor = await waitFor('gpu-monitor observed with the node excluded', async () => {
          const d = await apps.readNamespacedDaemonSetStatus({ namespace: ns, name: 'gpu-monitor' });
          if (d.status?.desiredNumberScheduled === 0 && d.status.observedGeneration === d.metadata?.generation) return d;
          // Thrown, so that a timeout names what the controller last said.
          throw new Error(JSON.stringify(d.status));
        });
        expect([monitor.status?.desiredNumberScheduled, monitor.status?.currentNumberScheduled, monitor.status?.numberMisscheduled]).toEqual([0, 0, 0]);
        await pass('drainer');
        const during = await gpuHolders(node);
        expect([[...during.keys()].sort(), during.get('nvidia-driver-daemonset')?.metadata?.name, during.get('trainer')?.metadata?.name]).toEqual([['nvidia-driver-daemonset', 'trainer'], driverPod, trainerPod]);

        // Release: the taint and its record go, and the DaemonSet controller puts gpu-monitor back on the node.
        await deleteNM(ns, 'driver-upgrade');
        await driveUntil('the request released', async () => ((await getNM(ns, 'driver-upgrade')) === undefined ? true : undefined));
        const released = (await nodes()).find((n) => n.metadata?.name === node);
        expect([taintOf(released), released?.metadata?.annotations?.[ANNOTATION_DEVICES_DRAINING_BY], released?.spec?.unschedulable]).toEqual([[], undefined, undefined]);
        const after = await waitFor('gpu-monitor back on the node with a GPU', async () => {
          const h = await gpuHolders(node);
          return h.has('gpu-monitor') ? h : undefined;
        });
        expect([[...after.keys()].sort(), after.get('gpu-monitor')?.metadata?.name === monitorPod]).toEqual([['gpu-monitor', 'nvidia-driver-daemonset', 'trainer'], false]);
      } finally {
        await removeAllNMs(ns);
        // kubectl: whatever of them was created goes (none missing is an error that would hide the test's own).
        expect((await kubectl(['delete', 'daemonset,deployment,poddisruptionbudget', '--all', '-n', ns, '--wait=false'])).code).toBe(0);
        await waitFor('no pod of the test left on the GPU node', async () => ((await podsOn(node)).some((p) => p.metadata?.namespace === ns) ? undefined : true));
      }
    },
    240_000,
  );

  needs.report();
});
