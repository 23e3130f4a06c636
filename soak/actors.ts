// The people and machines around kmaint during a soak, talking to the API server directly (no faults): requestors
// creating and releasing requests, and an administrator changing the config, cordoning by hand, taking nodes down.
import { errorMessage } from '../shared/errors/index.ts';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { ANNOTATION_CORDONED_BY, CONFIG_PLURAL, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance, NodeMaintenanceSpec } from '../shared/api/index.ts';
import type { Rng } from '../sim/generator/prng.ts';
import { featureSpec, flipSwitches, randomSwitches, withAvailable, type FeatureSwitches, type SoakSlurmTarget } from './features.ts';
import { BUDGET_GROUPS, DRAIN_SELECTOR, SOAK_BUDGET, SOAK_ROLE, WAIT_SELECTOR } from './invariants.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const phaseOf = (nm: NodeMaintenance): string => nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';

/** What the actors share with the runner and the checker. */
export interface World {
  namespace: string;
  kmaintNamespace: string;
  /** Candidate nodes (workers), minus deleted ones. */
  nodes: string[];
  /** Nodes with a request of ours not yet gone. */
  requested: Map<string, string>;
  handCordoned: Set<string>;
  /** Nodes already cordoned when the soak began (someone else's): never cordoned or uncordoned by the administrator. */
  startedCordoned: ReadonlySet<string>;
  /** Union of handCordoned over the current sampling interval (see invariants.ts). */
  handCordonedAny: Set<string>;
  /** Nodes whose cordon or readiness the administrator changed in the current sampling interval (see invariants.ts). */
  adminTouched: Set<string>;
  deletedNodes: Set<string>;
  deletedByRequestors: Set<string>;
  maxParallel: number;
  /** Every config written, when its write completed: the checker reads the limits in force over a window. */
  limitLog: LimitRecord[];
  created: number;
  completed: number;
  requestorFailedSet: number;
  configChanges: number;
  handCordons: number;
  notReadyEpisodes: number;
  nodesDeleted: number;
  actorErrors: string[];
  /** Requests seen Ready by their requestor (names). */
  readySeen: Set<string>;
  /** The all-features profile's state (soak/features.ts); absent in the basic profile. */
  features?: FeatureWorld;
  draPods: number;
  gangsCreated: number;
  cloudEvents: number;
  sriovDrains: number;
  leasesTaken: number;
  nodesKilled: number;
}

/** A gang the soak filed: its members (namespace/name), how it is grouped, when its last member was created. */
export interface GangRecord {
  kind: 'label' | 'node-label';
  members: string[];
  createdAt: number;
}

/** What the all-features actors share: the switches in force, the cliques, the gangs filed. */
export interface FeatureWorld {
  switches: FeatureSwitches;
  cliques: string[][];
  /** Nodes of every clique: singles never land there (a single on a clique node waits for its clique). */
  cliqueNodes: Set<string>;
  gangs: Map<string, GangRecord>;
  /** The soak's slurmrestd (the Slurm switch is off throughout without one). */
  slurm?: SoakSlurmTarget;
}

/** The limits of one config written by the administrator, from when its write completed. */
export interface LimitRecord {
  at: number;
  maxParallel: number;
  zeroUnavailable: boolean;
  /** Cluster maxUnavailable when a number; undefined = unlimited. */
  maxUnavailable?: number;
  maxUnavailablePerZone?: number;
  /** maxUnavailable of the gpu pool (nodes labelled kmaint.io/pool=gpu) when the config has that pool. */
  gpuPoolUnavailable?: number;
  /** maxParallelOperations of the gpu pool when the config has that pool and sets it. */
  gpuPoolParallel?: number;
  /** The feature switches of the config (all-features profile). */
  features?: FeatureSwitches;
}

/** The pool the administrator sometimes configures, by the generator's pool label. */
export const POOL_LABEL = 'kmaint.io/pool';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export interface Clients {
  core: CoreV1Api;
  custom: CustomObjectsApi;
}

export function clientsOf(kc: KubeConfig): Clients {
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

export async function attempt(world: World, what: string, fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== 404 && code !== 409) world.actorErrors.push(`${what}: ${errorMessage(err).slice(0, 200)}`);
    return false;
  }
}

export async function bindPod(c: Clients, world: World, name: string, node: string, role: string, extraLabels: Record<string, string> = {}): Promise<void> {
  await c.core.createNamespacedPod({
    namespace: world.namespace,
    body: {
      metadata: { name, namespace: world.namespace, labels: { [SOAK_ROLE]: role, ...extraLabels }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m' } } }] },
    },
  });
}

/** One requestor: creates a request every few seconds on a free node, releases it a little after Ready. */
/** What the all-features profile adds to a single request (timing annotations, DRA pods and their drain). */
export type DecorateRequest = (rng: Rng, name: string, node: string) => Promise<{ annotations: Record<string, string>; drainSpec?: NodeMaintenanceSpec['drainSpec'] }>;

export async function runRequestor(c: Clients, world: World, id: string, others: string[], rng: Rng, isCreating: () => boolean, isRunning: () => boolean, decorate?: DecorateRequest): Promise<void> {
  const mine = new Map<string, { node: string; releaseAt?: number; failed?: boolean; waitPod?: string; waitUntil?: number }>();
  let seq = 0;
  let nextCreate = Date.now() + rng.int(200, 2000);
  // A requestor has a few nodes in maintenance at a time (an upgrade agent rolling through its batch).
  const batch = rng.int(2, 5);
  while (isRunning() && (isCreating() || mine.size > 0)) {
    const now = Date.now();
    if (isCreating() && now >= nextCreate && mine.size < batch) {
      nextCreate = now + rng.int(1000, 4000);
      const free = world.nodes.filter((n) => !world.requested.has(n) && !world.deletedNodes.has(n) && !world.features?.cliqueNodes.has(n));
      if (free.length > 0) {
        const node = rng.pick(free);
        const name = `${id}-${++seq}`;
        world.requested.set(node, name);
        const waits = rng.next() < 0.3;
        const spec: NodeMaintenanceSpec = {
          requestorID: `${id}.soak.kmaint.io`,
          nodeName: node,
          cordon: true,
          drainSpec: { force: true, podSelector: DRAIN_SELECTOR, deleteEmptyDir: true, timeoutSeconds: 0 },
          ...(waits ? { waitForPodCompletion: { podSelector: WAIT_SELECTOR, timeoutSeconds: 0 } } : {}),
          ...(rng.next() < 0.2 && others.length > 0 ? { additionalRequestors: [`${rng.pick(others)}.soak.kmaint.io`] } : {}),
        };
        await attempt(world, `binding pods for ${name}`, async () => {
          // Drained pods sit in PodDisruptionBudgets (one of BUDGET_GROUPS each): evictions meet real budgets.
          await bindPod(c, world, `${name}-drain`, node, 'drain', { [SOAK_BUDGET]: rng.pick(BUDGET_GROUPS) });
          await bindPod(c, world, `${name}-keep`, node, 'keep');
          if (waits) await bindPod(c, world, `${name}-wait`, node, 'wait');
        });
        const extra = decorate ? await decorate(rng, name, node) : { annotations: {} };
        if (extra.drainSpec) spec.drainSpec = extra.drainSpec;
        const ok = await attempt(world, `creating ${name}`, () =>
          c.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace: world.namespace, annotations: extra.annotations }, spec } }),
        );
        if (ok) {
          world.created++;
          mine.set(name, { node, ...(waits ? { waitPod: `${name}-wait`, waitUntil: now + rng.int(2000, 8000) } : {}) });
        } else world.requested.delete(node);
      }
    }
    // The wait pods finish on their own schedule.
    for (const [, r] of mine) {
      if (r.waitPod && r.waitUntil !== undefined && now >= r.waitUntil) {
        const pod = r.waitPod;
        world.deletedByRequestors.add(`${world.namespace}/${pod}`);
        delete r.waitPod;
        await attempt(world, `deleting ${pod}`, () => c.core.deleteNamespacedPod({ namespace: world.namespace, name: pod, gracePeriodSeconds: 0 }));
      }
    }
    for (const [name, r] of mine) {
      const nm = await c.custom
        .getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, name })
        .then((o) => o as NodeMaintenance)
        .catch(() => undefined);
      if (!nm) {
        mine.delete(name);
        if (world.requested.get(r.node) === name) world.requested.delete(r.node);
        continue;
      }
      if (nm.metadata.deletionTimestamp) continue;
      const phase = phaseOf(nm);
      if (phase === 'Ready' && !world.readySeen.has(name)) {
        world.readySeen.add(name);
        world.completed++;
        r.releaseAt = now + rng.int(500, 4000);
        if (rng.next() < 0.15) {
          // The requestor's own job failed: it says so, a person looks later, then it is released all the same.
          const conditions = [...(nm.status?.conditions ?? []).filter((cd) => cd.type !== 'RequestorFailed'), { type: 'RequestorFailed', status: 'True', reason: 'RequestorFailed', message: 'soak: firmware update failed', lastTransitionTime: new Date().toISOString() }];
          if (await attempt(world, `failing ${name}`, () => c.custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, name, body: { metadata: { resourceVersion: nm.metadata.resourceVersion }, status: { conditions } } }, mergePatch))) {
            world.requestorFailedSet++;
            r.failed = true;
            r.releaseAt = now + rng.int(2000, 5000);
          }
        }
      }
      if (r.releaseAt !== undefined && now >= r.releaseAt) {
        if ((nm.spec.additionalRequestors ?? []).length > 0) {
          await attempt(world, `releasing additional requestors of ${name}`, () => c.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, name, body: { spec: { additionalRequestors: null } } }, mergePatch));
        }
        await attempt(world, `deleting ${name}`, () => c.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, name }));
      }
    }
    await sleep(300);
  }
}

/** The configuration kmaint reads, replaced whole (the administrator's kubectl apply). */
export async function writeConfig(c: Clients, world: World, limits: Record<string, unknown>): Promise<void> {
  // The all-features profile's switches ride on every config the administrator writes.
  const switches = world.features?.switches;
  const spec = switches ? { ...limits, ...featureSpec(switches, world.features?.slurm) } : limits;
  const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: world.kmaintNamespace }, spec };
  const parallel = typeof spec['maxParallelOperations'] === 'number' ? spec['maxParallelOperations'] : 1;
  await c.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.kmaintNamespace, plural: CONFIG_PLURAL, name: 'default' }).catch(() => undefined);
  await c.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.kmaintNamespace, plural: CONFIG_PLURAL, body });
  world.maxParallel = parallel;
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const pools = Array.isArray(spec['pools']) ? (spec['pools'] as Array<{ name?: string; maxUnavailable?: unknown; maxParallelOperations?: unknown }>) : [];
  const gpu = num(pools.find((p) => p.name === 'gpu')?.maxUnavailable);
  const gpuParallel = num(pools.find((p) => p.name === 'gpu')?.maxParallelOperations);
  const perZone = num(spec['maxUnavailablePerZone']);
  const maxUnavailable = num(spec['maxUnavailable']);
  world.limitLog.push({
    at: Date.now(),
    maxParallel: parallel,
    zeroUnavailable: spec['maxUnavailable'] === 0,
    ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    ...(perZone !== undefined ? { maxUnavailablePerZone: perZone } : {}),
    ...(gpu !== undefined ? { gpuPoolUnavailable: gpu } : {}),
    ...(gpuParallel !== undefined ? { gpuPoolParallel: gpuParallel } : {}),
    ...(switches ? { features: { ...switches } } : {}),
  });
  world.configChanges++;
}

export interface NodeControl {
  setNodeReady(name: string, ready: boolean): Promise<void>;
  /** NotReady with its pods frozen (stuck Terminating), as a dead kubelet leaves them; setNodeReady(name, true) revives it. */
  killNode?: (name: string) => Promise<void>;
  /** Absent where nothing would collect the requests of a deleted Node (the sim has no ownerReference garbage collector). */
  deleteNode?: (name: string) => Promise<void>;
}

/** The administrator: every few seconds one change (config, hand cordon, a node NotReady or deleted mid-drain). */
export async function runAdministrator(c: Clients, world: World, rng: Rng, nodeControl: NodeControl | undefined, isRunning: () => boolean): Promise<void> {
  const cordonedUntil = new Map<string, number>();
  const notReadyUntil = new Map<string, number>();
  let zeroUntil = 0;
  while (isRunning()) {
    await sleep(rng.int(2000, 6000));
    if (!isRunning()) break;
    const now = Date.now();
    // Undo what is due first.
    for (const [node, until] of cordonedUntil) {
      if (now < until || world.requested.has(node)) continue;
      cordonedUntil.delete(node);
      world.handCordoned.delete(node);
      world.adminTouched.add(node);
      await attempt(world, `uncordoning ${node} by hand`, () => c.core.patchNode({ name: node, body: { spec: { unschedulable: null } } }, mergePatch));
    }
    for (const [node, until] of notReadyUntil) {
      if (now < until || !nodeControl) continue;
      notReadyUntil.delete(node);
      world.adminTouched.add(node);
      await attempt(world, `${node} Ready again`, () => nodeControl.setNodeReady(node, true));
    }
    if (zeroUntil > 0 && now >= zeroUntil) {
      zeroUntil = 0;
      await attempt(world, 'lifting maxUnavailable 0', () => writeConfig(c, world, { maxParallelOperations: world.maxParallel }));
    }
    const choice = rng.next();
    if (choice < 0.35) {
      const parallel = rng.int(1, 5);
      const zero = zeroUntil === 0 && rng.next() < 0.3;
      if (zero) zeroUntil = now + rng.int(5000, 15000);
      // Availability limits above 0 now and then (cluster, per zone, the gpu pool), small enough to hold requests back.
      const limits: Record<string, unknown> = {};
      if (zero || zeroUntil > 0) limits['maxUnavailable'] = 0;
      else if (rng.next() < 0.35) limits['maxUnavailable'] = rng.int(4, 9);
      if (rng.next() < 0.3) limits['maxUnavailablePerZone'] = rng.int(2, 4);
      if (rng.next() < 0.3) limits['pools'] = [{ name: 'gpu', nodeSelector: { matchLabels: { [POOL_LABEL]: 'gpu' } }, maxUnavailable: rng.int(1, 2), ...(world.features && rng.next() < 0.5 ? { maxParallelOperations: 1 } : {}) }];
      if (world.features) world.features.switches = withAvailable(flipSwitches(world.features.switches, rng), world.features.slurm);
      await attempt(world, 'changing the config', () => writeConfig(c, world, { maxParallelOperations: parallel, ...limits }));
    } else if (choice < 0.6) {
      const free = world.nodes.filter((n) => !world.handCordoned.has(n) && !world.startedCordoned.has(n) && !world.requested.has(n) && !world.deletedNodes.has(n));
      if (free.length === 0) continue;
      const node = rng.pick(free);
      const until = now + rng.int(5000, 20000);
      // Only a schedulable node kmaint has no cordon record on, preconditioned on that read: a node kmaint cordoned for
      // a request of its own (cloud events, SR-IOV: not in world.requested) stays kmaint's to lift.
      const read = await c.core.readNode({ name: node }).catch(() => undefined);
      if (!read || read.spec?.unschedulable === true || read.metadata?.annotations?.[ANNOTATION_CORDONED_BY] !== undefined) continue;
      world.handCordoned.add(node);
      world.handCordonedAny.add(node);
      world.adminTouched.add(node);
      if (await attempt(world, `cordoning ${node} by hand`, () => c.core.patchNode({ name: node, body: { metadata: { resourceVersion: read.metadata?.resourceVersion }, spec: { unschedulable: true } } }, mergePatch))) {
        cordonedUntil.set(node, until);
        world.handCordons++;
      } else world.handCordoned.delete(node);
    } else if (choice < 0.85 && nodeControl) {
      const up = world.nodes.filter((n) => !notReadyUntil.has(n) && !world.deletedNodes.has(n));
      if (up.length === 0) continue;
      const node = rng.pick(up);
      notReadyUntil.set(node, now + rng.int(5000, 20000));
      world.adminTouched.add(node);
      world.notReadyEpisodes++;
      await attempt(world, `${node} NotReady`, () => nodeControl.setNodeReady(node, false));
    } else if (nodeControl?.deleteNode && world.nodesDeleted < 2) {
      const deleteNode = nodeControl.deleteNode;
      // A node deleted mid-drain: its instance is gone for good.
      const draining = await c.custom
        .listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL })
        .then((l) => (l as { items: NodeMaintenance[] }).items.filter((nm) => ['Cordon', 'Draining', 'WaitForPodCompletion'].includes(phaseOf(nm))))
        .catch(() => [] as NodeMaintenance[]);
      if (draining.length === 0) continue;
      const node = rng.pick(draining).spec.nodeName;
      world.deletedNodes.add(node);
      world.nodes = world.nodes.filter((n) => n !== node);
      world.nodesDeleted++;
      notReadyUntil.delete(node);
      await attempt(world, `deleting node ${node}`, () => deleteNode(node));
    }
  }
  // Leave the cluster as the administrator found it: the first config back, hand cordons lifted once their requests are gone.
  // The all-features run ends with each switch on or off by the seed: what a switch turned off filed is left to its sweep.
  if (world.features) world.features.switches = withAvailable(randomSwitches(rng), world.features.slurm);
  await attempt(world, 'restoring the config', () => writeConfig(c, world, { maxParallelOperations: 3 }));
  for (const node of notReadyUntil.keys()) world.adminTouched.add(node);
  for (const node of notReadyUntil.keys()) if (nodeControl) await attempt(world, `${node} Ready again`, () => nodeControl.setNodeReady(node, true));
}

/** Lifts the remaining hand cordons (at the end, once no request holds their nodes). */
export async function liftHandCordons(c: Clients, world: World): Promise<void> {
  for (const node of [...world.handCordoned]) {
    world.handCordoned.delete(node);
    world.adminTouched.add(node);
    await attempt(world, `uncordoning ${node} by hand`, () => c.core.patchNode({ name: node, body: { spec: { unschedulable: null } } }, mergePatch));
  }
}

export function workerNames(nodes: V1Node[]): string[] {
  return nodes
    .filter((n) => n.metadata?.labels?.['kmaint.io/pool'] !== 'control-plane')
    .map((n) => n.metadata?.name ?? '')
    .sort();
}
