// `kmaint explain` on objects as the API server returns them: the gates with their counts on the cluster limits and a
// zone, a node another request holds, a drain with a pod held by a budget and one that may go, and the phases after.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_WAIT_KIND, type MaintenanceOperatorConfig, type NodeMaintenance, type WaitKind } from '../shared/api/index.ts';
import { aClaim, aPod } from '../shared/drain/test-builders.ts';
import { planDrainer } from '../shared/lifecycle/index.ts';
import { aPdb, aReadyPod, recorded } from '../shared/lifecycle/test-builders.ts';
import { aMaintenance, aNode, withAdmissionRecords } from '../shared/scheduling/test-builders.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { explainRequest, parseRequestRef, type ExplainSnapshot } from './explain.ts';

const NOW = new Date('2025-12-01T00:05:00Z');
/** The drainer's kmaint.io/wait-kind, as it writes it with a wait on another system. */
const kind = (k: WaitKind): Record<string, string> => ({ [ANNOTATION_WAIT_KIND]: k });
const ZONE = 'topology.kubernetes.io/zone';

function config(spec: Record<string, unknown>): MaintenanceOperatorConfig {
  return { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec } as MaintenanceOperatorConfig;
}

/** The fixture's requests in progress are kmaint's: their Nodes carry its admission record (issue 40). */
/** `raw`: the config as stored, parsed as readExplainSnapshot parses it (against the snapshot's nodes). */
function snapshot(maintenance: NodeMaintenance, { raw, ...more }: Partial<ExplainSnapshot> & { raw?: MaintenanceOperatorConfig } = {}): ExplainSnapshot {
  const s: ExplainSnapshot = { maintenance, nodes: [], maintenances: [maintenance], config: loadConfig({ rawConfig: raw }, (more.nodes ?? []).length, 'kmaint'), namespace: 'kmaint', pods: [], pdbs: [], budgetPods: new Map(), claims: [], ...more };
  return { ...s, nodes: withAdmissionRecords(s.nodes, s.maintenances) };
}

describe('explainRequest', () => {
  it('waits on maxParallelOperations: every gate with its numbers, then who must finish', () => {
    const nodes = ['n1', 'n2', 'n3'].map((name) => aNode({ name, labels: { [ZONE]: name === 'n3' ? 'b' : 'a' } }));
    const busy = aMaintenance({ name: 'busy', nodeName: 'n1', phase: 'Draining' });
    const waiting = aMaintenance({ name: 'waiting', nodeName: 'n2', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' });
    const s = snapshot(waiting, { nodes, maintenances: [busy, waiting], raw: config({ maxParallelOperations: 1, maxUnavailable: 2, maxUnavailablePerZone: 1 }) });
    expect(explainRequest(s, NOW)).toEqual([
      'NodeMaintenance default/waiting: node n2, requestor requestor-a, phase Pending, age 5m',
      '  Ready: waiting: maxParallelOperations 1 reached (1 in progress)',
      'admission (as the next scheduler pass decides, after the admissions it would make):',
      '  verdict: waits: maxParallelOperations 1 reached (1 in progress)',
      '  ok    node n2 exists and no other request holds it',
      '  ok    cluster window: none configured',
      '  WAIT  maxParallelOperations 1 reached (1 in progress)',
      '  ok    maxUnavailable 2: 1 under maintenance + 0 cordoned or not ready',
      '  WAIT  zone a: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)',
      'next: a request in progress must finish (its requestor deletes it, cleanup releases the node): default/busy (n1, Draining)',
    ]);
  });

  it('a gang member (issue 21): the gang, the rank it walks at, and its wait though its own gates pass', () => {
    const nodes = ['n1', 'n2', 'n3'].map((name) => aNode({ name }));
    const gang = { 'kmaint.io/gang': 'train' };
    const busy = aMaintenance({ name: 'busy', nodeName: 'n3', phase: 'Draining' });
    const g1 = aMaintenance({ name: 'g1', nodeName: 'n1', labels: gang, created: '2025-11-30T00:00:00Z' });
    const g2 = aMaintenance({ name: 'g2', nodeName: 'n2', labels: gang, created: '2025-11-30T01:00:00Z' });
    const s = snapshot(g2, { nodes, maintenances: [busy, g1, g2], raw: config({ maxParallelOperations: 2, gangReserveAfterSeconds: 600 }) });
    const why = 'gang train (2 requests) starts all at once or not at all: maxParallelOperations 2 reached (2 in progress) counting 1 of its members, at default/g2';
    expect(explainRequest(s, NOW).slice(2)).toEqual([
      'admission (as the next scheduler pass decides, after the admissions it would make):',
      `  verdict: waits: ${why}`,
      '  ok    node n2 exists and no other request holds it',
      '  gang  train: 2 requests start together or not at all: default/g1, default/g2',
      "  rank  2 of 2 waiting requests; the gang walks at default/g1's rank (1)",
      '  ok    cluster window: none configured',
      '  ok    maxParallelOperations 2: 1 in progress',
      '  ok    maxUnavailable unlimited: 1 under maintenance + 0 cordoned or not ready',
      `  WAIT  ${why}`,
      `next: ${why}`,
    ]);
  });

  it('a request the next pass admits: counts before it, and what follows', () => {
    const nodes = [aNode({ name: 'n1' }), aNode({ name: 'n2', unschedulable: true })];
    const nm = aMaintenance({ name: 'new', nodeName: 'n1', phase: '' });
    expect(explainRequest(snapshot(nm, { nodes }), NOW).slice(1)).toEqual([
      '  Ready: (no message yet)',
      'admission (as the next scheduler pass decides, after the admissions it would make):',
      '  verdict: the next scheduler pass admits it',
      '  ok    node n1 exists and no other request holds it',
      '  ok    cluster window: none configured',
      '  ok    maxParallelOperations 1: 0 in progress',
      '  ok    maxUnavailable unlimited: 0 under maintenance + 1 cordoned or not ready',
      'next: the next scheduler pass admits it, then the drainer cordons the node',
    ]);
  });

  it('a node another request holds, and a node that does not exist', () => {
    const holder = aMaintenance({ name: 'holder', nodeName: 'n1', phase: 'Ready' });
    const second = aMaintenance({ name: 'second', nodeName: 'n1' });
    expect(explainRequest(snapshot(second, { nodes: [aNode({ name: 'n1' })], maintenances: [holder, second] }), NOW).slice(3)).toEqual([
      '  verdict: waits: another request for node n1 is in progress (default/holder)',
      '  WAIT  node n1 is held by default/holder (Ready)',
      'next: default/holder must finish on node n1',
    ]);
    expect(explainRequest(snapshot(second, { nodes: [] }), NOW).slice(3)).toEqual(['  verdict: waits: node n1 not found', '  WAIT  node n1 not found', 'next: node n1 must exist (or the requestor deletes this request)']);
  });

  it('draining: each pod with what holds it, the budget with its numbers and class, and what must happen', () => {
    const nm = aMaintenance({ name: 'drain', nodeName: 'n1', phase: 'Draining', message: 'draining: 2 of 3 pods left' });
    nm.spec.drainSpec = { force: true, podSelector: '' };
    const pods = [
      aReadyPod({ name: 'db-0', namespace: 'data', labels: { app: 'db' }, nodeName: 'n1' }),
      aReadyPod({ name: 'web-0', namespace: 'web', labels: { app: 'web' }, nodeName: 'n1' }),
      aPod({ name: 'agent', namespace: 'kube-system', owner: 'DaemonSet', nodeName: 'n1' }),
    ];
    const pdb = aPdb({ name: 'db', namespace: 'data', disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2, expectedPods: 3 });
    const s = snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })], pods, pdbs: [pdb] });
    const numbers = 'allows 0 disruptions: needs 2 healthy, has 2 of 3 expected';
    const why = 'held by unhealthy pods: 1 of the 3 expected pods is not healthy';
    expect(explainRequest(s, NOW).slice(1)).toEqual([
      '  Ready: draining: 2 of 3 pods left',
      'pods on node n1 (3):',
      `  HELD  data/db-0 waits for PodDisruptionBudget data/db (${numbers}): ${why}`,
      '  stays kube-system/agent (not drained: DaemonSet, mirror or kmaint pod, or not selected by the drainSpec)',
      '  evict web/web-0 (no PodDisruptionBudget)',
      `next: PodDisruptionBudget data/db must allow a disruption (${numbers}; ${why}); then the drainer evicts data/db-0`,
    ]);
  });

  it("draining: kmaint's own pod (its namespace and ServiceAccount) stays, as the drainer keeps it; a tenant's pod with kmaint's label is evicted", () => {
    const nm = aMaintenance({ name: 'drain', nodeName: 'n1', phase: 'Draining', message: 'draining: 1 of 2 pods left' });
    nm.spec.drainSpec = { force: true, podSelector: '' };
    const own = aReadyPod({ name: 'kmaint-drainer', namespace: 'kmaint', labels: { 'app.kubernetes.io/name': 'kmaint' }, nodeName: 'n1' });
    const pods = [{ ...own, spec: { ...own.spec, containers: own.spec?.containers ?? [], serviceAccountName: 'kmaint' } }, aReadyPod({ name: 'escape', namespace: 'web', labels: { 'app.kubernetes.io/name': 'kmaint' }, nodeName: 'n1' })];
    expect(explainRequest(snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })], pods }), NOW).slice(2, 5)).toEqual([
      'pods on node n1 (2):',
      '  stays kmaint/kmaint-drainer (not drained: DaemonSet, mirror or kmaint pod, or not selected by the drainSpec)',
      '  evict web/escape (no PodDisruptionBudget)',
    ]);
  });

  describe('a drain on a node with DRA claims', () => {
    const pods = [
      aReadyPod({ name: 'dra', namespace: 'ml', nodeName: 'n1', claims: [{ name: 'gpu', generated: 'dra-gpu-7xk2p' }] }),
      aReadyPod({ name: 'web-0', namespace: 'web', nodeName: 'n1' }),
    ];
    const claims = [aClaim({ name: 'dra-gpu-7xk2p', namespace: 'ml', devices: ['gpu.nvidia.com/n1/gpu-0', 'gpu.nvidia.com/n1/gpu-1'], reservedFor: ['dra'] })];
    const draining = (filter: string): ExplainSnapshot => {
      const nm = aMaintenance({ name: 'gpu', nodeName: 'n1', phase: 'Draining', message: 'draining: 1 of 1 pods left' });
      nm.spec.drainSpec = { force: true, podEvictionFilters: [{ byResourceNameRegex: filter }] };
      return snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })], pods, claims });
    };
    const claimLine = '          claim ml/dra-gpu-7xk2p: gpu.nvidia.com/n1/gpu-0 (class gpu.nvidia.com), gpu.nvidia.com/n1/gpu-1 (class gpu.nvidia.com)';
    const stays = (key: string): string => `  stays ${key} (not drained: DaemonSet, mirror or kmaint pod, or not selected by the drainSpec)`;

    it("the seed's nvidia.com/gpu-* selects the pod whose claim holds gpu.nvidia.com GPUs; its claim is shown under it", () => {
      expect(explainRequest(draining('nvidia.com/gpu-*'), NOW).slice(2)).toEqual([
        'pods on node n1 (2):',
        '  evict ml/dra (no PodDisruptionBudget)',
        claimLine,
        stays('web/web-0'),
        'next: the drainer evicts 1 pod and waits for it to go; then the request is Ready',
      ]);
    });

    it('filters that match no pod while a pod holds DRA devices: the note says which pod keeps which devices', () => {
      expect(explainRequest(draining('example.com/fpga'), NOW).slice(2)).toEqual([
        'pods on node n1 (2):',
        stays('ml/dra'),
        claimLine,
        stays('web/web-0'),
        '  note  podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: ml/dra (gpu.nvidia.com/n1/gpu-0, gpu.nvidia.com/n1/gpu-1)',
        'next: the next drainer pass marks it Ready',
      ]);
    });
  });

  it.each<[string, Partial<Parameters<typeof aMaintenance>[0]>, string]>([
    ['Ready: the requestor', { phase: 'Ready' }, 'next: the requestor (requestor-a) does its work and deletes the request; cleanup then uncordons node n1 (only if kmaint cordoned it)'],
    ['deleted: cleanup', { phase: 'Ready', deleting: true }, 'next: cleanup uncordons node n1 (only if kmaint cordoned it) and removes the finalizer'],
    ['a medik8s lease held: its holder', { phase: 'Cordon', message: 'waiting to cordon: the medik8s node lease medik8s-leases/node-n1 is held by snr until 2025-12-01T00:10:00Z', annotations: kind('node-lease') }, 'next: the other holder must release the medik8s node lease or let it expire (above); then the drainer cordons the node'],
    ['a Slurm node draining: its jobs', { phase: 'Draining', message: 'waiting: Slurm node n3 draining, state ALLOCATED+DRAIN', annotations: kind('slurm-drain') }, 'next: the jobs on the Slurm nodes above must end: each must read DRAINED (the DRAIN flag and none of ALLOCATED, MIXED, COMPLETING); then the drainer evicts the pods'],
    [
      'Slinky still to drain after the cordon: Slinky',
      { phase: 'Draining', message: 'waiting: Slurm node n1 to be drained by Slinky, state ALLOCATED', annotations: kind('slinky-drain') },
      'next: Slinky (slurm-operator) must drain the Slurm nodes above: it does when it sees the node cordoned, with reason "slurm-operator: " and the node\'s nodeset.slinky.slurm.net/node-cordon-reason; is Slinky running?',
    ],
    [
      "Slinky's drain for this request: its jobs, and Slinky undrains",
      { phase: 'Draining', message: 'waiting: Slurm node n1 draining by Slinky for this request ("slurm-operator: kmaint: default/job"), state ALLOCATED+DRAIN', annotations: kind('slinky-jobs') },
      "next: the jobs on the Slurm nodes above must end (Drained: Drain and none of Allocated, Mixed, Completing); then the drainer evicts the pods. kmaint never undrains Slinky's drain: Slinky does when the node is uncordoned",
    ],
    ['slurmrestd unreachable: Slurm must answer', { phase: 'Draining', message: 'waiting: cannot reach slurmrestd at http://127.0.0.1:6820: ECONNREFUSED; nothing is evicted until Slurm node n3 can be drained', annotations: kind('slurm-problem') }, 'next: kmaint must be able to read and drain the Slurm nodes (the problem above); nothing on the node is evicted until then'],
    [
      'a dead node, taint off: what the out-of-service taint would do',
      { phase: 'Draining', message: 'draining: 1 of 1 pods left; node n1 Ready=Unknown since 2025-12-01T00:00:00Z (NodeStatusUnknown) with 1 pods stuck Terminating (app/a); spec.outOfServiceTaint is off: enabled, node.kubernetes.io/out-of-service=nodeshutdown:NoExecute makes the control plane force-delete the node\'s terminating pods and detach their volumes (right only for a node that is really off)', annotations: kind('dead-node') },
      "next: the node must come back, or, only if the machine is really off, spec.outOfServiceTaint.enabled: true lets kmaint add the taint (node.kubernetes.io/out-of-service=nodeshutdown:NoExecute makes the control plane force-delete the node's terminating pods and detach their volumes (right only for a node that is really off))",
    ],
    [
      'a dead node, tainted: the pod garbage collector',
      { phase: 'Draining', message: 'draining: 1 of 1 pods left; node n1 Ready=Unknown since 2025-12-01T00:00:00Z (NodeStatusUnknown) with 1 pods stuck Terminating (app/a); node.kubernetes.io/out-of-service is on the node (added by kmaint for this request): the control plane force-deletes them', annotations: kind('dead-node-tainted') },
      "next: kube-controller-manager's pod garbage collector deletes the terminating pods of the tainted NotReady node (it runs every 20 s); then the request is Ready",
    ],
  ])('%s', (_rule, opts, next) => {
    const nm = aMaintenance({ name: 'r', nodeName: 'n1', ...opts });
    expect(explainRequest(snapshot(nm, { nodes: [aNode({ name: 'n1' })] }), NOW).at(-1)).toBe(next);
  });
});

describe('explainRequest: a wait written by an older kmaint (message, no kmaint.io/wait-kind)', () => {
  it('shows the message as the Ready line and classifies nothing: no wait section, next by phase', () => {
    const nm = aMaintenance({ name: 'r', nodeName: 'n1', phase: 'Cordon', message: 'waiting to cordon: the medik8s node lease medik8s-leases/node-n1 is held by snr until 2025-12-01T00:10:00Z' });
    expect(explainRequest(snapshot(nm, { nodes: [aNode({ name: 'n1' })] }), NOW).slice(1)).toEqual([
      '  Ready: waiting to cordon: the medik8s node lease medik8s-leases/node-n1 is held by snr until 2025-12-01T00:10:00Z',
      'pods on node n1:',
      '  ok    no drainSpec: no pod is evicted',
      'next: the drainer cordons node n1 and drains it',
    ]);
  });
});

describe('parseRequestRef', () => {
  it.each([
    ['ops/fw-1', { namespace: 'ops', name: 'fw-1' }],
    ['default/a.b', { namespace: 'default', name: 'a.b' }],
  ])('%s', (ref, parsed) => expect(parseRequestRef(ref)).toEqual(parsed));
  it.each(['nope', 'a/b/c', '/x', 'A/b'])('%s is a usage error', (ref) => {
    expect(() => parseRequestRef(ref)).toThrow(`expected <namespace>/<name> of a NodeMaintenance, got "${ref}"`);
  });  it.each<[string, string, { namespace: string; name: string }]>([
    ['a bare name with -n', 'fw-1', { namespace: 'ops', name: 'fw-1' }],
    ['namespace/name with the same -n', 'ops/fw-1', { namespace: 'ops', name: 'fw-1' }],
  ])('%s', (_rule, ref, parsed) => expect(parseRequestRef(ref, 'ops')).toEqual(parsed));
  it.each([
    ['other/fw-1', '-n ops and other/fw-1 name different namespaces'],
    ['a/b/c', 'expected <namespace>/<name> of a NodeMaintenance or <name> with -n, got "a/b/c"'],
  ])('with -n ops, %s is a usage error', (ref, message) => {
    expect(() => parseRequestRef(ref, 'ops')).toThrow(message);
  });
});

describe('explainRequest: Slurm', () => {
  it('a Slurm wait is its own section before the pods, and says what must happen next', () => {
    const nm = aMaintenance({ name: 'job', nodeName: 'n1', phase: 'Draining', message: 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN', annotations: kind('slurm-drain') });
    nm.spec.drainSpec = { force: true, podSelector: 'app=slurmd' };
    const pods = [aReadyPod({ name: 'slurm-n1', namespace: 'hpc', labels: { app: 'slurmd' }, nodeName: 'n1' })];
    expect(explainRequest(snapshot(nm, { nodes: [aNode({ name: 'n1', unschedulable: true })], pods }), NOW).slice(1)).toEqual([
      '  Ready: waiting: Slurm node n1 draining, state ALLOCATED+DRAIN',
      'Slurm:',
      '  WAIT  waiting: Slurm node n1 draining, state ALLOCATED+DRAIN',
      'pods on node n1 (1):',
      '  evict hpc/slurm-n1 (no PodDisruptionBudget)',
      'next: the jobs on the Slurm nodes above must end: each must read DRAINED (the DRAIN flag and none of ALLOCATED, MIXED, COMPLETING); then the drainer evicts the pods',
    ]);
  });
  it('the Slurm maintenance reservation a not-before request recorded, or the problem that kept it from making one', () => {
    const nodes = [aNode({ name: 'n1' })];
    const reserved = aMaintenance({ name: 'window', nodeName: 'n1', message: 'waiting: not before 2025-12-01T06:00:00Z (kmaint.io/not-before)' });
    reserved.metadata.annotations = { 'kmaint.io/not-before': '2025-12-01T06:00:00Z', 'kmaint.io/slurm-reservation': 'kmaint_default_window' };
    expect(explainRequest(snapshot(reserved, { nodes }), NOW).slice(1, 4)).toEqual([
      '  Ready: waiting: not before 2025-12-01T06:00:00Z (kmaint.io/not-before)',
      '  not before 2025-12-01T06:00:00Z (in 5h55m)',
      '  Slurm reservation kmaint_default_window (kmaint.io/slurm-reservation)',
    ]);
    const refused = aMaintenance({ name: 'window', nodeName: 'n1', message: 'waiting: not before 2025-12-01T06:00:00Z (kmaint.io/not-before)' });
    const problem = "cannot reserve the Slurm nodes of n1 before default/window's not-before: slurmrestd at http://slurm:6820 cannot create reservations: it offers none of v0.0.45, v0.0.44, v0.0.43 (Slurm 25.05 or later; older slurmrestd serves reservations read-only)";
    refused.metadata.annotations = { 'kmaint.io/not-before': '2025-12-01T06:00:00Z', 'kmaint.io/slurm-reservation-problem': problem };
    expect(explainRequest(snapshot(refused, { nodes }), NOW)[3]).toBe(`  Slurm reservation: ${problem}`);
  });
  it("an SR-IOV request: the operator's pool limit is a gate of its own, with its numbers and who must finish", () => {
    const nodes = ['n1', 'n2'].map((name) => aNode({ name }));
    const busy = aMaintenance({ name: 'sriov-n1', nodeName: 'n1', phase: 'Draining' });
    const waiting = aMaintenance({ name: 'sriov-n2', nodeName: 'n2', message: 'waiting: waiting for SriovNetworkPoolConfig sriov-network-operator/workers: maxUnavailable 1, SR-IOV drains in progress: 1' });
    const pool = { name: 'SriovNetworkPoolConfig sriov-network-operator/workers', max: 1, text: '1', inProgress: 1 };
    const externalPools = { what: 'SR-IOV drain', poolOf: new Map([['n1', pool.name], ['n2', pool.name]]), pools: new Map([[pool.name, pool]]), problems: new Map<string, string>() };
    const limits = config({ maxParallelOperations: 5 });
    const lines = explainRequest(snapshot(waiting, { nodes, maintenances: [busy, waiting], externalPools, raw: limits }), NOW);
    expect(lines.filter((l) => l.includes('SriovNetworkPoolConfig'))).toEqual([
      '  Ready: waiting: waiting for SriovNetworkPoolConfig sriov-network-operator/workers: maxUnavailable 1, SR-IOV drains in progress: 1',
      '  verdict: waits: waiting for SriovNetworkPoolConfig sriov-network-operator/workers: maxUnavailable 1, SR-IOV drains in progress: 1',
      '  WAIT  waiting for SriovNetworkPoolConfig sriov-network-operator/workers: maxUnavailable 1, SR-IOV drains in progress: 1',
      'next: an SR-IOV drain in progress in SriovNetworkPoolConfig sriov-network-operator/workers must finish (its requestor deletes it, cleanup releases the node): default/sriov-n1 (n1, Draining)',
    ]);
    // Without the pools (as explain read it before): no such gate, and the request looked admissible.
    expect(explainRequest(snapshot(waiting, { nodes, maintenances: [busy, waiting], raw: limits }), NOW).filter((l) => l.startsWith('  WAIT'))).toEqual([]);
  });
  it("a cloud-events request: each scheduled event it stands for, under its deadline", () => {
    const nm = aMaintenance({ name: 'cloud-event-n1', nodeName: 'n1', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' });
    nm.spec.requestorID = 'cloud-events.kmaint.io';
    nm.metadata.annotations = {
      'kmaint.io/deadline': '2025-12-01T06:00:00Z',
      'kmaint.io/cloud-events': 'system-reboot instance-event-0d59937288b749b32 2025-12-01T06:00:00Z\ninstance-retirement instance-event-1a2b3c 2025-12-03T00:00:00Z',
    };
    expect(explainRequest(snapshot(nm, { nodes: [aNode({ name: 'n1' })] }), NOW).slice(2, 5)).toEqual([
      '  deadline 2025-12-01T06:00:00Z (open, in 5h55m)',
      '  cloud event system-reboot instance-event-0d59937288b749b32 2025-12-01T06:00:00Z',
      '  cloud event instance-retirement instance-event-1a2b3c 2025-12-03T00:00:00Z',
    ]);
  });
});

describe('explainRequest: a drainSpec.podSelector the drainer cannot read', () => {
  const UNREADABLE = `drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'`;
  const pods = [aPod({ name: 'agent', namespace: 'kube-system', owner: 'DaemonSet', nodeName: 'n1' }), aReadyPod({ name: 'web-0', namespace: 'web', labels: { app: 'a' }, nodeName: 'n1' })];
  const nodes = [aNode({ name: 'n1', unschedulable: true })];
  function request(phase: string, drainSpec: NonNullable<NodeMaintenance['spec']['drainSpec']>, message = ''): NodeMaintenance {
    const nm = aMaintenance({ name: 'drain', namespace: 'ops', nodeName: 'n1', phase, message });
    nm.spec.drainSpec = drainSpec;
    return nm;
  }

  it.each([
    {
      rule: 'Draining: no verdict per pod (the DaemonSet pod and the evictable one alike), one line with the drainer message, and the fix next',
      nm: request('Draining', { force: true, podSelector: 'app in (a' }, `${UNREADABLE}; nothing is evicted until it is fixed`),
      lines: [
        `  Ready: ${UNREADABLE}; nothing is evicted until it is fixed`,
        'pods on node n1 (2, none judged):',
        `  WAIT  ${UNREADABLE}; nothing is evicted until it is fixed`,
        'next: fix spec.drainSpec.podSelector (kubectl edit nm -n ops drain); the next drainer pass then judges the pods on node n1',
      ],
    },
    {
      rule: 'Draining beside a bad eviction filter: the selector first, the filter problem after it, still no verdict per pod',
      nm: request('Draining', { podSelector: 'app in (a', podEvictionFilters: [{}] }),
      lines: [
        '  Ready: (no message yet)',
        'pods on node n1 (2, none judged):',
        `  WAIT  ${UNREADABLE}; nothing is evicted until it is fixed`,
        '  WAIT  drainSpec.podEvictionFilters[0] has no byResourceNameRegex; the entry matches no pod',
        'next: fix spec.drainSpec.podSelector (kubectl edit nm -n ops drain); the next drainer pass then judges the pods on node n1',
      ],
    },
    {
      rule: 'before Draining (Cordon): the same line, and the fix next, before the drain gets stuck on it',
      nm: request('Cordon', { force: true, podSelector: 'app in (a' }),
      lines: [
        '  Ready: (no message yet)',
        'pods on node n1 (2, none judged), as the drain will find them:',
        `  WAIT  ${UNREADABLE}; nothing is evicted until it is fixed`,
        'next: fix spec.drainSpec.podSelector (kubectl edit nm -n ops drain): once the request reaches Draining, nothing is evicted from node n1 until it is fixed',
      ],
    },
  ])('$rule', ({ nm, lines }) => {
    expect(explainRequest(snapshot(nm, { nodes, pods }), NOW).slice(1)).toEqual(lines);
  });

  it('says what the drainer says: its InvalidNodeMaintenance warning is the WAIT line, and it removes no pod', () => {
    const nm = request('Draining', { force: true, podSelector: 'app in (a' });
    const plan = planDrainer(recorded({ nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), maintenances: [nm], podsByNode: new Map([['n1', pods]]), pdbs: [] }), NOW);
    const warnings = plan.actions.flatMap((a) => (a.kind === 'emitEvent' && a.type === 'Warning' ? [`${a.eventReason}: ${a.message}`] : []));
    const podActions = plan.actions.filter((a) => a.kind === 'evictPod' || a.kind === 'deletePod');
    expect({ warnings, podActions }).toEqual({ warnings: [`InvalidNodeMaintenance: ${UNREADABLE}; nothing is evicted until it is fixed`], podActions: [] });
    expect(explainRequest(snapshot(nm, { nodes, pods }), NOW)[3]).toBe(`  WAIT  ${UNREADABLE}; nothing is evicted until it is fixed`);
  });

  it('a request without the shape the CRD promises: what every pass says of it, and who fixes it', () => {
    const bad = { metadata: { name: 'bad', namespace: 'ops' }, spec: { nodeName: 7, requestorID: 'x' } } as unknown as NodeMaintenance;
    expect(explainRequest(snapshot(bad, { malformed: 'spec.nodeName: Invalid input: expected string, received number' }), NOW)).toEqual([
      'NodeMaintenance ops/bad: invalid NodeMaintenance, kmaint leaves it alone until it is fixed: spec.nodeName: Invalid input: expected string, received number',
      'next: its requestor fixes the object (or deletes it)',
    ]);
  });
});
