// kmaint under API faults on the testbed: every pass goes through the fault proxy (testbed/fault-proxy) injecting
// 500, 503, 429 with Retry-After, 409, latency and connections dropped before and after the API server saw the request,
// while the checks read the cluster directly (not through the proxy, not from kmaint's own state).
import { errorMessage } from '../shared/errors/index.ts';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import { kubeConfigThroughProxy, proxyCertificate, startFaultProxy, uniformFaults, type FaultProxy, type FaultRule, type ProxyCertificate } from '../testbed/fault-proxy/index.ts';
import { bothReadsCordoned, checkEnd, checkPodWrites, checkSample, type ActorFacts, type ClusterSample, type UnavailableLimit } from '../soak/invariants.ts';
import { formatSoakTable, runSoak, unavailableLimitsOver } from '../soak/run-soak.ts';
import { adminKubeConfig, auditLog, kmaintKubeConfig, kubectl, testbed } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, createNM, deleteNM, generalNodes, installCrds, isUnschedulable, nodes, phaseOf, setConfig, setUnschedulable } from './support/kmaint.ts';

const ns = `faults-${randomBytes(3).toString('hex')}`;
const REQUESTOR = 'faults.example.com';
const MAX_PARALLEL = 2;
const SEED = 8;
/** Requests in the middle of their lifecycle count against maxParallelOperations (upstream's nodesUnderMaintenance). */
const NOT_IN_PROGRESS = new Set(['', 'Pending']);

/** ~10% of every request fails in one of the six ways, plus a hotter rule on the writes that cordon and uncordon nodes. */
const RULES: FaultRule[] = [
  // The first node patch always gets a 409: the run's node patches are few (tens) and which of them draw which fault
  // depends on the passes' interleaving, so the 5% below once drew none in a loaded run (the check at the end of the
  // first test needs every kind). Then the node patches go to the rule after it.
  { verbs: ['patch'], resources: ['nodes'], rates: { '409': 1 }, maxFaults: 1, thenNext: true, latencyMs: 2, jitterMs: 30 },
  { verbs: ['patch'], resources: ['nodes'], rates: { 'drop-after': 0.2, '409': 0.05, '503': 0.05 }, latencyMs: 2, jitterMs: 30 },
  // No invented 409 on the pass leases: a 409 on a lease means another pass wrote it, and the one giving a lease back
  // then rightly leaves it to expire (120 s). Real conflicts on leases come from the concurrent passes of the soak.
  { resources: ['leases'], rates: { '500': 0.02, '503': 0.02, '429': 0.02, 'drop-before': 0.02, 'drop-after': 0.02 }, latencyMs: 2, jitterMs: 30 },
  ...uniformFaults(0.1, { latencyMs: 2, jitterMs: 30, retryAfterSeconds: 1 }),
];

const nameOf = (o: { metadata?: { name?: string } }): string => o.metadata?.name ?? '';

async function listNMs(): Promise<NodeMaintenance[]> {
  return ((await admin().custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] }).items;
}

describe('kmaint through a fault-injecting proxy on the testbed', () => {
  let proxy: FaultProxy;
  let cert: ProxyCertificate;
  let requested: string[] = [];
  let handCordoned = '';
  const initialUnschedulable = new Map<string, boolean>();

  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    await setConfig({ maxParallelOperations: MAX_PARALLEL });
    const workers = (await nodes()).filter((n) => ['general', 'gpu'].includes(n.metadata?.labels?.['kmaint.io/pool'] ?? ''));
    requested = workers.map(nameOf).sort();
    expect(requested.length).toBeGreaterThanOrEqual(5);
    // One node an administrator cordoned before its maintenance: kmaint must leave it cordoned.
    handCordoned = requested[0] as string;
    await setUnschedulable(handCordoned, true);
    for (const n of await nodes()) initialUnschedulable.set(nameOf(n), n.spec?.unschedulable === true);
    for (const node of requested) {
      await bindPod(ns, `drain-${node}`, node, { labels: { app: 'drain-me' } });
      await bindPod(ns, `keep-${node}`, node, { labels: { app: 'keep' } });
    }
    cert = proxyCertificate();
    proxy = await startFaultProxy({ upstream: testbed().server, upstreamCa: readFileSync(testbed().caFile), tls: cert, seed: SEED, rules: RULES });
  });

  afterAll(async () => {
    await proxy?.close();
    await setUnschedulable(handCordoned, false);
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it(
    'every request reaches Ready and is released, never more than maxParallelOperations in progress, nothing outside the drain selection evicted, no pass thrown',
    async () => {
      const kc = kubeConfigThroughProxy(kmaintKubeConfig(), proxy.url, cert.cert);
      const client = new KubeClient(kc);
      // Pods kmaint must not touch: everything on the requested nodes outside drainSpec.podSelector, by uid.
      const podsBefore = (await admin().core.listPodForAllNamespaces()).items.filter((p) => requested.includes(p.spec?.nodeName ?? ''));
      // A Job's pod ends by itself (a CronJob's activeDeadlineSeconds, history limits): what kmaint did to it is
      // checked in the audit log below instead.
      const endsByItself = (p: V1Pod): boolean => (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job');
      const untouchable = new Map(
        podsBefore.filter((p) => p.metadata?.labels?.['app'] !== 'drain-me' && !endsByItself(p)).map((p) => [`${p.metadata?.namespace}/${nameOf(p)}`, p.metadata?.uid ?? '']),
      );
      const audit = auditLog();
      await audit.sync();
      const auditMark = audit.mark();
      expect(untouchable.size).toBeGreaterThanOrEqual(requested.length);

      const request = (name: string, node: string): Promise<unknown> =>
        createNM(ns, name, { requestorID: REQUESTOR, nodeName: node, cordon: true, drainSpec: { force: true, podSelector: 'app=drain-me', deleteEmptyDir: true, timeoutSeconds: 0 } });
      for (const node of requested) await request(`nm-${node}`, node);
      const secondRound = new Set<string>();

      // The invariant checker: samples the objects while the passes run.
      const violations: string[] = [];
      let samples = 0;
      let peakInProgress = 0;
      let sampling = true;
      const sample = async (): Promise<void> => {
        while (sampling) {
          // Nodes on both sides of the requests: a node counts as cordoned only when both reads say so (bothReadsCordoned).
          const nodesBefore = new Map((await admin().core.listNode()).items.map((n) => [nameOf(n), n]));
          const nms = await listNMs();
          const nodeList: V1Node[] = bothReadsCordoned(nodesBefore, (await admin().core.listNode()).items);
          samples++;
          const inProgress = new Set(nms.filter((nm) => !NOT_IN_PROGRESS.has(phaseOf(nm) ?? '') || nm.metadata.deletionTimestamp).map((nm) => nm.spec.nodeName));
          peakInProgress = Math.max(peakInProgress, inProgress.size);
          if (inProgress.size > MAX_PARALLEL) violations.push(`${inProgress.size} in progress (${[...inProgress].join(', ')}), maxParallelOperations ${MAX_PARALLEL}`);
          for (const n of nodeList) {
            const name = nameOf(n);
            if (n.spec?.unschedulable === true && initialUnschedulable.get(name) === false) {
              const holder = nms.find((nm) => nm.spec.nodeName === name && (nm.metadata.finalizers ?? []).includes(FINALIZER));
              if (!holder) violations.push(`node ${name} cordoned with no request holding the finalizer`);
            }
            if (name === handCordoned && n.spec?.unschedulable !== true) violations.push(`node ${name}, cordoned by hand before its maintenance, was uncordoned`);
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const checker = sample();

      // The passes (through the proxy) and the requestor (directly): delete each request once it is Ready.
      const thrown: string[] = [];
      const writeErrors: string[] = [];
      const becameReady = new Set<string>();
      let passes = 0;
      const deadline = Date.now() + 200_000;
      try {
        for (;;) {
          for (const fn of ['scheduler', 'drainer', 'cleanup'] as PassFunction[]) {
            passes++;
            try {
              const summary = await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date() });
              writeErrors.push(...summary.errors);
            } catch (err) {
              thrown.push(`${fn}: ${errorMessage(err)}`);
            }
          }
          const nms = await listNMs();
          for (const nm of nms) {
            if (phaseOf(nm) === 'Ready' && !becameReady.has(nm.metadata.name)) {
              becameReady.add(nm.metadata.name);
              await deleteNM(ns, nm.metadata.name);
            }
          }
          // A second maintenance of each node once its first is gone, with a new pod to drain.
          for (const node of requested) {
            if (becameReady.has(`nm-${node}`) && !secondRound.has(node) && !nms.some((nm) => nm.spec.nodeName === node)) {
              secondRound.add(node);
              await bindPod(ns, `drain2-${node}`, node, { labels: { app: 'drain-me' } });
              await request(`nm2-${node}`, node);
            }
          }
          if (nms.length === 0 && secondRound.size === requested.length) break;
          if (Date.now() > deadline) {
            const state = nms.map((nm) => `${nm.metadata.name}=${phaseOf(nm)}${nm.metadata.deletionTimestamp ? ' (deleting)' : ''}: ${nm.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? ''}`);
            throw new Error(`not done in time: ${state.join('; ')}; thrown: ${thrown.join(' | ')}; write errors: ${writeErrors.slice(-5).join(' | ')}`);
          }
        }
      } finally {
        sampling = false;
        await checker;
      }

      const podsAfter = new Map<string, V1Pod>((await admin().core.listPodForAllNamespaces()).items.map((p) => [`${p.metadata?.namespace}/${nameOf(p)}`, p]));
      const touched = [...untouchable].filter(([key, uid]) => podsAfter.get(key)?.metadata?.uid !== uid || podsAfter.get(key)?.metadata?.deletionTimestamp).map(([key]) => key);
      const drainLeft = requested.flatMap((node) => [`${ns}/drain-${node}`, `${ns}/drain2-${node}`]).filter((key) => podsAfter.has(key));
      const finalSchedulability = Object.fromEntries((await nodes()).map((n) => [nameOf(n), n.spec?.unschedulable === true]));

      process.stderr.write(
        `[faults] ${passes} passes, ${proxy.counts.requests} requests through the proxy, faults ${JSON.stringify(proxy.counts.faults)}, ` +
          `${proxy.counts.delayed} delayed (${proxy.counts.delayMsTotal} ms), ${samples} invariant samples, peak ${peakInProgress} in progress, ` +
          `${writeErrors.length} write errors reported by passes${writeErrors.length ? `: ${writeErrors.slice(0, 5).join(' | ')}` : ''}\n`,
      );

      expect(thrown).toEqual([]);
      expect(violations).toEqual([]);
      expect([...becameReady].sort()).toEqual([...requested.map((n) => `nm-${n}`), ...requested.map((n) => `nm2-${n}`)]);
      expect(await listNMs()).toEqual([]);
      expect(finalSchedulability).toEqual(Object.fromEntries(initialUnschedulable));
      expect(touched).toEqual([]);
      // Every eviction and pod deletion kmaint's ServiceAccount sent was of a pod in the drain selection.
      await audit.sync();
      const drainPods = new Set(requested.flatMap((node) => [`drain-${node}`, `drain2-${node}`]));
      const podWrites = audit.entries({ since: auditMark, user: testbed().kmaintUser }).filter((e) => (e.resource === 'pods/eviction' && e.verb === 'create') || (e.resource === 'pods' && e.verb === 'delete'));
      expect(podWrites.filter((e) => e.namespace !== ns || !drainPods.has(e.name ?? '')).map((e) => `${e.verb} ${e.resource} ${e.namespace ?? ''}/${e.name ?? ''}`)).toEqual([]);
      expect(podWrites.length).toBeGreaterThanOrEqual(drainPods.size);
      expect(drainLeft).toEqual([]);
      expect(peakInProgress).toBe(MAX_PARALLEL);
      // The run was really under faults, of every kind its rules inject (410 on continued LISTs is test/hostile.test.ts's;
      // 403 is no transient fault, sim/whatif/snapshot-devices.test.ts's).
      const injects = new Set(RULES.flatMap((r) => Object.entries(r.rates).flatMap(([kind, rate]) => (rate > 0 ? [kind] : []))));
      expect([...injects].sort()).toEqual(['409', '429', '500', '503', 'drop-after', 'drop-before']);
      for (const kind of injects) expect([kind, ((proxy.counts.faults as Record<string, number>)[kind] ?? 0) > 0]).toEqual([kind, true]);
    },
    240_000,
  );

  it('a lease write whose answer is lost (drop after send) does not leave the function waiting out the lease', async () => {
    const client = new KubeClient(kubeConfigThroughProxy(kmaintKubeConfig(), proxy.url, cert.cert));
    const outcomes: string[] = [];
    const run = async (fn: PassFunction, holder: string): Promise<void> => {
      const s = await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date(), holder });
      outcomes.push(`${fn} ${holder}: ${s.outcome}${s.leaseHolder ? ` (held by ${s.leaseHolder})` : ''}`);
    };
    // One drop after send of one lease write, then the cluster behaves.
    const dropOnce = (verb: string): void => proxy.setRules([{ verbs: [verb], resources: ['leases'], rates: { 'drop-after': 1 }, maxFaults: 1 }]);
    try {
      // The create of a lease nobody holds yet: the API server creates it, the pass sees the connection close, its retry gets 409 AlreadyExists.
      expect((await kubectl(['delete', 'lease', '-n', KMAINT_NS, 'kmaint-cleanup', '--ignore-not-found'])).code).toBe(0);
      const dropsBefore = proxy.counts.faults['drop-after'];
      dropOnce('create');
      await run('cleanup', 'c-1');
      await run('cleanup', 'c-2');
      // The PUT that takes a released lease: it lands, the answer is lost, the retry's precondition fails with 409.
      await run('drainer', 'd-0');
      dropOnce('update');
      await run('drainer', 'd-1');
      await run('drainer', 'd-2');
      expect({ outcomes, drops: proxy.counts.faults['drop-after'] - dropsBefore }).toEqual({
        outcomes: ['cleanup c-1: applied', 'cleanup c-2: applied', 'drainer d-0: applied', 'drainer d-1: applied', 'drainer d-2: applied'],
        drops: 2,
      });
    } finally {
      proxy.setRules(RULES);
    }
  });

  it('a short fixed-seed soak (seed 1, 40 s of requestors and an administrator, 5% faults, 3 copies of each pass and a `kmaint run all` loop, passes and runs killed mid-way, one node cordoned by another tool throughout) ends with 0 invariant violations', async () => {
    // A node someone else cordoned before the soak: requests may name it, and it must end cordoned (nobody but its owner lifts it).
    const elsewhere = (await generalNodes()).at(-1) ?? '';
    await setUnschedulable(elsewhere, true);
    let stillCordoned: boolean;
    let report: Awaited<ReturnType<typeof runSoak>>;
    try {
      report = await runSoak({
        seed: 1,
        activeMs: 40_000,
        windDownMs: 45_000,
        admin: adminKubeConfig(),
        kmaint: kmaintKubeConfig(),
        server: testbed().server,
        caPem: readFileSync(testbed().caFile, 'utf8'),
        kmaintNamespace: KMAINT_NS,
        audit: { log: auditLog(), kmaintUser: testbed().kmaintUser },
        log: (line) => void process.stderr.write(`[soak] ${line}\n`),
      });
      process.stderr.write(`${formatSoakTable(report)}\n`);
      stillCordoned = await isUnschedulable(elsewhere);
    } finally {
      await setUnschedulable(elsewhere, false);
    }
    expect(stillCordoned).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.completed).toBe(report.created);
    expect(report.passes.thrown).toEqual([]);
    // It was a soak: requests went through, passes were killed, runs ran, faults were injected.
    expect(report.created > 0 && report.passes.killed > 0 && report.passes.runs > 0 && report.faults['drop-after'] > 0).toBe(true);
  }, 115_000);
});

// The checker must be able to fail: each rule fed a pair of samples that breaks it, with the exact message.
describe('the soak invariant checker', () => {
  const node = (name: string, unschedulable = false, ready = true): V1Node => ({ metadata: { name }, spec: unschedulable ? { unschedulable: true } : {}, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  const nm = (name: string, nodeName: string, phase: string, finalizer = true, message = ''): NodeMaintenance => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'NodeMaintenance',
    metadata: { name, namespace: 'ns', ...(finalizer ? { finalizers: [FINALIZER] } : {}) },
    spec: { requestorID: 'r', nodeName },
    ...(phase ? { status: { conditions: [{ type: 'Ready', status: 'False', reason: phase, message, lastTransitionTime: '2026-01-01T00:00:00Z' }] } } : {}),
  }) as NodeMaintenance;
  const pod = (name: string, nodeName: string, labels: Record<string, string>, owner?: string): V1Pod => ({
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels, ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner, name: 'o', uid: 'o' }] } : {}) },
    spec: { nodeName, containers: [] },
  });
  const facts: ActorFacts = { maxParallelSince: 1, zeroUnavailableThroughout: false, handCordonedAny: new Set(), handCordonedAll: new Set(), initiallyCordoned: new Set(), deletedNodes: new Set(), deletedByRequestors: new Set() };
  const sample = (s: Partial<ClusterSample>): ClusterSample => ({ nms: [], nodes: [], pods: [], ...s });

  it.each<[string, ClusterSample, ClusterSample, Partial<ActorFacts>, string[]]>([
    ['an admission over maxParallelOperations', sample({ nodes: [node('n1'), node('n2')], nms: [nm('a', 'n1', 'Draining'), nm('b', 'n2', 'Pending')] }), sample({ nodes: [node('n1'), node('n2')], nms: [nm('a', 'n1', 'Draining'), nm('b', 'n2', 'Scheduled')] }), {}, ['2 requests in progress (ns/b just admitted), maxParallelOperations 1: ns/a Draining on n1 (no record); ns/b Scheduled on n2 (no record)']],
    ['nothing wrong: the request of a deleted node holds nothing', sample({ nodes: [node('n2')], nms: [nm('a', 'n1', 'Draining'), nm('b', 'n2', 'Pending')] }), sample({ nodes: [node('n2')], nms: [nm('a', 'n1', 'Draining'), nm('b', 'n2', 'Scheduled')] }), {}, []],
    ['an admission under maxUnavailable 0 on an available node', sample({ nodes: [node('n1')], nms: [nm('a', 'n1', 'Pending')] }), sample({ nodes: [node('n1')], nms: [nm('a', 'n1', 'Scheduled')] }), { zeroUnavailableThroughout: true }, ['ns/a admitted under maxUnavailable 0 on available node n1']],
    ['a cordon no request holds', sample({ nodes: [node('n1')] }), sample({ nodes: [node('n1', true)], nms: [nm('a', 'n1', 'Ready', false)] }), {}, ['node n1 cordoned with no request holding the finalizer']],
    ['a hand cordon lifted', sample({ nodes: [node('n1', true)] }), sample({ nodes: [node('n1')] }), { handCordonedAll: new Set(['n1']), handCordonedAny: new Set(['n1']) }, ['node n1, cordoned by an administrator, was uncordoned']],
    ['a pod outside the drain selection evicted', sample({ pods: [pod('keep', 'n1', { 'kmaint-soak/role': 'keep' }), pod('drain', 'n1', { 'kmaint-soak/role': 'drain' })] }), sample({}), {}, ['pod ns/keep (kmaint-soak/role=keep) outside every drain selection was deleted or evicted']],
    ['a DaemonSet pod deleted', sample({ pods: [pod('ds', 'n1', {}, 'DaemonSet')] }), sample({}), {}, ['daemonset pod ns/ds on n1 was deleted or evicted']],
    ['nothing wrong: pods of a deleted node, an admission within the limit', sample({ nodes: [node('n2')], pods: [pod('keep', 'n1', { 'kmaint-soak/role': 'keep' })], nms: [nm('b', 'n2', 'Pending')] }), sample({ nodes: [node('n2')], nms: [nm('b', 'n2', 'Scheduled')] }), { deletedNodes: new Set(['n1']) }, []],
  ])('names %s', (_name, prev, now, override, expected) => {
    expect(checkSample(prev, now, { ...facts, ...override }).violations).toEqual(expected);
  });

  const zoneOf = (n: V1Node): string => (n.metadata?.name === 'n4' ? 'b' : 'a');
  const cluster2: UnavailableLimit = { scope: 'cluster', limit: 2, members: () => true };
  const zoneA1: UnavailableLimit = { scope: 'zone a', limit: 1, members: (n) => zoneOf(n) === 'a' };
  const waiting = 'waiting: maxParallelOperations 1 reached (1 in progress)';
  it.each<[string, ClusterSample, ClusterSample, UnavailableLimit[], string[]]>([
    [
      'an admission taking a cluster over maxUnavailable 2 (one hand cordon, one request in progress)',
      sample({ nodes: [node('n1', true), node('n2'), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Pending', true, waiting)] }),
      sample({ nodes: [node('n1', true), node('n2', true), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Scheduled')] }),
      [cluster2],
      ['cluster maxUnavailable 2: n3 admitted while 2 nodes were unavailable (n1, n2)'],
    ],
    [
      'nothing wrong: the hand cordon lifted in between made room',
      sample({ nodes: [node('n1', true), node('n2'), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Pending', true, waiting)] }),
      sample({ nodes: [node('n1'), node('n2', true), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Scheduled')] }),
      [cluster2],
      [],
    ],
    [
      'a zone over its limit; the node of another zone does not count',
      sample({ nodes: [node('n1', true, false), node('n3'), node('n4', true)], nms: [nm('b', 'n3', 'Pending', true, waiting)] }),
      sample({ nodes: [node('n1', true, false), node('n3'), node('n4', true)], nms: [nm('b', 'n3', 'Scheduled')] }),
      [zoneA1],
      ['zone a maxUnavailable 1: n3 admitted while 1 nodes were unavailable (n1)'],
    ],
    [
      'nothing wrong: an admission on a node already unavailable takes nothing',
      sample({ nodes: [node('n1', true), node('n3', true)], nms: [nm('b', 'n3', 'Pending', true, waiting)] }),
      sample({ nodes: [node('n1', true), node('n3', true)], nms: [nm('b', 'n3', 'Scheduled')] }),
      [zoneA1],
      [],
    ],
    [
      'a Pending request whose message names no limit',
      sample({ nms: [] }),
      sample({
        nms: [
          nm('p', 'n1', 'Pending', true, ''),
          nm('q', 'n2', 'Pending', true, 'waiting: zone a: maxUnavailablePerZone 1 reached (0 under maintenance + 1 cordoned or not ready)'),
          nm('r', 'n3', 'Pending', true, 'waiting: gang kmaint-soak/clique=clique-1 (2 requests) has 1 admitted and completes before anything else starts: maxParallelOperations 4 reached (5 in progress)'),
        ],
      }),
      [],
      ['ns/p Pending with a message naming no limit: ""'],
    ],
  ])('names %s', (_name, prev, now, limits, expected) => {
    // The cordons here are an administrator's (the cordon rules have rows of their own above).
    expect(checkSample(prev, now, { ...facts, maxParallelSince: 10, handCordonedAny: new Set(['n1', 'n3', 'n4']), unavailableLimits: limits }).violations).toEqual(expected);
  });

  it('a node the administrator uncordoned and cordoned again between two samples does not count as held through an admission', () => {
    const prev = sample({ nodes: [node('n1', true), node('n2'), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Pending', true, waiting)] });
    const now = sample({ nodes: [node('n1', true), node('n2', true), node('n3')], nms: [nm('a', 'n2', 'Draining'), nm('b', 'n3', 'Scheduled')] });
    const base = { ...facts, maxParallelSince: 10, handCordonedAny: new Set(['n1']), unavailableLimits: [cluster2] };
    expect(checkSample(prev, now, { ...base, adminTouched: new Set(['n1']) }).violations).toEqual([]);
    // The same samples without the administrator's change in between: n1 was cordoned throughout.
    expect(checkSample(prev, now, { ...base, adminTouched: new Set<string>() }).violations).toEqual(['cluster maxUnavailable 2: n3 admitted while 2 nodes were unavailable (n1, n2)']);
  });

  it('the availability limits checked over a window: each scope at its largest value, none where one config left it unlimited', () => {
    const limits = unavailableLimitsOver(
      [
        { at: 1, maxParallel: 2, zeroUnavailable: false, maxUnavailable: 4, maxUnavailablePerZone: 2 },
        { at: 2, maxParallel: 3, zeroUnavailable: false, maxUnavailable: 6, maxUnavailablePerZone: 3, gpuPoolUnavailable: 1 },
      ],
      ['a', 'b'],
    );
    expect(limits.map((l) => [l.scope, l.limit])).toEqual([['cluster', 6], ['zone a', 3], ['zone b', 3]]);
    const gpuNode: V1Node = { metadata: { name: 'g', labels: { 'kmaint.io/pool': 'gpu', 'topology.kubernetes.io/zone': 'b' } } };
    expect(limits.map((l) => l.members(gpuNode))).toEqual([true, false, true]);
    expect(unavailableLimitsOver([{ at: 1, maxParallel: 1, zeroUnavailable: true, maxUnavailable: 0, gpuPoolUnavailable: 2 }], []).map((l) => [l.scope, l.limit])).toEqual([['pool gpu', 2]]);
  });

  it('no eviction bypasses a budget: a plain DELETE of a running pod is named; evictions of budgeted pods are counted by answer', () => {
    const result = checkPodWrites(
      [
        { verb: 'evict', namespace: 'ns', name: 'a', code: 201 },
        { verb: 'evict', namespace: 'ns', name: 'b', code: 429 },
        { verb: 'evict', namespace: 'ns', name: 'free', code: 201 },
        { verb: 'delete', namespace: 'ns', name: 'done', code: 200 },
        { verb: 'delete', namespace: 'ns', name: 'b', code: 200 },
      ],
      new Map([['ns/a', 'Running'], ['ns/b', 'Running'], ['ns/free', 'Running'], ['ns/done', 'Succeeded']]),
      new Set(['ns/a', 'ns/b']),
    );
    expect(result).toEqual({ violations: ['pod ns/b (in a PodDisruptionBudget), Running, deleted by kmaint without the eviction API'], checks: 5, evictions: 1, refusedByBudget: 1 });
  });

  it('a node counts as cordoned only when the reads before and after the requests both say so', () => {
    const before = new Map([['n1', node('n1')], ['n2', node('n2', true)], ['n3', node('n3', true)]]);
    const merged = bothReadsCordoned(before, [node('n1', true), node('n2', true), node('n3'), node('n4', true)]);
    expect(merged.map((n) => [n.metadata?.name, n.spec?.unschedulable === true])).toEqual([
      ['n1', false],
      ['n2', true],
      ['n3', false],
      ['n4', true],
    ]);
  });

  it('the end state: requests left and nodes not back to their initial schedulability', () => {
    const end = sample({ nms: [nm('a', 'n1', 'Ready')], nodes: [node('n1', true), node('n2'), node('n3', true)] });
    expect(checkEnd(end, new Map([['n1', false], ['n2', false], ['n3', true]]), new Set()).violations).toEqual(['1 requests left: ns/a Ready', 'node n1 ends cordoned, started schedulable']);
  });
});
