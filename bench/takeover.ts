// `npm run takeover` (issue 23, point 4): live takeover between the upstream NVIDIA maintenance operator and kmaint
// on one fresh testbed. Forward: upstream drives a request to Draining (a PodDisruptionBudget holds one pod), is
// stopped, kmaint's `run all` loop takes over, the PDB is freed, the request reaches Ready and is released after the
// requestor deletes it. Reverse: the same with kmaint stopped mid-drain and upstream started. Counts come from a
// watch (cordon / uncordon transitions, finalizer add / remove) and the audit log (successful evictions per pod).
// Needs the operator binary: testbed/peers/build-nvidia.ts builds it from the git copy KMAINT_NVIDIA_OPERATOR_GIT.
import { errorMessage } from '../shared/errors/index.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { FINALIZER, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import { ensureNvidiaOperator, type NvidiaOperator } from '../testbed/peers/build-nvidia.ts';
import { ensureBinaries } from '../testbed/build.ts';
import { BENCH_NS, PDB_NAME, startBenchCluster, type BenchCluster } from './peers/cluster.ts';
import { DRAIN_LABEL, type Scenario } from './peers/scenario.ts';
import { installSystem, startCoordinator, type Coordinator } from './peers/systems.ts';

const REQUESTOR = 'takeover.kmaint.example';

/** Two general nodes, one per direction; on each a pod held by the PDB (`db`) and one free to go (`web`). */
export const TAKEOVER_SCENARIO: Scenario = {
  name: 'takeover',
  title: 'live takeover between the NVIDIA maintenance operator and kmaint',
  clusterNodes: 6,
  pool: 'general',
  maintained: 2,
  requestors: 1,
  maxParallelOperations: 1,
  spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, podSelector: `${DRAIN_LABEL}=yes`, timeoutSeconds: 0 } },
  pods: (node) => [
    { name: `db-${node}`, labels: { [DRAIN_LABEL]: 'yes', app: 'db' }, terminationSeconds: 2 },
    // Still stopping when the second system starts: shows whether it evicts a terminating pod again.
    { name: `web-${node}`, labels: { [DRAIN_LABEL]: 'yes', app: 'web' }, terminationSeconds: 20 },
  ],
  // Both db pods must stay: no db eviction passes until the test lowers minAvailable.
  pdb: { selector: { app: 'db' }, minAvailable: 2, blockSeconds: 0 },
  kubectl: { podSelector: `${DRAIN_LABEL}=yes` },
  nominalMakespanSeconds: 0,
  nominalSequentialSeconds: 0,
  timeoutSeconds: 300,
};

/** What one direction of the switch did to its node and request. */
export interface TakeoverCounts {
  node: string;
  /** Who drove the request to Draining, and who finished it. */
  from: 'nvidia-operator' | 'kmaint';
  to: 'nvidia-operator' | 'kmaint';
  /** Ready reasons in the order first seen. */
  phases: string[];
  /** spec.unschedulable false → true and true → false, as a watch saw them. */
  cordons: number;
  uncordons: number;
  /** Finalizer maintenance.nvidia.com/finalizer appearing on, and going from, the request. */
  finalizerAdded: number;
  finalizerRemoved: number;
  /** Successful (2xx) evictions per pod name, from the audit log, by anyone. */
  evictions: Record<string, number>;
  /** Of those, evictions of a pod already terminating (a second eviction that changes nothing server-side). */
  evictionsOfTerminating: Record<string, number>;
  /** Successful evictions by the system that started the drain, and by the one that took over. */
  evictionsBefore: number;
  evictionsAfter: number;
  /** The request reached Ready and, once deleted, is gone. */
  released: boolean;
  /** kmaint.io/ annotations left on the node at the end. */
  nodeLeftovers: Record<string, string>;
  unschedulableAtEnd: boolean;
}

export interface TakeoverResult {
  forward: TakeoverCounts;
  reverse: TakeoverCounts;
  dir: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`takeover: ${what}: not seen within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(250);
  }
}

interface Watched {
  metadata?: { name?: string; finalizers?: string[]; deletionTimestamp?: string };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; reason?: string }> };
}

/** Transitions of the nodes and requests, seen through watches as the admin; plays the requestor (deletes at Ready). */
class Tracker {
  readonly cordons = new Map<string, number>();
  readonly uncordons = new Map<string, number>();
  readonly finalizerAdded = new Map<string, number>();
  readonly finalizerRemoved = new Map<string, number>();
  readonly phases = new Map<string, string[]>();
  readonly gone = new Set<string>();
  /** When a watch first saw each bench pod with a deletionTimestamp (epoch ms). */
  readonly terminatingSince = new Map<string, number>();
  private readonly unschedulable = new Map<string, boolean>();
  private readonly hasFinalizer = new Map<string, boolean>();
  private readonly deleting = new Set<string>();
  private readonly aborts: AbortController[] = [];
  private stopped = false;

  constructor(private readonly kc: KubeConfig) {}

  async start(): Promise<void> {
    await this.watch('/api/v1/nodes', (_t, o) => this.onNode(o));
    await this.watch(`/api/v1/namespaces/${BENCH_NS}/pods`, (_t, o) => {
      if (o.metadata?.deletionTimestamp && !this.terminatingSince.has(o.metadata.name ?? '')) this.terminatingSince.set(o.metadata.name ?? '', Date.now());
    });
    await this.watch(`/apis/${GROUP}/${VERSION}/namespaces/${BENCH_NS}/${NODE_MAINTENANCE_PLURAL}`, (t, o) => this.onRequest(t, o));
  }

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
  }

  /**
   * Watches `path` again whenever the watch ends (replacing the CRDs ends a watch of their resources). Each new watch
   * starts with the current objects: the transitions are kept per object and an unchanged state counts nothing.
   */
  private async watch(path: string, onEvent: (type: string, o: Watched) => void): Promise<void> {
    const again = (): void => {
      if (!this.stopped) setTimeout(() => void this.watch(path, onEvent).catch(again), 250);
    };
    this.aborts.push(await new Watch(this.kc).watch(path, {}, (type: string, o: Watched) => onEvent(type, o), again));
  }

  phase(name: string): string | undefined {
    return this.phases.get(name)?.at(-1);
  }

  private onNode(o: Watched): void {
    const name = o.metadata?.name ?? '';
    const now = o.spec?.unschedulable === true;
    const before = this.unschedulable.get(name) ?? false;
    if (now && !before) this.cordons.set(name, (this.cordons.get(name) ?? 0) + 1);
    if (!now && before) this.uncordons.set(name, (this.uncordons.get(name) ?? 0) + 1);
    this.unschedulable.set(name, now);
  }

  private onRequest(type: string, o: Watched): void {
    const name = o.metadata?.name ?? '';
    const now = o.metadata?.finalizers?.includes(FINALIZER) === true;
    const before = this.hasFinalizer.get(name) ?? false;
    if (now && !before) this.finalizerAdded.set(name, (this.finalizerAdded.get(name) ?? 0) + 1);
    // The removal that lets a deleted object go is not stored: its DELETED event carries the object as it was before,
    // finalizer included. So a DELETED object seen holding the finalizer counts one removal.
    if ((!now || type === 'DELETED') && before) this.finalizerRemoved.set(name, (this.finalizerRemoved.get(name) ?? 0) + 1);
    this.hasFinalizer.set(name, now && type !== 'DELETED');
    const reason = o.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
    const seen = this.phases.get(name) ?? [];
    if (reason && seen.at(-1) !== reason) this.phases.set(name, [...seen, reason]);
    if (type === 'DELETED') this.gone.add(name);
    if (reason === 'Ready' && !o.metadata?.deletionTimestamp && !this.deleting.has(name)) {
      this.deleting.add(name);
      void this.kc
        .makeApiClient(CustomObjectsApi)
        .deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: BENCH_NS, plural: NODE_MAINTENANCE_PLURAL, name })
        .catch((err: unknown) => process.stderr.write(`takeover: deleting ${name}: ${String(err)}\n`));
    }
  }
}

async function createRequest(c: BenchCluster, name: string, node: string): Promise<void> {
  await c.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: BENCH_NS,
    plural: NODE_MAINTENANCE_PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace: BENCH_NS }, spec: { ...TAKEOVER_SCENARIO.spec, nodeName: node, requestorID: REQUESTOR } },
  });
}

async function requestGone(c: BenchCluster, name: string): Promise<boolean> {
  try {
    await c.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: BENCH_NS, plural: NODE_MAINTENANCE_PLURAL, name });
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
}

/**
 * Successful evictions since `mark`, per pod name; `users` limits them to those users, `terminatingSince` (when given)
 * to evictions of a pod that was already terminating (received after a watch saw its deletionTimestamp).
 */
async function evictions(c: BenchCluster, mark: number, users?: readonly string[], terminatingSince?: ReadonlyMap<string, number>): Promise<Record<string, number>> {
  await c.cp.audit.sync(60_000);
  const out: Record<string, number> = {};
  for (const e of c.cp.audit.entries({ since: mark, verb: 'create', resource: 'pods/eviction' })) {
    if (e.code < 200 || e.code > 299 || (users && !users.includes(e.user))) continue;
    const since = terminatingSince?.get(e.name ?? '');
    if (terminatingSince && (since === undefined || Date.parse(e.at) <= since)) continue;
    out[e.name ?? ''] = (out[e.name ?? ''] ?? 0) + 1;
  }
  return out;
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

interface Side {
  name: 'nvidia-operator' | 'kmaint';
  start(): Promise<Coordinator>;
}

/** One direction: `first` to Draining with web evicted, killed; `second` finishes; the requestor releases. */
async function switchOnce(c: BenchCluster, tracker: Tracker, node: string, first: Side, second: Side, minAvailableAfter: number, log: (l: string) => void): Promise<TakeoverCounts> {
  const request = `takeover-${first.name}-to-${second.name}`;
  await c.cp.audit.sync();
  const mark = c.cp.audit.mark();
  const one = await first.start();
  await createRequest(c, request, node);
  await until(`${request} Draining under ${first.name}`, 120_000, () => tracker.phase(request) === 'Draining');
  await until(`${first.name} evicted web-${node}`, 60_000, async () => ((await evictions(c, mark, [one.user]))[`web-${node}`] ?? 0) >= 1);
  log(`${request}: Draining under ${first.name}, web-${node} evicted; stopping ${first.name}`);
  await one.kill();
  if (second.name === 'kmaint') {
    // The documented handover (README, "Moving from the NVIDIA maintenance operator"): kmaint lifts only cordons its own
    // node record names, and upstream leaves none, so the administrator hands over the cordon upstream made.
    await c.kubectl(['annotate', 'node', node, `kmaint.io/cordoned-by=kmaint/${BENCH_NS}/${request}`]);
  }
  const evictionsBefore = sum(await evictions(c, mark, [one.user]));
  const two = await second.start();
  log(`${second.name} started; freeing db-${node} (PDB minAvailable ${minAvailableAfter})`);
  await c.kubectl(['patch', 'pdb', '-n', BENCH_NS, PDB_NAME, '--type=merge', '-p', JSON.stringify({ spec: { minAvailable: minAvailableAfter } })]);
  await until(`${request} released under ${second.name}`, TAKEOVER_SCENARIO.timeoutSeconds * 1000, async () => tracker.gone.has(request) || (await requestGone(c, request)));
  await until(`${node} uncordoned`, 60_000, () => (tracker.uncordons.get(node) ?? 0) >= 1);
  await two.kill();
  const perPod = await evictions(c, mark);
  const nodeObj = await c.admin.makeApiClient(CoreV1Api).readNode({ name: node });
  const annotations = nodeObj.metadata?.annotations ?? {};
  return {
    node,
    from: first.name,
    to: second.name,
    phases: tracker.phases.get(request) ?? [],
    cordons: tracker.cordons.get(node) ?? 0,
    uncordons: tracker.uncordons.get(node) ?? 0,
    finalizerAdded: tracker.finalizerAdded.get(request) ?? 0,
    finalizerRemoved: tracker.finalizerRemoved.get(request) ?? 0,
    evictions: perPod,
    evictionsOfTerminating: await evictions(c, mark, undefined, tracker.terminatingSince),
    evictionsBefore,
    evictionsAfter: sum(await evictions(c, mark, [two.user])),
    released: await requestGone(c, request),
    nodeLeftovers: Object.fromEntries(Object.entries(annotations).filter(([k]) => k.startsWith('kmaint.io/'))),
    unschedulableAtEnd: nodeObj.spec?.unschedulable === true,
  };
}

/** Both directions on one fresh testbed in a new temporary directory; stops everything it started. */
export async function runTakeover(opts: { nvidia: NvidiaOperator; log?: (line: string) => void }): Promise<TakeoverResult> {
  const log = opts.log ?? ((l: string) => void process.stderr.write(`[takeover] ${l}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-takeover-'));
  const c = await startBenchCluster(dir, TAKEOVER_SCENARIO, log);
  const tracker = new Tracker(c.admin);
  try {
    const nvidiaLogin = await installSystem('nvidia-operator', c, TAKEOVER_SCENARIO, opts.nvidia);
    // After the CRDs exist: a watch of an unknown resource ends at once with 404.
    await tracker.start();
    let kmaintLogin: { kubeconfig: string; user: string } | undefined;
    const nvidia: Side = { name: 'nvidia-operator', start: () => startCoordinator('nvidia-operator', c, nvidiaLogin, TAKEOVER_SCENARIO, opts.nvidia, log) };
    const kmaint: Side = {
      name: 'kmaint',
      start: async () => {
        // Installed at the first switch, as a user moving over would: kmaint's CRDs replace upstream's.
        // installSystem also writes kmaint's config (maxParallelOperations 1) in its own namespace.
        kmaintLogin ??= await installSystem('kmaint', c, TAKEOVER_SCENARIO, opts.nvidia);
        return startCoordinator('kmaint', c, kmaintLogin, TAKEOVER_SCENARIO, opts.nvidia, log);
      },
    };
    const [a, b] = c.targets as [string, string];
    const forward = await switchOnce(c, tracker, a, nvidia, kmaint, 1, log);
    const reverse = await switchOnce(c, tracker, b, kmaint, nvidia, 0, log);
    return { forward, reverse, dir };
  } finally {
    tracker.stop();
    await c.stop();
  }
}

function render(r: TakeoverCounts): string {
  const most = Math.max(0, ...Object.values(r.evictions));
  return [
    `${r.from} → ${r.to} on ${r.node}: phases ${r.phases.join(' → ')}; released ${r.released}`,
    `  cordons ${r.cordons}, uncordons ${r.uncordons}, unschedulable at the end ${r.unschedulableAtEnd}`,
    `  finalizer added ${r.finalizerAdded}, removed ${r.finalizerRemoved}`,
    `  successful evictions ${JSON.stringify(r.evictions)} (most per pod ${most}; ${r.evictionsBefore} by ${r.from}, ${r.evictionsAfter} by ${r.to}); of pods already terminating ${JSON.stringify(r.evictionsOfTerminating)}`,
    `  kmaint.io/ annotations left on the node: ${JSON.stringify(r.nodeLeftovers)}`,
  ].join('\n');
}

/** What a direction did wrong for a clean takeover: not one cordon, uncordon and finalizer removal, or a live pod evicted twice. */
export function takeoverProblems(r: TakeoverCounts): string[] {
  const out: string[] = [];
  if (!r.released) out.push('the request was not released');
  if (r.cordons !== 1) out.push(`cordoned ${r.cordons} times`);
  if (r.uncordons !== 1) out.push(`uncordoned ${r.uncordons} times`);
  if (r.finalizerRemoved !== 1) out.push(`finalizer removed ${r.finalizerRemoved} times`);
  // An eviction of a pod already terminating changes nothing (the pod is going anyway): counted apart, reported above.
  for (const [pod, n] of Object.entries(r.evictions)) if (n - (r.evictionsOfTerminating[pod] ?? 0) > 1) out.push(`${pod} evicted ${n} times`);
  return out.map((p) => `${r.from} → ${r.to}: ${p}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const main = async (): Promise<number> => {
    await ensureBinaries();
    const nvidia = await ensureNvidiaOperator();
    const started = Date.now();
    const result = await runTakeover({ nvidia });
    process.stdout.write(`${render(result.forward)}\n${render(result.reverse)}\n(${Math.round((Date.now() - started) / 1000)} s; the testbed is stopped and removed)\n`);
    const problems = [...takeoverProblems(result.forward), ...takeoverProblems(result.reverse)];
    for (const p of problems) process.stderr.write(`takeover: ${p}\n`);
    return problems.length === 0 ? 0 : 1;
  };
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`takeover: ${errorMessage(err)}\n`);
      process.exit(1);
    },
  );
}
