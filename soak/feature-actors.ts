// The actors of an all-features soak, beside the requestors and the administrator of actors.ts: a requestor of gangs
// (by label and by clique), request timing and DRA pods for the singles, EC2 scheduling events, the SR-IOV config
// daemon, another tool holding medik8s node leases while an administrator cordons, and a kubelet that dies mid-drain.
import { CoordinationV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CORDONED_BY,
  ANNOTATION_DEADLINE,
  ANNOTATION_GANG_SIZE,
  ANNOTATION_NOT_BEFORE,
  DEFAULT_SRIOV_NAMESPACE,
  GROUP,
  LABEL_GANG,
  MEDIK8S_LEASE_NAMESPACE,
  MEDIK8S_LEASE_PREFIX,
  microTime,
  namespacedName,
  NODE_MAINTENANCE_PLURAL,
  rfc3339Seconds,
  SRIOV_ANNOTATION_CURRENT_STATE,
  SRIOV_ANNOTATION_DESIRED_STATE,
  SRIOV_ANNOTATION_NODE_STATE,
  SRIOV_GROUP,
  SRIOV_NODE_STATE_PLURAL,
  SRIOV_VERSION,
  VERSION,
} from '../shared/api/index.ts';
import type { NodeMaintenance, NodeMaintenanceSpec } from '../shared/api/index.ts';
import type { Rng } from '../sim/generator/prng.ts';
import { attempt, bindPod, type Clients, type NodeControl, type World } from './actors.ts';
import { instanceIdOf, type FakeEc2 } from './feature-setup.ts';
import { OTHER_TOOL_HOLDER } from './features.ts';
import { DRAIN_SELECTOR, DRA_DRAIN_SELECTOR, SOAK_BUDGET, BUDGET_GROUPS } from './invariants.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const phaseOf = (nm: NodeMaintenance | undefined): string => nm?.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';

/** The DRA driver the drain's filter matches (gpu.nvidia.com answers to nvidia.com/gpu) and one it must not. */
export const GPU_DRIVER = 'gpu.nvidia.com';
export const OTHER_DRIVER = 'nic.soak.kmaint.io';

async function getNM(c: Clients, namespace: string, name: string): Promise<NodeMaintenance | undefined> {
  return c.custom
    .getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name })
    .then((o) => o as NodeMaintenance)
    .catch(() => undefined);
}

/** Timing annotations now and then: a deadline ahead (ranked first) or a not-before a little ahead (waits for it). */
export function timingAnnotations(rng: Rng, now: number): Record<string, string> {
  const roll = rng.next();
  if (roll < 0.2) return { [ANNOTATION_DEADLINE]: rfc3339Seconds(now + rng.int(10, 120) * 1000) };
  if (roll < 0.35) return { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(now + rng.int(5, 40) * 1000) };
  return {};
}

/** A pod holding one allocated device of `driver` through its own ResourceClaim (the scheduler's and driver's part played). */
async function bindDraPod(c: Clients, world: World, name: string, node: string, role: string, driver: string): Promise<void> {
  const claim = `${name}-claim`;
  const custom = { group: 'resource.k8s.io', version: 'v1', namespace: world.namespace, plural: 'resourceclaims' };
  await c.custom.createNamespacedCustomObject({
    ...custom,
    body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: claim, namespace: world.namespace }, spec: { devices: { requests: [{ name: 'dev', exactly: { deviceClassName: driver } }] } } },
  });
  const pod = await c.core.createNamespacedPod({
    namespace: world.namespace,
    body: {
      metadata: { name, namespace: world.namespace, labels: { 'kmaint-soak/role': role }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        resourceClaims: [{ name: 'dev', resourceClaimName: claim }],
        containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m' }, claims: [{ name: 'dev' }] } }],
      },
    },
  });
  await c.custom.patchNamespacedCustomObjectStatus(
    {
      ...custom,
      name: claim,
      body: { status: { allocation: { devices: { results: [{ request: 'dev', driver, pool: node, device: 'dev-0' }] } }, reservedFor: [{ resource: 'pods', name, uid: pod.metadata?.uid ?? '' }] } },
    },
    mergePatch,
  );
}

/**
 * What a single request of the all-features profile adds: timing annotations, and for a share of them DRA pods and a
 * GPU drain (podEvictionFilters by resource name): the GPU pod goes, the pod holding another driver's device stays.
 */
export async function decorateSingle(c: Clients, world: World, rng: Rng, name: string, node: string): Promise<{ annotations: Record<string, string>; drainSpec?: NodeMaintenanceSpec['drainSpec'] }> {
  const annotations = timingAnnotations(rng, Date.now());
  if (rng.next() >= 0.3) return { annotations };
  const ok = await attempt(world, `binding DRA pods for ${name}`, async () => {
    await bindDraPod(c, world, `${name}-gpu`, node, 'dra', GPU_DRIVER);
    await bindDraPod(c, world, `${name}-nic`, node, 'dra-other', OTHER_DRIVER);
  });
  if (!ok) return { annotations };
  world.draPods += 2;
  return { annotations, drainSpec: { force: true, podSelector: DRA_DRAIN_SELECTOR, deleteEmptyDir: true, timeoutSeconds: 0, podEvictionFilters: [{ byResourceNameRegex: '^nvidia\\.com/gpu' }] } };
}

/** Gangs: by kmaint.io/gang on 2-3 free single nodes, or one request per node of a free clique; released when all are Ready. */
export async function runGangRequestor(c: Clients, world: World, rng: Rng, isCreating: () => boolean, isRunning: () => boolean): Promise<void> {
  const f = world.features;
  if (!f) return;
  let seq = 0;
  const open = new Map<string, { members: Array<{ name: string; node: string }>; releaseAt?: number }>();
  let nextCreate = Date.now() + rng.int(1000, 3000);
  while (isRunning() && (isCreating() || open.size > 0)) {
    const now = Date.now();
    if (isCreating() && now >= nextCreate && open.size < 2) {
      nextCreate = now + rng.int(3000, 8000);
      const free = (n: string): boolean => !world.requested.has(n) && !world.deletedNodes.has(n) && world.nodes.includes(n);
      const byClique = rng.next() < 0.5;
      const cliques = f.cliques.filter((cl) => cl.every(free));
      const singles = world.nodes.filter((n) => free(n) && !f.cliqueNodes.has(n));
      const nodes = byClique ? (cliques.length > 0 ? rng.pick(cliques) : []) : singles.length >= 3 ? [...new Set([rng.pick(singles), rng.pick(singles), rng.pick(singles)])] : [];
      if (nodes.length >= 2) {
        const gang = `gang-${++seq}`;
        const members: Array<{ name: string; node: string }> = [];
        const timing = timingAnnotations(rng, now);
        for (const node of nodes) {
          const name = `${gang}-${node}`;
          world.requested.set(node, name);
          await attempt(world, `binding pods for ${name}`, () => bindPod(c, world, `${name}-drain`, node, 'drain', { [SOAK_BUDGET]: rng.pick(BUDGET_GROUPS) }));
          const spec: NodeMaintenanceSpec = { requestorID: 'gangs.soak.kmaint.io', nodeName: node, cordon: true, drainSpec: { force: true, podSelector: DRAIN_SELECTOR, deleteEmptyDir: true, timeoutSeconds: 0 } };
          const metadata = byClique ? { name, namespace: world.namespace, annotations: timing } : { name, namespace: world.namespace, labels: { [LABEL_GANG]: gang }, annotations: { ...timing, [ANNOTATION_GANG_SIZE]: String(nodes.length) } };
          const ok = await attempt(world, `creating ${name}`, () => c.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata, spec } }));
          if (ok) {
            members.push({ name, node });
            world.created++;
          } else world.requested.delete(node);
        }
        open.set(gang, { members });
        f.gangs.set(gang, { kind: byClique ? 'node-label' : 'label', members: members.map((m) => namespacedName({ namespace: world.namespace, name: m.name })), createdAt: Date.now() });
        world.gangsCreated++;
      }
    }
    for (const [gang, g] of open) {
      const nms = await Promise.all(g.members.map((m) => getNM(c, world.namespace, m.name)));
      const live = nms.filter((nm): nm is NodeMaintenance => nm !== undefined);
      if (live.length === 0) {
        for (const m of g.members) if (world.requested.get(m.node) === m.name) world.requested.delete(m.node);
        open.delete(gang);
        continue;
      }
      if (g.releaseAt === undefined && live.every((nm) => phaseOf(nm) === 'Ready')) {
        g.releaseAt = now + rng.int(500, 3000);
        world.completed += live.length;
      }
      if (g.releaseAt !== undefined && now >= g.releaseAt) {
        for (const nm of live) {
          if (nm.metadata.deletionTimestamp) continue;
          await attempt(world, `deleting ${nm.metadata.name}`, () => c.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL, name: nm.metadata.name }));
        }
      }
    }
    await sleep(400);
  }
}

/**
 * EC2: now and then an instance gets a scheduled event (NotBefore 20-120 s ahead); once kmaint's request for it is
 * Ready the event completes, and an event nobody filed a request for (the feature off) goes after 30 s. Over at the end.
 */
export async function runCloudEvents(c: Clients, world: World, ec2: FakeEc2, rng: Rng, isCreating: () => boolean): Promise<void> {
  const ids = new Map<string, string>();
  for (const node of (await c.core.listNode()).items) if (world.nodes.includes(node.metadata?.name ?? '')) ids.set(node.metadata?.name ?? '', instanceIdOf(node));
  const active = new Map<string, { id: string; since: number; completeAt?: number }>();
  let seq = 0;
  while (isCreating()) {
    await sleep(rng.int(1500, 4000));
    const now = Date.now();
    if (active.size < 3 && rng.next() < 0.5) {
      const candidates = [...ids].filter(([n, id]) => id !== '' && !active.has(n) && !world.deletedNodes.has(n));
      if (candidates.length > 0) {
        const [node, id] = rng.pick(candidates);
        const code = rng.pick(['system-reboot', 'instance-retirement', 'system-maintenance'] as const);
        ec2.events.set(id, [{ InstanceEventId: `instance-event-${(++seq).toString(16).padStart(17, '0')}`, Code: code, Description: `soak ${code}`, NotBefore: new Date(now + rng.int(20, 120) * 1000) }]);
        active.set(node, { id, since: now });
        world.cloudEvents++;
      }
    }
    for (const [node, e] of active) {
      const nm = await getNM(c, world.kmaintNamespace, `cloud-event-${node}`);
      if (e.completeAt === undefined && (phaseOf(nm) === 'Ready' || (nm === undefined && now - e.since > 30_000))) e.completeAt = now + rng.int(1000, 4000);
      if (e.completeAt !== undefined && now >= e.completeAt) {
        // Completed events stay listed a while as EC2 does; the next one on this instance replaces them.
        ec2.events.set(e.id, (ec2.events.get(e.id) ?? []).map((ev) => ({ ...ev, Description: `[Completed] ${ev.Description ?? ''}` })));
        active.delete(node);
      }
    }
  }
  ec2.events.clear();
}

/** Both halves of the config daemon's write (the Node's state and the node state's desired-state). */
async function daemonWrites(c: Clients, node: string, value: string): Promise<void> {
  await c.core.patchNode({ name: node, body: { metadata: { annotations: { [SRIOV_ANNOTATION_NODE_STATE]: value } } } }, mergePatch);
  await c.custom.patchNamespacedCustomObject({ group: SRIOV_GROUP, version: SRIOV_VERSION, namespace: DEFAULT_SRIOV_NAMESPACE, plural: SRIOV_NODE_STATE_PLURAL, name: node, body: { metadata: { annotations: { [SRIOV_ANNOTATION_DESIRED_STATE]: value } } } }, mergePatch);
}

/**
 * The SR-IOV config daemon on `nodes`: asks for Drain_Required (now and then Reboot_Required, which drains every pod),
 * configures once kmaint answers DrainComplete, then says Idle; gives up after 60 s without an answer (protocol off).
 */
export async function runSriovDaemon(c: Clients, world: World, nodes: readonly string[], rng: Rng, isCreating: () => boolean): Promise<void> {
  const asked = new Map<string, { since: number; idleAt?: number }>();
  while (isCreating()) {
    await sleep(rng.int(1500, 4000));
    const now = Date.now();
    const idle = nodes.filter((n) => !asked.has(n) && !world.deletedNodes.has(n));
    if (idle.length > 0 && asked.size < 3 && rng.next() < 0.6) {
      const node = rng.pick(idle);
      if (await attempt(world, `SR-IOV daemon on ${node}`, () => daemonWrites(c, node, rng.next() < 0.3 ? 'Reboot_Required' : 'Drain_Required'))) {
        asked.set(node, { since: now });
        world.sriovDrains++;
      }
    }
    for (const [node, a] of asked) {
      if (a.idleAt === undefined) {
        const state = (await c.custom.getNamespacedCustomObject({ group: SRIOV_GROUP, version: SRIOV_VERSION, namespace: DEFAULT_SRIOV_NAMESPACE, plural: SRIOV_NODE_STATE_PLURAL, name: node }).catch(() => undefined)) as { metadata?: { annotations?: Record<string, string> } } | undefined;
        if (state?.metadata?.annotations?.[SRIOV_ANNOTATION_CURRENT_STATE] === 'DrainComplete' || now - a.since > 60_000) a.idleAt = now + rng.int(1000, 3000);
      }
      if (a.idleAt !== undefined && now >= a.idleAt && (await attempt(world, `SR-IOV daemon Idle on ${node}`, () => daemonWrites(c, node, 'Idle')))) asked.delete(node);
    }
  }
  for (const node of nodes) if (!world.deletedNodes.has(node)) await attempt(world, `SR-IOV daemon Idle on ${node}`, () => daemonWrites(c, node, 'Idle'));
}

/**
 * Another tool and an administrator: the tool takes the medik8s lease of a node whose request kmaint has not cordoned
 * yet (kmaint's Cordon step holds), and an administrator cordons that node meanwhile, by a patch preconditioned on the
 * node being schedulable with no kmaint cordon record. The lease goes after 3-10 s; the cordon stays until the node has
 * no request left, and the checker holds kmaint to never lifting it.
 */
export async function runOtherTool(kc: KubeConfig, c: Clients, world: World, rng: Rng, isCreating: () => boolean): Promise<void> {
  const leases = kc.makeApiClient(CoordinationV1Api);
  const held = new Map<string, number>();
  const cordoned = new Map<string, number>();
  while (isCreating()) {
    await sleep(rng.int(2000, 5000));
    const now = Date.now();
    for (const [node, until] of held) {
      if (now < until) continue;
      held.delete(node);
      await attempt(world, `giving back the lease of ${node}`, () => leases.deleteNamespacedLease({ namespace: MEDIK8S_LEASE_NAMESPACE, name: `${MEDIK8S_LEASE_PREFIX}${node}` }));
    }
    for (const [node, until] of cordoned) {
      if (now < until || world.requested.has(node)) continue;
      cordoned.delete(node);
      world.handCordoned.delete(node);
      world.adminTouched.add(node);
      await attempt(world, `uncordoning ${node} by hand`, () => c.core.patchNode({ name: node, body: { spec: { unschedulable: null } } }, mergePatch));
    }
    const candidates = [...world.requested.keys()].filter((n) => !held.has(n) && !cordoned.has(n) && !world.handCordoned.has(n) && !world.startedCordoned.has(n) && !world.deletedNodes.has(n));
    if (candidates.length === 0) continue;
    const node = rng.pick(candidates);
    // As raw JSON: the API server reads MicroTime only with six decimals, and the client's model would send a Date's three.
    const at = microTime(new Date());
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `${MEDIK8S_LEASE_PREFIX}${node}`, namespace: MEDIK8S_LEASE_NAMESPACE }, spec: { holderIdentity: OTHER_TOOL_HOLDER, leaseDurationSeconds: 30, acquireTime: at, renewTime: at } };
    if (await attempt(world, `taking the lease of ${node}`, () => c.custom.createNamespacedCustomObject({ group: 'coordination.k8s.io', version: 'v1', namespace: MEDIK8S_LEASE_NAMESPACE, plural: 'leases', body }))) {
      held.set(node, now + rng.int(3000, 10_000));
      world.leasesTaken++;
    }
    if (rng.next() < 0.7) {
      const read: V1Node | undefined = await c.core.readNode({ name: node }).catch(() => undefined);
      if (!read || read.spec?.unschedulable === true || read.metadata?.annotations?.[ANNOTATION_CORDONED_BY] !== undefined) continue;
      world.handCordoned.add(node);
      world.handCordonedAny.add(node);
      world.adminTouched.add(node);
      const ok = await attempt(world, `cordoning ${node} by hand under a request`, () => c.core.patchNode({ name: node, body: { metadata: { resourceVersion: read.metadata?.resourceVersion }, spec: { unschedulable: true } } }, mergePatch));
      if (ok) {
        cordoned.set(node, now + rng.int(5000, 20_000));
        world.handCordons++;
      } else world.handCordoned.delete(node);
    }
  }
  for (const node of held.keys()) await attempt(world, `giving back the lease of ${node}`, () => leases.deleteNamespacedLease({ namespace: MEDIK8S_LEASE_NAMESPACE, name: `${MEDIK8S_LEASE_PREFIX}${node}` }));
}

/** A kubelet dying mid-drain: the node NotReady with its pods frozen (stuck Terminating) for 5-15 s, then back. */
export async function runNodeKiller(c: Clients, world: World, nodeControl: NodeControl, rng: Rng, isCreating: () => boolean): Promise<void> {
  const kill = nodeControl.killNode;
  if (!kill) return;
  const down = new Map<string, number>();
  while (isCreating()) {
    await sleep(rng.int(3000, 8000));
    const now = Date.now();
    for (const [node, until] of down) {
      if (now < until) continue;
      down.delete(node);
      world.adminTouched.add(node);
      await attempt(world, `${node} Ready again`, () => nodeControl.setNodeReady(node, true));
    }
    const draining = await c.custom
      .listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: world.namespace, plural: NODE_MAINTENANCE_PLURAL })
      .then((l) => (l as { items: NodeMaintenance[] }).items.filter((nm) => ['Draining', 'Cordon'].includes(phaseOf(nm)) && !down.has(nm.spec.nodeName)))
      .catch(() => [] as NodeMaintenance[]);
    if (draining.length === 0 || down.size >= 2) continue;
    const node = rng.pick(draining).spec.nodeName;
    down.set(node, now + rng.int(5000, 15_000));
    world.adminTouched.add(node);
    world.nodesKilled++;
    await attempt(world, `killing the kubelet of ${node}`, () => kill(node));
  }
  for (const node of down.keys()) {
    world.adminTouched.add(node);
    await attempt(world, `${node} Ready again`, () => nodeControl.setNodeReady(node, true));
  }
}
