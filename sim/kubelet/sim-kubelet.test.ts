// The simulated kubelet against a loopback fake API server: request shapes (paths, patch content
// types, bodies) and the pod lifecycle, in both pod sync modes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateCluster } from '../generator/cluster.ts';
import { SimKubelet, type SimKubeletOptions } from './sim-kubelet.ts';
import { FakeApiServer } from './testing/fake-apiserver.ts';

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cluster = generateCluster({ profile: 'small', seed: 1 });
const nodeNames = cluster.nodes.map((n) => n.metadata?.name ?? '');
const worker = nodeNames[1] ?? '';

type Status = { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string }>; podIP?: string };
const statusOf = (o: unknown) => ((o as { status?: unknown } | undefined)?.status ?? {}) as Status;
const condition = (o: unknown, type: string) => statusOf(o).conditions?.find((c) => c.type === type)?.status;

function aPod(name: string, extra: { annotations?: Record<string, string>; ownerKind?: string; grace?: number } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: 'web',
      name,
      labels: { 'app.kubernetes.io/name': name },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.ownerKind ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: extra.ownerKind, name: 'j', uid: 'j1', controller: true }] } : {}),
    },
    spec: { nodeName: worker, terminationGracePeriodSeconds: extra.grace ?? 30, containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    status: { phase: 'Pending' },
  };
}

describe.each(['poll', 'watch'] as const)('SimKubelet (%s)', (podSync) => {
  let fake: FakeApiServer;
  let kubelet: SimKubelet;

  beforeEach(async () => {
    fake = new FakeApiServer();
    const kubeConfig = await fake.start();
    const options: SimKubeletOptions = {
      kubeConfig,
      nodes: cluster.nodes,
      podSync,
      heartbeatIntervalMs: 100,
      nodeStatusIntervalMs: 300,
      podStartDelayMs: 20,
      pollIntervalMs: 30,
    };
    kubelet = new SimKubelet(options);
    await kubelet.start();
  });

  afterEach(async () => {
    await kubelet.stop();
    await fake.stop();
  });

  it('registers every node Ready, with capacity, and a lease per node', () => {
    expect(fake.list('nodes').map((n) => n.metadata.name).sort()).toEqual([...nodeNames].sort());
    for (const name of nodeNames) {
      const node = fake.get('nodes', '', name);
      expect(condition(node, 'Ready')).toBe('True');
      expect(condition(node, 'MemoryPressure')).toBe('False');
      expect((node?.status as { capacity?: Record<string, string> }).capacity?.pods).toBe('110');
      const lease = fake.get('leases', 'kube-node-lease', name);
      expect(lease?.spec).toMatchObject({ holderIdentity: name, leaseDurationSeconds: 40 });
      expect((lease?.spec as { renewTime: string }).renewTime).toMatch(/\.\d{6}Z$/);
      expect(lease?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name, uid: fake.get('nodes', '', name)?.metadata.uid }]);
    }
  });

  it('sends strategic merge patches for status and merge patches for leases', async () => {
    await until('a lease renewal', () => fake.requests.some((r) => r.method === 'PATCH' && r.path.includes('/leases/')));
    const statusPatches = fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/status'));
    expect(statusPatches.length).toBeGreaterThan(0);
    for (const r of statusPatches) expect(r.contentType).toBe('application/strategic-merge-patch+json');
    for (const r of fake.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/leases/'))) {
      expect(r.contentType).toBe('application/merge-patch+json');
      expect(r.path).toMatch(/^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/kube-node-lease\/leases\/node-\d+$/);
    }
  });

  it('renews leases in the background', async () => {
    const renewTime = () => (fake.get('leases', 'kube-node-lease', worker)?.spec as { renewTime: string }).renewTime;
    const first = renewTime();
    await until('the lease to be renewed', () => renewTime() !== first);
  });

  it('holdStatusPosts stops the node\'s periodic status posts, not its lease renewals; letting go resumes them', async () => {
    const patches = (kind: 'status' | 'lease', from: number): number =>
      fake.requests.slice(from).filter((r) => r.method === 'PATCH' && (kind === 'status' ? r.path === `/api/v1/nodes/${worker}/status` : r.path.endsWith(`/leases/${worker}`))).length;
    await kubelet.holdStatusPosts(worker, true);
    const held = fake.requests.length;
    // Five lease intervals (100 ms) span more than one status interval (300 ms): a post would have come.
    await until('five lease renewals', () => patches('lease', held) >= 5);
    expect(patches('status', held)).toBe(0);
    await kubelet.holdStatusPosts(worker, false);
    const released = fake.requests.length;
    await until('a status post', () => patches('status', released) >= 1);
  });

  it('starts a bound pending pod: Running, Ready, with a pod IP from the node CIDR', async () => {
    fake.put('pods', aPod('web-1'));
    await until('the pod to run', () => statusOf(fake.get('pods', 'web', 'web-1')).phase === 'Running');
    const pod = fake.get('pods', 'web', 'web-1');
    expect(condition(pod, 'Ready')).toBe('True');
    expect(condition(pod, 'PodScheduled')).toBe('True');
    expect(statusOf(pod).podIP).toMatch(/^10\.64\.1\.\d+$/);
  });

  it('leaves pods on other nodes alone', async () => {
    fake.put('pods', { ...aPod('elsewhere'), spec: { ...aPod('elsewhere').spec, nodeName: 'not-ours' } });
    fake.put('pods', aPod('ours'));
    await until('our pod to run', () => statusOf(fake.get('pods', 'web', 'ours')).phase === 'Running');
    expect(statusOf(fake.get('pods', 'web', 'elsewhere')).phase).toBe('Pending');
  });

  it('runs a Job pod to Succeeded after its run time', async () => {
    fake.put('pods', aPod('job-1', { ownerKind: 'Job', annotations: { 'kmaint.io/sim-run-seconds': '0' } }));
    await until('the job pod to succeed', () => statusOf(fake.get('pods', 'web', 'job-1')).phase === 'Succeeded');
    expect(condition(fake.get('pods', 'web', 'job-1'), 'Ready')).toBe('False');
  });

  it('deletes a terminating pod with grace 0 and its uid after the termination delay', async () => {
    fake.put('pods', aPod('slow', { annotations: { 'kmaint.io/sim-termination-seconds': '0.2' } }));
    await until('the pod to run', () => statusOf(fake.get('pods', 'web', 'slow')).phase === 'Running');
    const uid = fake.get('pods', 'web', 'slow')?.metadata.uid;
    const markedAt = Date.now();
    fake.markDeleting('web', 'slow', 30);
    await until('the pod to be deleted', () => fake.get('pods', 'web', 'slow') === undefined);
    expect(Date.now() - markedAt).toBeGreaterThanOrEqual(150);
    const del = fake.requests.find((r) => r.method === 'DELETE' && r.path === '/api/v1/namespaces/web/pods/slow');
    expect(del?.query.get('gracePeriodSeconds')).toBe('0');
    expect(del?.body).toMatchObject({ preconditions: { uid } });
  });

  it('setTerminationDelay and neverReady apply to matching pods', async () => {
    await kubelet.neverReady('app.kubernetes.io/name=lazy');
    await kubelet.setTerminationDelay('web/quick', 0);
    fake.put('pods', aPod('lazy'));
    fake.put('pods', aPod('quick'));
    await until('both pods to run', () => ['lazy', 'quick'].every((n) => statusOf(fake.get('pods', 'web', n)).phase === 'Running'));
    expect(condition(fake.get('pods', 'web', 'lazy'), 'Ready')).toBe('False');
    expect(condition(fake.get('pods', 'web', 'quick'), 'Ready')).toBe('True');
    fake.markDeleting('web', 'quick', 30);
    await until('the quick pod to go', () => fake.get('pods', 'web', 'quick') === undefined);
  });

  it('a node without heartbeats freezes its pods; resuming thaws them', async () => {
    const other = nodeNames[2] ?? '';
    const leasePatches = (node: string, since: number) => fake.requests.slice(since).filter((r) => r.method === 'PATCH' && r.path === `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`).length;
    const frozenWrites = () => fake.requests.filter((r) => r.method !== 'GET' && r.path.startsWith('/api/v1/namespaces/web/pods/frozen'));
    await kubelet.stopHeartbeats(worker);
    fake.put('pods', aPod('frozen'));
    // Seen after the frozen pod and due no earlier: once it runs, the frozen pod's start was due too.
    fake.put('pods', { ...aPod('control'), spec: { ...aPod('control').spec, nodeName: other } });
    await until('the control pod on a heartbeating node to run', () => statusOf(fake.get('pods', 'web', 'control')).phase === 'Running');
    expect(statusOf(fake.get('pods', 'web', 'frozen')).phase).toBe('Pending');
    // A renewal of the worker queued before stopHeartbeats may still land: it has once another node has renewed since.
    const settled = fake.requests.length;
    await until(`a lease renewal of ${other}`, () => leasePatches(other, settled) >= 1);
    const leaseBefore = JSON.stringify(fake.get('leases', 'kube-node-lease', worker)?.spec);
    // Three renewals of another node: the ticker has passed the worker's due time at least once, a whole interval ago.
    const mark = fake.requests.length;
    await until(`three lease renewals of ${other}`, () => leasePatches(other, mark) >= 3);
    expect(leasePatches(worker, mark)).toBe(0);
    expect(JSON.stringify(fake.get('leases', 'kube-node-lease', worker)?.spec)).toBe(leaseBefore);
    expect(statusOf(fake.get('pods', 'web', 'frozen')).phase).toBe('Pending');
    expect(frozenWrites()).toEqual([]);
    await kubelet.resumeHeartbeats(worker);
    await until('the pod to run', () => statusOf(fake.get('pods', 'web', 'frozen')).phase === 'Running');
  });

  it('setNodeReady(false) posts Ready=False; setNodeCondition adds a condition', async () => {
    await kubelet.setNodeReady(worker, false);
    const node = () => fake.get('nodes', '', worker);
    expect(condition(node(), 'Ready')).toBe('False');
    expect(statusOf(node()).conditions?.find((c) => c.type === 'Ready')?.reason).toBe('KubeletNotReady');
    await kubelet.setNodeCondition(worker, { type: 'GpuFault', status: 'True', reason: 'XidError' });
    expect(condition(node(), 'GpuFault')).toBe('True');
    expect(condition(node(), 'Ready')).toBe('False');
    await kubelet.setNodeReady(worker, true);
    expect(condition(node(), 'Ready')).toBe('True');
  });

  it('applyScenario runs actions at their offsets, deleteNode removes the Node', async () => {
    const result = await kubelet.applyScenario(`
actions:
  - { at: 50ms, action: makeNotReady, node: ${worker} }
  - { at: 100ms, action: deleteNode, node: ${nodeNames[2]} }
`);
    expect(result).toEqual({ ran: 2, failed: [], cancelled: 0 });
    expect(condition(fake.get('nodes', '', worker), 'Ready')).toBe('False');
    expect(fake.get('nodes', '', nodeNames[2] ?? '')).toBeUndefined();
    expect(kubelet.stats().nodes).toBe(nodeNames.length - 1);
  });

  it('an unknown node in a scenario is reported as failed, not thrown', async () => {
    const result = await kubelet.applyScenario({ actions: [{ at: 0, action: 'deleteNode', node: 'node-999' }] });
    expect(result.ran).toBe(0);
    expect(result.failed).toHaveLength(1);
  });
});

describe('SimKubelet pod watch', () => {
  it('lists again after the watch expires (410 Gone) and keeps running pods', async () => {
    const fake = new FakeApiServer();
    const kubeConfig = await fake.start();
    const kubelet = new SimKubelet({ kubeConfig, nodes: cluster.nodes, podSync: 'watch', podStartDelayMs: 10 });
    await kubelet.start();
    await until('the watch to connect', () => fake.watchCount === 1);
    fake.expireWatches();
    fake.put('pods', aPod('after-expiry'));
    await until('the pod to run', () => statusOf(fake.get('pods', 'web', 'after-expiry')).phase === 'Running');
    const lists = fake.requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/pods' && r.query.get('watch') !== 'true');
    expect(lists.length).toBeGreaterThanOrEqual(2);
    for (const r of lists) {
      expect(r.query.get('fieldSelector')).toBe('spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed');
      expect(r.query.get('limit')).toBe('500');
    }
    await kubelet.stop();
    await fake.stop();
  });
});

describe('SimKubelet lifecycle', () => {
  it('keeps existing Nodes on start, and stop cancels pending scenario actions', async () => {
    const fake = new FakeApiServer();
    const kubeConfig = await fake.start();
    const first = new SimKubelet({ kubeConfig, nodes: cluster.nodes });
    await first.start();
    await first.stop();
    const again = new SimKubelet({ kubeConfig, nodes: cluster.nodes });
    await again.start();
    expect(fake.list('nodes')).toHaveLength(cluster.nodes.length);
    const pending = again.applyScenario({ actions: [{ at: 60_000, action: 'deleteNode', node: worker }] });
    await again.stop();
    expect(await pending).toEqual({ ran: 0, failed: [], cancelled: 1 });
    await expect(again.start()).rejects.toThrow(/stopped/);
    await fake.stop();
  });
});
