// One seeded soak on a running cluster: the fault proxy in front of its API server, kmaint's passes through it,
// requestors and an administrator around it, and the invariant checker sampling the cluster until the end.
import { errorMessage } from '../shared/errors/index.ts';
import { ApiextensionsV1Api, CoordinationV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { AuditEntry, AuditFilter } from '../testbed/audit.ts';
import { GROUP, MEDIK8S_LEASE_NAMESPACE, NODE_MAINTENANCE_PLURAL, TAINT_OUT_OF_SERVICE, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { createRng, deriveSeed } from '../sim/generator/prng.ts';
import { FAULT_KINDS, kubeConfigThroughProxy, proxyCertificate, startFaultProxy, uniformFaults, type FaultKind, type FaultRule } from '../testbed/fault-proxy/index.ts';
import { bindPod, clientsOf, liftHandCordons, POOL_LABEL, runAdministrator, runRequestor, workerNames, writeConfig, ZONE_LABEL, type LimitRecord, type NodeControl, type World } from './actors.ts';
import { BUDGET_GROUPS, bothReadsCordoned, checkEnd, checkPodWrites, checkSample, SOAK_BUDGET, type ClusterSample, type PodWrite, type UnavailableLimit } from './invariants.ts';
import { decorateSingle, runCloudEvents, runGangRequestor, runNodeKiller, runOtherTool, runSriovDaemon } from './feature-actors.ts';
import { createFeatureChecker, featureRows, NOTHING_SEEN, type FeatureReport } from './feature-checker.ts';
import { checkLeftovers, checkSlurmLeftovers } from './feature-invariants.ts';
import { setUpFeatures, type FeatureSetup } from './feature-setup.ts';
import { ALL_ON, SLURM_TOKEN_ENV, withAvailable, type SoakProfile } from './features.ts';
import { placeSlurmWorkers, readSlurm, runSlurmActor, setUpSlurmWorkers, type SlurmSeen, type SoakSlurm } from './slurm-feature.ts';
import { drivePasses, runUntilQuiet, type PassTally } from './passes.ts';

export interface SoakOptions {
  seed: number;
  /** Time with requestors creating and the administrator at work; the wind-down comes after. */
  activeMs: number;
  /** Longest wind-down: every request must be Ready and released within it. @default 180000 */
  windDownMs?: number;
  admin: KubeConfig;
  kmaint: KubeConfig;
  /** The API server behind the proxy and the CA that signed it ('' for plain HTTP). */
  server: string;
  caPem: string;
  /** Namespace of the MaintenanceOperatorConfig and the pass leases. */
  kmaintNamespace: string;
  /** @default 0.05 */
  faultRate?: number;
  /** @default 3 (copies of each function at once) */
  copies?: number;
  /** Share of passes killed after their 1st to 6th write. @default 0.1 */
  killRate?: number;
  /** Lease duration of the soak's passes: how long a killed pass holds its function up. @default 5 */
  leaseSeconds?: number;
  /** NotReady episodes and node deletions need the simulated kubelet; without it they are not played. */
  nodeControl?: NodeControl;
  /** The API server's audit log and kmaint's user in it: kmaint's pod writes are checked against the budgets. */
  audit?: { log: SoakAuditLog; kmaintUser: string };
  log?: (line: string) => void;
  /**
   * `all-features` adds gangs, deadlines, not-before, SR-IOV, DRA pods, medik8s leases, dead kubelets, cloud events,
   * flips each feature's switch during the run, and checks soak/feature-invariants.ts too. @default 'basic'
   */
  profile?: SoakProfile;
  /** The all-features profile's real Slurm (the testbed runner starts one from slurm/); absent, the Slurm switch stays off. */
  slurm?: SoakSlurm;
  /** Why there is no Slurm (reported), when the runner could not start one. */
  slurmProblem?: string;
  /** Run after the all-features objects exist (their namespaces): the testbed grants kmaint's RBAC there (infra/sriov, infra/medik8s). */
  afterFeatureSetup?: () => Promise<void>;
}

/** What the soak reads of an audit log (testbed/audit.ts). */
export interface SoakAuditLog {
  sync(timeoutMs?: number): Promise<void>;
  mark(): number;
  entries(filter?: AuditFilter): AuditEntry[];
}

export interface SoakReport {
  seed: number;
  durationMs: number;
  passes: PassTally;
  requests: number;
  faults: Record<FaultKind, number>;
  samples: number;
  checks: number;
  violations: string[];
  created: number;
  completed: number;
  /** Evictions of budgeted pods kmaint's passes made, by the API server's answer; undefined without an audit log. */
  budgets?: { evictions: number; refusedByBudget: number; podWrites: number };
  world: Pick<World, 'requestorFailedSet' | 'configChanges' | 'handCordons' | 'notReadyEpisodes' | 'nodesDeleted' | 'actorErrors'>;
  /** The all-features profile's figures. */
  features?: FeatureReport;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** checkSample's words for a pod outside every drain selection that went: namespace, name. */
const POD_OUTSIDE_SELECTION = /^pod (\S+)\/(\S+) \(kmaint-soak\/role=\S+\) outside every drain selection was deleted or evicted$/;
/** The event the control plane's taint eviction controller records on each pod it marks for deletion (NoExecute taints). */
const TAINT_EVICTION_REASON = 'TaintManagerEviction';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** How long after reading the config a pass may still write an admission (4 attempts, Retry-After up to 5 s). */
const PASS_LAG_MS = 25_000;

/**
 * The soak's faults: `rate` spread over every kind, except that no 409 is invented on the pass leases (one there
 * claims another pass wrote the lease, and the pass giving it back rightly leaves it to expire).
 */
export function soakFaultRules(rate: number): FaultRule[] {
  const each = rate / 5;
  return [
    { resources: ['leases'], rates: { '500': each, '503': each, '429': each, 'drop-before': each, 'drop-after': each }, latencyMs: 1, jitterMs: 20 },
    ...uniformFaults(rate, { latencyMs: 1, jitterMs: 20, retryAfterSeconds: 1 }),
  ];
}

/**
 * The maxUnavailable limits above 0 in force through every config of a window, each at its largest value: a scope
 * unlimited by one of the configs is not checked over that window (an admission under it was allowed).
 */
export function unavailableLimitsOver(effective: readonly LimitRecord[], zones: readonly string[]): UnavailableLimit[] {
  const largest = (values: Array<number | undefined>): number | undefined => (values.some((v) => v === undefined) ? undefined : Math.max(...(values as number[])));
  const out: UnavailableLimit[] = [];
  const cluster = largest(effective.map((e) => e.maxUnavailable));
  if (cluster !== undefined && cluster > 0) out.push({ scope: 'cluster', limit: cluster, members: () => true });
  const gpu = largest(effective.map((e) => e.gpuPoolUnavailable));
  if (gpu !== undefined) out.push({ scope: 'pool gpu', limit: gpu, members: (n) => n.metadata?.labels?.[POOL_LABEL] === 'gpu' });
  const perZone = largest(effective.map((e) => e.maxUnavailablePerZone));
  if (perZone !== undefined) for (const zone of zones) out.push({ scope: `zone ${zone}`, limit: perZone, members: (n) => n.metadata?.labels?.[ZONE_LABEL] === zone });
  return out;
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const admin = clientsOf(opts.admin);
  const namespace = `soak-${opts.seed}-${started.toString(36)}`;
  await admin.core.createNamespace({ body: { metadata: { name: namespace } } });
  const initialNodes = (await admin.core.listNode()).items;
  const initial = new Map(initialNodes.map((n) => [n.metadata?.name ?? '', n.spec?.unschedulable === true]));
  const initiallyTainted = new Set(initialNodes.filter((n) => (n.spec?.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE)).map((n) => n.metadata?.name ?? ''));
  const world: World = {
    namespace,
    kmaintNamespace: opts.kmaintNamespace,
    nodes: workerNames(initialNodes),
    requested: new Map(),
    handCordoned: new Set(),
    startedCordoned: new Set([...initial].filter(([, cordoned]) => cordoned).map(([name]) => name)),
    handCordonedAny: new Set(),
    adminTouched: new Set(),
    deletedNodes: new Set(),
    deletedByRequestors: new Set(),
    maxParallel: 3,
    limitLog: [],
    created: 0,
    completed: 0,
    requestorFailedSet: 0,
    configChanges: 0,
    handCordons: 0,
    notReadyEpisodes: 0,
    nodesDeleted: 0,
    actorErrors: [],
    readySeen: new Set(),
    draPods: 0,
    gangsCreated: 0,
    cloudEvents: 0,
    sriovDrains: 0,
    leasesTaken: 0,
    nodesKilled: 0,
  };
  const allFeatures = opts.profile === 'all-features';
  let setup: FeatureSetup | undefined;
  let slurmPlacement = new Map<string, string>();
  const slurmSeen: SlurmSeen = { reservations: new Set(), drains: new Set(), workersCreated: 0, jobs: 0 };
  const passEnv = opts.slurm ? { [SLURM_TOKEN_ENV]: opts.slurm.token } : undefined;
  if (allFeatures) {
    setup = await setUpFeatures(admin, { apiext: opts.admin.makeApiClient(ApiextensionsV1Api) }, world.nodes, createRng(deriveSeed(opts.seed, 'features')));
    const slurmTarget = opts.slurm ? { url: opts.slurm.url } : undefined;
    world.features = { switches: withAvailable({ ...ALL_ON }, slurmTarget), cliques: setup.cliques, cliqueNodes: new Set(setup.cliques.flat()), gangs: new Map(), ...(slurmTarget ? { slurm: slurmTarget } : {}) };
    if (opts.slurm) {
      await setUpSlurmWorkers(admin);
      slurmPlacement = placeSlurmWorkers(world.nodes, opts.slurm.nodes, createRng(deriveSeed(opts.seed, 'slurm-workers')));
    }
    await opts.afterFeatureSetup?.();
    if (setup.sriovProblem !== '') {
      world.actorErrors.push(`SR-IOV route not set up: ${setup.sriovProblem}`);
      world.features.switches.sriov = false;
    }
  }
  await writeConfig(admin, world, { maxParallelOperations: 3 });
  // PodDisruptionBudgets over the drained pods: one per group with an anchor pod on a node no request names (a
  // control-plane node) and minAvailable 2, so the last drained pod of a group waits for the next one to be created:
  // budgets hold evictions back while requestors create. At the wind-down minAvailable drops to 1 (the anchor alone).
  const anchorNode = initialNodes.find((n) => !world.nodes.includes(n.metadata?.name ?? ''))?.metadata?.name;
  const policy = opts.admin.makeApiClient(PolicyV1Api);
  const budgetsAt = async (minAvailable: number): Promise<void> => {
    if (anchorNode === undefined) return;
    for (const g of BUDGET_GROUPS) {
      await policy.patchNamespacedPodDisruptionBudget({ namespace, name: `budget-${g}`, body: { spec: { minAvailable } } }, mergePatch).catch((err: unknown) => {
        world.actorErrors.push(`relaxing budget-${g}: ${errorMessage(err)}`);
      });
    }
  };
  if (anchorNode !== undefined) {
    for (const g of BUDGET_GROUPS) {
      await policy.createNamespacedPodDisruptionBudget({ namespace, body: { metadata: { name: `budget-${g}`, namespace }, spec: { minAvailable: 2, selector: { matchLabels: { [SOAK_BUDGET]: g } } } } });
      await bindPod(admin, world, `anchor-${g}`, anchorNode, 'anchor', { [SOAK_BUDGET]: g });
    }
  }
  await opts.audit?.log.sync();
  const auditMark = opts.audit?.log.mark() ?? 0;
  /** Each pod's phase in the last sample that saw it, and the pods in a budget (ours: namespace/name). */
  const lastPhase = new Map<string, string>();
  const budgeted = new Set<string>();

  const cert = proxyCertificate();
  const proxy = await startFaultProxy({ upstream: opts.server, ...(opts.caPem ? { upstreamCa: opts.caPem } : {}), tls: cert, seed: deriveSeed(opts.seed, 'proxy'), rules: soakFaultRules(opts.faultRate ?? 0.05) });
  const tally: PassTally = { passes: 0, runs: 0, leaseHeld: 0, killed: 0, thrown: [], gaveUp: [], writes: 0, conflicts: 0, writeErrors: 0 };
  const violations: string[] = [];
  let samples = 0;
  let checks = 0;
  let creating = true;
  let actorsRunning = true;
  let passesRunning = true;
  let sampling = true;
  const activeEnd = started + opts.activeMs;
  const windDownEnd = activeEnd + (opts.windDownMs ?? 180_000);

  /** The soak's requests, and in the all-features profile kmaint's own (cloud events, SR-IOV: filed in its namespace). */
  const listAllRequests = async (): Promise<NodeMaintenance[]> => {
    const list = async (ns: string): Promise<NodeMaintenance[]> => ((await admin.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] }).items;
    return [...(await list(namespace)), ...(allFeatures ? await list(opts.kmaintNamespace) : [])];
  };
  const listSample = async (): Promise<ClusterSample> => {
    // The LISTs are not one snapshot. A cordon comes after its request's finalizer and an uncordon before the
    // finalizer's removal, so nodes are read on both sides of the requests and a node counts as cordoned only when
    // both reads say so: a cordon made or lifted while the requests were read is seen by the next sample.
    const nodesBefore = new Map((await admin.core.listNode()).items.map((n) => [n.metadata?.name ?? '', n]));
    const nms = await listAllRequests();
    const nodes = bothReadsCordoned(nodesBefore, (await admin.core.listNode()).items);
    const pods = (await admin.core.listPodForAllNamespaces()).items;
    return { nms, nodes, pods };
  };

  /**
   * The limits any pass could have acted on between `from` and now: a pass reads the config once, at its start, and
   * may write its admissions up to PASS_LAG_MS later (retries with Retry-After included).
   */
  const effectiveSince = (from: number): LimitRecord[] => {
    const since = from - PASS_LAG_MS;
    return [...world.limitLog.filter((e) => e.at <= since).slice(-1), ...world.limitLog.filter((e) => e.at > since)];
  };
  const limitsOver = (from: number): { maxParallel: number; zeroThroughout: boolean; unavailable: UnavailableLimit[] } => {
    const effective = effectiveSince(from);
    if (effective.length === 0) return { maxParallel: world.maxParallel, zeroThroughout: false, unavailable: [] };
    return { maxParallel: Math.max(...effective.map((e) => e.maxParallel)), zeroThroughout: effective.every((e) => e.zeroUnavailable), unavailable: unavailableLimitsOver(effective, zones) };
  };
  /** Pod violations held for the end (see the sampler), and how many of them the taint eviction explained. */
  const podsToJudge: Array<{ namespace: string; name: string; violation: string }> = [];
  let taintEvicted = 0;
  const featureChecker = setup && world.features ? createFeatureChecker({ world, features: world.features, kmaintNamespace: opts.kmaintNamespace, setup, effectiveSince }) : undefined;
  /** Nodes where kmaint's own requests or the out-of-service taint were seen, and when last (pods there may all go). */
  const broadSeen = new Map<string, number>();
  const BROAD_MEMORY_MS = 10_000;
  const initiallyCordoned = world.startedCordoned;
  const zones = [...new Set(initialNodes.map((n) => n.metadata?.labels?.[ZONE_LABEL]).filter((z): z is string => z !== undefined))].sort();

  const checker = async (): Promise<void> => {
    let prev: ClusterSample | undefined;
    let prevStart = Date.now();
    while (sampling) {
      const start = Date.now();
      const handCordonedAtStart = new Set(world.handCordoned);
      const anyPrevInterval = new Set(world.handCordonedAny);
      world.handCordonedAny = new Set(world.handCordoned);
      const touchedPrevInterval = world.adminTouched;
      world.adminTouched = new Set();
      let now: ClusterSample;
      try {
        now = await listSample();
      } catch (err) {
        world.actorErrors.push(`sampling: ${(errorMessage(err)).split('\n').slice(0, 3).join(' ')}`);
        await sleep(200);
        continue;
      }
      const limits = limitsOver(prevStart);
      const seenAt = Date.now();
      for (const nm of now.nms) if (nm.metadata.namespace !== namespace) broadSeen.set(nm.spec.nodeName, seenAt);
      for (const n of now.nodes) if ((n.spec?.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE)) broadSeen.set(n.metadata?.name ?? '', seenAt);
      const broadDrainNodes = new Set([...broadSeen].filter(([, at]) => seenAt - at <= BROAD_MEMORY_MS).map(([n]) => n));
      const result = checkSample(prev ?? now, now, {
        broadDrainNodes,
        maxParallelSince: limits.maxParallel,
        zeroUnavailableThroughout: limits.zeroThroughout,
        handCordonedAny: new Set([...anyPrevInterval, ...world.handCordonedAny]),
        handCordonedAll: new Set([...handCordonedAtStart].filter((n) => world.handCordoned.has(n))),
        adminTouched: new Set([...touchedPrevInterval, ...world.adminTouched]),
        initiallyCordoned,
        deletedNodes: world.deletedNodes,
        deletedByRequestors: world.deletedByRequestors,
        unavailableLimits: limits.unavailable,
      });
      samples++;
      checks += result.checks;
      if (featureChecker) {
        const more = featureChecker.check(prev ?? now, now, prevStart, Date.now());
        checks += more.checks;
        result.violations.push(...more.violations);
      }
      for (const v of result.violations) {
        const at = `${((Date.now() - started) / 1000).toFixed(1)} s: ${v}`;
        // A pod outside the drain selection may have gone to the control plane's NoExecute eviction (the out-of-service
        // taint, added and removed between two samples): judged at the end, when the taint eviction's event is certain.
        const pod = allFeatures ? POD_OUTSIDE_SELECTION.exec(v) : null;
        if (pod?.[1] !== undefined && pod[2] !== undefined) {
          podsToJudge.push({ namespace: pod[1], name: pod[2], violation: at });
          continue;
        }
        violations.push(at);
        log(`VIOLATION ${v}`);
      }
      for (const p of now.pods) {
        const k = `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
        lastPhase.set(k, p.status?.phase ?? '');
        if (p.metadata?.namespace === namespace && p.metadata.labels?.[SOAK_BUDGET] !== undefined) budgeted.add(k);
      }
      prev = now;
      prevStart = start;
      await sleep(150);
    }
  };

  const rng = (label: string): ReturnType<typeof createRng> => createRng(deriveSeed(opts.seed, label));
  const requestorCount = rng('requestors').int(3, 5);
  const ids = Array.from({ length: requestorCount }, (_, i) => `requestor-${i + 1}`);
  const through = kubeConfigThroughProxy(opts.kmaint, proxy.url, cert.cert);
  log(`soak seed ${opts.seed}: ${world.nodes.length} worker nodes, ${requestorCount} requestors, ${opts.copies ?? 3} copies of each pass, ${((opts.faultRate ?? 0.05) * 100).toFixed(1)}% faults, namespace ${namespace}`);

  const checking = checker();
  const reaperProviders = setup?.fakeEc2.providers;
  const passing = drivePasses({ kubeConfig: through, namespace: opts.kmaintNamespace, rng: rng('passes'), copies: opts.copies ?? 3, killRate: opts.killRate ?? 0.1, leaseSeconds: opts.leaseSeconds ?? 5, isRunning: () => passesRunning, ...(reaperProviders ? { reaperProviders } : {}), ...(passEnv ? { env: passEnv } : {}) }, tally);
  const decorate = allFeatures ? (r: ReturnType<typeof createRng>, name: string, node: string) => decorateSingle(admin, world, r, name, node) : undefined;
  const requestors = ids.map((id) => runRequestor(admin, world, id, ids.filter((o) => o !== id), rng(id), () => creating, () => actorsRunning, decorate));
  const administrator = runAdministrator(admin, world, rng('administrator'), opts.nodeControl, () => creating);
  const featureActors: Array<Promise<void>> = [];
  if (setup) {
    requestors.push(runGangRequestor(admin, world, rng('gangs'), () => creating, () => actorsRunning));
    featureActors.push(runCloudEvents(admin, world, setup.fakeEc2, rng('cloud-events'), () => creating));
    if (setup.sriovProblem === '') featureActors.push(runSriovDaemon(admin, world, setup.sriovNodes, rng('sriov'), () => creating));
    featureActors.push(runOtherTool(opts.admin, admin, world, rng('other-tool'), () => creating));
    if (opts.nodeControl) featureActors.push(runNodeKiller(admin, world, opts.nodeControl, rng('node-killer'), () => creating));
  }
  // Until the run ends (wind-down included): workers put back, Slurm sampled.
  const slurmActor = opts.slurm && setup ? runSlurmActor(admin, world, opts.slurm, slurmPlacement, slurmSeen, rng('slurm'), () => creating, () => sampling) : undefined;
  let progressAt = Date.now();
  try {
    while (Date.now() < activeEnd) {
      await sleep(1000);
      if (Date.now() - progressAt > 15_000) {
        progressAt = Date.now();
        log(`${Math.round((Date.now() - started) / 1000)} s: ${world.created} requests created, ${world.completed} Ready, ${tally.passes} passes (${tally.killed} killed), ${proxy.faultTotal()} faults, ${violations.length} violations`);
      }
    }
    creating = false;
    log(`winding down: ${world.requested.size} requests still open`);
    await budgetsAt(1);
    await administrator;
    await Promise.all(featureActors);
    await Promise.race([Promise.all(requestors), sleep(Math.max(0, windDownEnd - Date.now()))]);
    actorsRunning = false;
    await Promise.all(requestors);
    await liftHandCordons(admin, world);
    // The last releases need their cleanup passes.
    const endBy = Date.now() + 15_000;
    for (;;) {
      const left = await listAllRequests();
      if (left.length === 0 || Date.now() > endBy) break;
      await sleep(500);
    }
  } finally {
    passesRunning = false;
    creating = false;
    actorsRunning = false;
    await passing;
    sampling = false;
    await checking;
    await slurmActor;
    await proxy.close();
  }
  for (const p of podsToJudge) {
    const events = await admin.core.listNamespacedEvent({ namespace: p.namespace, fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${p.name},reason=${TAINT_EVICTION_REASON}` }).catch(() => ({ items: [] }));
    if (events.items.length > 0) taintEvicted++;
    else {
      violations.push(p.violation);
      log(`VIOLATION ${p.violation}`);
    }
  }
  let quiet: { runs: number; quiet: boolean; writes: number } | undefined;
  if (allFeatures) {
    // Requests nobody released by the end of the wind-down are violations; then every request of the soak's goes, the
    // passes run until quiet, and what kmaint made must be gone (feature-invariants.ts checkLeftovers, checkEnd).
    const stuck = await listAllRequests();
    // With the Ready message: what held it (a drain, a Slurm node, a release kmaint says it cannot make).
    const ready = (nm: NodeMaintenance) => nm.status?.conditions?.find((c) => c.type === 'Ready');
    violations.push(...stuck.map((nm) => `end of wind-down: ${nm.metadata.namespace ?? ''}/${nm.metadata.name} ${ready(nm)?.reason || '(new)'}${nm.metadata.deletionTimestamp ? ' deleting' : ''} not released${ready(nm)?.message ? `: ${ready(nm)?.message ?? ''}` : ''}`));
    for (const nm of stuck.filter((x) => x.metadata.namespace === namespace && !x.metadata.deletionTimestamp)) {
      await admin.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name: nm.metadata.name }).catch(() => undefined);
    }
    quiet = await runUntilQuiet(opts.kmaint, opts.kmaintNamespace, reaperProviders, 90_000, passEnv);
    if (!quiet.quiet) violations.push(`end: the passes did not go quiet within 90 s (${quiet.runs} runs, ${quiet.writes} writes)`);
    await liftHandCordons(admin, world);
  }
  const end = await listSample();
  const endResult = checkEnd(end, initial, world.deletedNodes);
  checks += endResult.checks;
  violations.push(...endResult.violations.map((v) => `end: ${v}`));
  if (allFeatures) {
    const leases = ((await opts.admin.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace: MEDIK8S_LEASE_NAMESPACE }).catch(() => ({ items: [] as V1Lease[] })))).items;
    const left = checkLeftovers(end.nodes, leases, initiallyTainted);
    checks += left.checks;
    violations.push(...left.violations.map((v) => `end: ${v}`));
    if (opts.slurm) {
      const inSlurm = checkSlurmLeftovers(await readSlurm(opts.slurm));
      checks += inSlurm.checks;
      violations.push(...inSlurm.violations.map((v) => `end: ${v}`));
    }
  }
  violations.push(...tally.thrown.map((t) => `pass threw: ${t}`));
  let budgets: SoakReport['budgets'];
  if (opts.audit) {
    await opts.audit.log.sync();
    const writes: PodWrite[] = opts.audit.log
      .entries({ since: auditMark, user: opts.audit.kmaintUser })
      // The soak's own pods never finish on their own (pause containers): a plain delete of one is never of a finished pod.
      // Pods of the generated workloads (Jobs finishing between two samples) are left to the selection rule of checkSample.
      .filter((e) => e.namespace === namespace && ((e.resource === 'pods/eviction' && e.verb === 'create') || (e.resource === 'pods' && e.verb === 'delete')))
      .map((e) => ({ verb: e.resource === 'pods' ? 'delete' : 'evict', namespace: e.namespace ?? '', name: e.name ?? '', code: e.code }));
    const podResult = checkPodWrites(writes, lastPhase, budgeted);
    checks += podResult.checks;
    violations.push(...podResult.violations);
    budgets = { evictions: podResult.evictions, refusedByBudget: podResult.refusedByBudget, podWrites: writes.length };
  }
  for (const v of violations.filter((x) => x.startsWith('end') || x.startsWith('pass threw'))) log(`VIOLATION ${v}`);
  await admin.core.deleteNamespace({ name: namespace }).catch(() => undefined);
  return {
    seed: opts.seed,
    durationMs: Date.now() - started,
    passes: tally,
    requests: proxy.counts.requests,
    faults: { ...proxy.counts.faults },
    samples,
    checks,
    violations,
    created: world.created,
    completed: world.completed,
    ...(budgets ? { budgets } : {}),
    world: { requestorFailedSet: world.requestorFailedSet, configChanges: world.configChanges, handCordons: world.handCordons, notReadyEpisodes: world.notReadyEpisodes, nodesDeleted: world.nodesDeleted, actorErrors: world.actorErrors },
    ...(setup && world.features && quiet
      ? {
          features: {
            gangs: world.gangsCreated,
            cloudEvents: world.cloudEvents,
            ec2Calls: setup.fakeEc2.calls,
            sriovDrains: world.sriovDrains,
            sriovProblem: setup.sriovProblem,
            draPods: world.draPods,
            leasesTaken: world.leasesTaken,
            nodesKilled: world.nodesKilled,
            switchFlips: switchFlips(world.limitLog),
            endSwitches: world.features.switches,
            seen: { ...(featureChecker?.seen() ?? NOTHING_SEEN), podsEvictedByTaint: taintEvicted },
            quiet,
            slurm: opts.slurm ? { reservations: slurmSeen.reservations.size, drains: slurmSeen.drains.size, workersCreated: slurmSeen.workersCreated, jobs: slurmSeen.jobs, problem: '' } : { reservations: 0, drains: 0, workersCreated: 0, jobs: 0, problem: opts.slurmProblem ?? 'no Slurm given (the sim has none)' },
          },
        }
      : {}),
  };
}

/** Config writes whose switches differ from the previous write's. */
function switchFlips(log: readonly LimitRecord[]): number {
  let flips = 0;
  for (let i = 1; i < log.length; i++) if (JSON.stringify(log[i]?.features) !== JSON.stringify(log[i - 1]?.features)) flips++;
  return flips;
}

/** The table the runner prints. */
export function formatSoakTable(r: SoakReport): string {
  const faultTotal = FAULT_KINDS.reduce((s, k) => s + r.faults[k], 0);
  const rows: Array<[string, string]> = [
    ['seed', String(r.seed)],
    ['time', `${(r.durationMs / 1000).toFixed(1)} s`],
    ['passes', `${r.passes.passes} (${r.passes.leaseHeld} found the lease held; ${r.passes.runs} \`kmaint run all\` runs, their passes included)`],
    ['killed passes', String(r.passes.killed)],
    ['passes that gave up', `${r.passes.gaveUp.length} (a request failed transiently on every retry)${r.passes.gaveUp[0] ? `; first: ${r.passes.gaveUp[0]}` : ''}`],
    ['writes', String(r.passes.writes)],
    ['API requests via proxy', String(r.requests)],
    ['injected faults', `${faultTotal} (${(r.requests ? (faultTotal / r.requests) * 100 : 0).toFixed(1)}%): ${FAULT_KINDS.map((k) => `${k} ${r.faults[k]}`).join(', ')}`],
    ['conflicts', String(r.passes.conflicts)],
    ['write errors reported', String(r.passes.writeErrors)],
    ['requests created', String(r.created)],
    ['requests completed', `${r.completed} reached Ready`],
    ['actors', `${r.world.configChanges} config changes, ${r.world.handCordons} hand cordons, ${r.world.requestorFailedSet} RequestorFailed, ${r.world.notReadyEpisodes} NotReady episodes, ${r.world.nodesDeleted} nodes deleted`],
    ['budgets', r.budgets ? `${r.budgets.evictions} evictions of budgeted pods allowed, ${r.budgets.refusedByBudget} refused (429) by the API server; ${r.budgets.podWrites} pod writes by kmaint checked in the audit log` : 'not checked (no audit log)'],
    ...(r.features ? featureRows(r.features) : []),
    ['invariant checks', `${r.checks} over ${r.samples} samples`],
    ['violations', String(r.violations.length)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  for (const v of r.violations.slice(0, 20)) lines.push(`  violation: ${v}`);
  if (r.world.actorErrors.length > 0) lines.push(`actor errors (not kmaint's): ${r.world.actorErrors.length}; first: ${r.world.actorErrors.slice(0, 3).join(' | ')}`);
  return lines.join('\n');
}
