// `kmaint simulate` judged by the testbed: a small rolling maintenance is predicted from a `kmaint snapshot` of the
// testbed, then run for real there (kmaint's passes as `kmaint run all` runs them, a requestor deleting each request
// once Ready), and the prediction must be within 10% of the real makespan. Testbed only: the sim is what is judged.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api, CoreV1Api, PolicyV1Api, type V1Deployment, type V1Node } from '@kubernetes/client-node';
import { KubeClient } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS } from '../shared/pass/index.ts';
import { maintenancePhase } from '../shared/scheduling/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { readClusterSnapshot, simulate, WHATIF_DRAIN_SPEC, WHATIF_NAMESPACE, WHATIF_REQUESTOR, type WhatIfReport } from '../sim/whatif/index.ts';
import { formatDuration, renderReport } from '../cli/whatif/render.ts';
import { adminKubeConfig, clusterKind, kmaintKubeConfig, kubectl, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, getNM, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

/** Every drained pod's grace period: the simulated kubelet stops a deleted pod after all of it. */
const GRACE_SECONDS = 20;
/** The scenario's kubelet starts a bound pod this long after it sees it; `kmaint simulate --pod-start` says the same. */
const POD_START_MS = 5000;
const ZONES = { a: 'us-east-1c', b: 'us-east-1d' } as const;
/** Name order is rank order within a zone (the requests are created in this order). */
const NODES = ['wit-a1', 'wit-a2', 'wit-a3', 'wit-b1', 'wit-b2', 'wit-b3'] as const;
const LABEL = 'kmaint.io/whatif-testbed';
const TAINT = { key: LABEL, value: 'true', effect: 'NoSchedule' } as const;
const CONFIG = { maxParallelOperations: 2, maxUnavailablePerZone: 1 };
/** The budgeted Deployment may run on these nodes only: its replacements have one place to go while they are cordoned. */
const API_NODES = ['wit-a1', 'wit-b1', 'wit-a3'];

const ns = `wit-${randomBytes(3).toString('hex')}`;
const s1 = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function node(name: string, index: number): V1Node {
  const zone = name.startsWith('wit-a') ? ZONES.a : ZONES.b;
  const cidr = `10.200.${index}.0/24`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': zone,
        'topology.kubernetes.io/region': 'us-east-1',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'kmaint.io/pool': `whatif-${name.charAt(4)}`,
        [LABEL]: 'true',
      },
    },
    spec: { providerID: `aws:///${zone}/i-${'0'.repeat(16)}${index}`, podCIDR: cidr, podCIDRs: [cidr], taints: [{ ...TAINT }] },
    status: {
      capacity: { cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi', pods: '110' },
      allocatable: { cpu: '3920m', memory: '15Gi', 'ephemeral-storage': '90Gi', pods: '110' },
      addresses: [
        { type: 'InternalIP', address: `10.200.${index}.1` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        bootID: `00000000-0000-0000-0000-00000000000${index}`,
        containerRuntimeVersion: 'containerd://2.1.4',
        kernelVersion: '6.12.40-sim',
        kubeProxyVersion: '',
        kubeletVersion: 'v1.35.0',
        machineID: `0000000000000000000000000000000${index}`,
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023',
        systemUUID: `00000000-0000-0000-0000-00000000000${index}`,
      },
    },
  };
}

function deployment(name: string, replicas: number, placement: { node: string } | { nodes: string[] }): V1Deployment {
  const labels = { app: name };
  return {
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: GRACE_SECONDS,
          nodeSelector: 'node' in placement ? { 'kubernetes.io/hostname': placement.node } : { [LABEL]: 'true' },
          ...('nodes' in placement ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: placement.nodes }] }] } } } } : {}),
          tolerations: [{ ...TAINT }],
          containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
        },
      },
    },
  };
}

async function runningPods(selector: string): Promise<Array<{ name: string; node: string }>> {
  const pods = (await admin().core.listNamespacedPod({ namespace: ns, labelSelector: selector })).items;
  return pods.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((p) => ({ name: p.metadata?.name ?? '', node: p.spec?.nodeName ?? '' }));
}

/** "scheduler 12 ms (8 acting: 30 ms)" per function: mean wall ms of all passes and of those that applied something. */
function passStats(passes: RealRun['passes']): string {
  const mean = (xs: number[]): string => (xs.length === 0 ? '-' : `${Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)} ms`);
  return PASS_FUNCTIONS.map((fn) => {
    const mine = passes.filter((p) => p.fn === fn);
    const acting = mine.filter((p) => p.acted);
    return `${fn} ${mean(mine.map((p) => p.ms))} (${acting.length} acting: ${mean(acting.map((p) => p.ms))})`;
  }).join(', ');
}

interface RealRun {
  makespanMs: number;
  /** Per node, ms from the first request's creation: admitted (left Pending), Ready, released (gone). */
  nodes: Map<string, { admittedMs?: number; readyMs?: number; releasedMs?: number }>;
  /** The nodes in the order kmaint admitted their requests (admissionOrder); a scheduler pass's missed writes instead. */
  order: string[];
  /** The start as measured here minus the first request's creationTimestamp (whole seconds): the two clocks agree. */
  creationSkewMs: number;
  /** Every pass kmaint ran: function, wall ms, whether it applied anything. */
  passes: Array<{ fn: string; ms: number; acted: boolean }>;
}

/** A scheduler pass's plan line admitting one of ours: its status leaves Pending (or is new) for a later phase. */
const ADMISSION_LINE = new RegExp(`^status ${WHATIF_NAMESPACE}/whatif-(\\S+) (?:\\(new\\)|Pending) -> (?!Pending:)\\S+:`);

/**
 * The nodes in the order kmaint admitted their requests: scheduler pass after scheduler pass, each pass's admissions in
 * the order it planned them (its summary's plan lines). Not the order a poll first reads them admitted: two admitted by
 * one pass are written side by side, and a read between the two writes would see the second first.
 */
function admissionOrder(schedulerPlans: readonly (readonly string[])[]): string[] {
  const order: string[] = [];
  for (const plan of schedulerPlans) {
    for (const line of plan) {
      const node = ADMISSION_LINE.exec(line)?.[1];
      if (node !== undefined && !order.includes(node)) order.push(node);
    }
  }
  return order;
}

/**
 * The rolling maintenance for real: one request per node, kmaint's passes as `kmaint run all` runs them (runUntilIdle,
 * started again at once when it goes idle, as the what-if assumes), and a requestor that deletes each request as soon
 * as it reads it Ready. The makespan runs from the first request's creation to the last one's disappearance.
 */
async function maintainForReal(): Promise<RealRun> {
  const t0 = Date.now();
  for (const n of NODES) await createNM(WHATIF_NAMESPACE, `whatif-${n}`, { requestorID: WHATIF_REQUESTOR, nodeName: n, cordon: true, drainSpec: { ...WHATIF_DRAIN_SPEC } });
  const first = await getNM(WHATIF_NAMESPACE, `whatif-${NODES[0]}`);
  const creationSkewMs = t0 - Date.parse(first?.metadata.creationTimestamp ?? '');
  const stop = new AbortController();
  const client = new KubeClient(kmaintKubeConfig());
  const passes: RealRun['passes'] = [];
  /** Each scheduler pass's plan lines, and what kept any of its writes from landing (conflicts, errors). */
  const schedulerPlans: string[][] = [];
  const schedulerMisses: string[] = [];
  const kmaint = (async () => {
    while (!stop.signal.aborted) {
      const run = await runUntilIdle({ client, namespace: KMAINT_NS, now: () => new Date(), functions: [...PASS_FUNCTIONS], timeoutMs: 600_000, signal: stop.signal, onPass: (p) => {
        passes.push({ fn: p.fn, ms: p.durationMs, acted: Object.keys(p.actions).length > 0 });
        if (p.fn !== 'scheduler') return;
        schedulerPlans.push(p.plan);
        if (p.conflicts > 0 || p.errors.length > 0) schedulerMisses.push(`conflicts ${p.conflicts}, errors ${p.errors.join('; ')}`);
      } });
      if (run.stopped === 'failed') throw new Error(`kmaint run all failed: ${run.passes.flatMap((p) => p.errors).join('; ')}`);
    }
  })();
  const nodes = new Map<string, { admittedMs?: number; readyMs?: number; releasedMs?: number }>(NODES.map((n) => [n, {}]));
  const requestor = new KubeClient(adminKubeConfig());
  try {
    for (;;) {
      const at = Date.now() - t0;
      const open = (await requestor.listMaintenances()).filter((nm) => nm.metadata.namespace === WHATIF_NAMESPACE && nm.spec.requestorID === WHATIF_REQUESTOR);
      const seen = new Set(open.map((nm) => nm.spec.nodeName));
      for (const [n, times] of nodes) if (!seen.has(n) && times.releasedMs === undefined) times.releasedMs = at;
      for (const nm of open) {
        const times = nodes.get(nm.spec.nodeName);
        if (!times) continue;
        const phase = maintenancePhase(nm);
        if (phase !== '' && phase !== 'Pending' && times.admittedMs === undefined) times.admittedMs = at;
        if (phase === 'Ready' && times.readyMs === undefined) {
          times.readyMs = at;
          await deleteNM(WHATIF_NAMESPACE, nm.metadata.name);
        }
      }
      // Every scheduler write landed, so its plans are what it did.
      if (open.length === 0) return { makespanMs: at, nodes, order: schedulerMisses.length === 0 ? admissionOrder(schedulerPlans) : schedulerMisses, creationSkewMs, passes };
      if (at > 240_000) throw new Error(`the maintenance on the testbed is not done after 4 min: ${open.map((nm) => `${nm.metadata.name} ${maintenancePhase(nm)}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    stop.abort();
    await kmaint;
  }
}

describe.runIf(clusterKind() === 'testbed')('kmaint simulate against the testbed', () => {
  let kubelet: SimKubelet | undefined;

  beforeAll(async () => {
    const kc = adminKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const left = await new KubeClient(kc).listMaintenances();
    expect(left.map((nm) => `${nm.metadata.namespace}/${nm.metadata.name}`)).toEqual([]);
    // Six nodes of our own, played by a kubelet of our own (the testbed's plays only its nodes), tainted so that
    // nothing else lands on them; two zones of three.
    kubelet = new SimKubelet({ kubeConfig: kc, nodes: NODES.map((n, i) => node(n, i + 1)), podSync: 'watch', podStartDelayMs: POD_START_MS });
    await kubelet.start();
    await waitFor('whatif nodes Ready without the not-ready taint', async () => {
      const ready = (await core.listNode({ labelSelector: LABEL })).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !n.spec?.taints?.some((t) => t.key.startsWith('node.kubernetes.io/')));
      return ready.length === NODES.length ? true : undefined;
    });
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const apps = kc.makeApiClient(AppsV1Api);
    // One pod pinned to each node (its replacement waits for that node to come back), and a budgeted pair that may run
    // on three nodes only. Both of the pair start on the first two nodes admitted (wit-a3 cordoned meanwhile): draining
    // those two evicts one and waits for its replacement on wit-a3; wit-a3 later holds both and waits once more.
    for (const n of NODES) await apps.createNamespacedDeployment({ namespace: ns, body: deployment(`solo-${n}`, 1, { node: n }) });
    // Each pinned pod bound before wit-a3 is cordoned: a cordon that came first left solo-wit-a3 Pending for good
    // (landing run of 2026-12-03, on a machine fast enough for the cordon to beat the scheduler).
    await waitFor('a pinned pod bound on each node', async () => {
      const pods = (await admin().core.listNamespacedPod({ namespace: ns, labelSelector: 'app' })).items;
      const bound = new Set(pods.filter((p) => p.spec?.nodeName !== undefined && !p.metadata?.deletionTimestamp).map((p) => p.spec?.nodeName));
      return NODES.every((n) => bound.has(n)) ? true : undefined;
    }, 60_000);
    await setUnschedulable('wit-a3', true);
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('api', 2, { nodes: API_NODES }) });
    await kc.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'api' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'api' } } } } });
    await waitFor('the scenario running', async () => {
      if ((await runningPods('app')).length === NODES.length + 2) return true;
      // Not yet: a timeout names where each pod was last seen.
      const pods = (await admin().core.listNamespacedPod({ namespace: ns, labelSelector: 'app' })).items;
      throw new Error(`last seen: ${pods.map((p) => `${p.metadata?.name ?? ''} ${p.status?.phase ?? ''} on ${p.spec?.nodeName ?? '(unscheduled)'}${p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message ? ` (${p.status.conditions.find((c) => c.type === 'PodScheduled')?.message ?? ''})` : ''}`).join('; ') || 'no pods'}`);
    }, 60_000);
    await setUnschedulable('wit-a3', false);
    await waitFor('budget api allowing 1 disruption', async () => {
      const pdb = await kc.makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ namespace: ns, name: 'api' });
      return pdb.status?.disruptionsAllowed === 1 && pdb.status.currentHealthy === 2 ? true : undefined;
    });
    await setConfig(CONFIG);
  }, 120_000);

  afterAll(async () => {
    // Only ours can be there (none were at the start): after a failure, release them through kmaint's passes.
    await removeAllNMs(WHATIF_NAMESPACE);
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
    // Pods stop only through a kubelet: force them out so that nothing waits for ours after it is gone.
    await admin().core.deleteCollectionNamespacedPod({ namespace: ns, gracePeriodSeconds: 0 }).catch(() => undefined);
    await kubelet?.stop();
    for (const n of NODES) await admin().core.deleteNode({ name: n }).catch(() => undefined);
  }, 60_000);

  it('predicts the makespan of a rolling maintenance within 10% of the same maintenance on the testbed', { timeout: 300_000 }, async () => {
    const snapshot = await readClusterSnapshot(adminKubeConfig(), KMAINT_NS, new Date());
    // As created: one solo pod on each node, both of the budgeted pair on the first two nodes to be admitted.
    const ours = snapshot.pods.filter((p) => p.namespace === ns);
    expect(ours.filter((p) => p.labels['app']?.startsWith('solo-')).map((p) => p.nodeName).sort()).toEqual([...NODES]);
    const apiPods = ours.filter((p) => p.labels['app'] === 'api').map((p) => p.nodeName ?? '');
    expect(apiPods.filter((n) => n === 'wit-a1' || n === 'wit-b1')).toHaveLength(2);

    const predicted: WhatIfReport = await simulate({ snapshot, nodes: { selector: `${LABEL}=true` }, podStartMs: POD_START_MS });
    process.stderr.write(`[whatif-testbed] kmaint simulate on the snapshot (${snapshot.nodes.length} nodes, ${snapshot.pods.length} pods):\n${renderReport(predicted)}`);
    expect(predicted.outcome).toBe('done');

    const real = await maintainForReal();
    const predictedMs = predicted.makespanMs ?? NaN;
    const error = (predictedMs - real.makespanMs) / real.makespanMs;
    const rows = NODES.map((n) => {
      const p = predicted.admissionOrder.find((a) => a.node === n);
      const r = real.nodes.get(n);
      const cell = (ms: number | undefined): string => (ms === undefined ? '-' : formatDuration(Math.round(ms / 100) * 100));
      return `  ${n}  admitted ${cell(p?.admittedMs)} / ${cell(r?.admittedMs)}  Ready ${cell(p?.readyMs)} / ${cell(r?.readyMs)}  released ${cell(p?.releasedMs)} / ${cell(r?.releasedMs)}`;
    });
    process.stderr.write(
      [
        `[whatif-testbed] predicted makespan ${s1(predictedMs)} (ideal ${s1(predicted.idealMakespanMs ?? NaN)}, passes ${predicted.settings.passMs} ms each), testbed ${s1(real.makespanMs)}: ${error >= 0 ? '+' : ''}${(error * 100).toFixed(1)}% (limit ±10%); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
        `  kmaint on the testbed: ${real.passes.length} passes, ${passStats(real.passes)}`,
        `  per node, predicted / testbed (first request created ${real.creationSkewMs} ms after its creationTimestamp):`,
        ...rows,
        '',
      ].join('\n'),
    );
    expect(predicted.admissionOrder.map((a) => a.node)).toEqual(['wit-a1', 'wit-b1', 'wit-a2', 'wit-b2', 'wit-a3', 'wit-b3']);
    expect(real.order).toEqual(['wit-a1', 'wit-b1', 'wit-a2', 'wit-b2', 'wit-a3', 'wit-b3']);
    expect(Math.abs(error)).toBeLessThanOrEqual(0.1);
  });
});
