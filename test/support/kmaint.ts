// Test-side helpers to drive kmaint's real passes (as its ServiceAccount, infra/base RBAC) and manipulate its objects.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { CONFIG_PLURAL, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../../shared/api/index.ts';
import type { NodeMaintenance, NodeMaintenanceSpec } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { HeldLeases, PassRound, runPass, type PassFunction, type PassSummary } from '../../shared/pass/index.ts';
import { runUntilIdle, type RunSummary } from '../../shared/runtime/index.ts';
import { adminKubeConfig, kmaintKubeConfig, kubectl, waitFor } from './cluster.ts';
import { untilEstablished } from './crd-established.ts';

export const KMAINT_NS = 'kmaint';
/** The functions driveUntil runs in each round, in order. */
const DRIVEN: readonly PassFunction[] = ['scheduler', 'drainer', 'cleanup'];
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export function admin(): { core: CoreV1Api; custom: CustomObjectsApi } {
  const kc = adminKubeConfig();
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

export async function installCrds(): Promise<void> {
  const r = await kubectl(['apply', '-f', 'crds/']);
  if (r.code !== 0) throw new Error(`kubectl apply -f crds/: ${r.stderr}`);
  await untilEstablished(kubectl, ['crd/nodemaintenances.maintenance.nvidia.com', 'crd/maintenanceoperatorconfigs.maintenance.nvidia.com'], 30);
  await kubectl(['create', 'namespace', KMAINT_NS]);
}

export function pass(fn: PassFunction, opts: { now?: Date; holder?: string; client?: KubeClient } = {}): Promise<PassSummary> {
  const client = opts.client ?? new KubeClient(kmaintKubeConfig());
  return runPass(fn, { client, namespace: KMAINT_NS, now: () => opts.now ?? new Date(), ...(opts.holder ? { holder: opts.holder } : {}) });
}

export function runAll(timeoutMs = 60_000): Promise<RunSummary> {
  return runUntilIdle({ client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date(), functions: DRIVEN, timeoutMs, intervalMs: 200, maxIntervalMs: 1000 });
}

/**
 * Runs rounds of kmaint's passes until `check` returns a value (or fails after timeoutMs), as `kmaint run` runs
 * them: the scheduler, the drainer and cleanup in turn, sharing one read while none of them writes, each function's
 * lease taken the first time it has something to write and kept until the drive ends (shared/runtime/until-idle.ts).
 * The leases are given back when the drive ends, whether `check` was met or not.
 */
export async function driveUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const client = new KubeClient(kmaintKubeConfig());
  const now = (): Date => new Date();
  const leases = new HeldLeases({ client, namespace: KMAINT_NS, holder: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`, now });
  const round = new PassRound(leases, DRIVEN);
  try {
    return await waitFor(
      what,
      async () => {
        round.next();
        for (const fn of DRIVEN) await runPass(fn, { client, namespace: KMAINT_NS, now, round });
        return check();
      },
      timeoutMs,
      300,
    );
  } finally {
    await leases.releaseAll();
  }
}

/**
 * Waits until `node` has settled after a restart of its kubelet (a reboot): Ready, and none of the taints the node
 * lifecycle controller sets on a NotReady or unreachable node left. Until then the controller and the kubelet still
 * write the Node, and a pass's optimistic write on the Node may meet their writes (409).
 */
export async function untilNodeSettled(node: string, timeoutMs = 60_000): Promise<void> {
  const { core } = admin();
  await waitFor(
    `node ${node} Ready without the node lifecycle controller's taints`,
    async () => {
      const n = await core.readNode({ name: node });
      const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      const tainted = (n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable');
      return ready && !tainted ? true : undefined;
    },
    timeoutMs,
  );
}

export async function setConfig(spec: Record<string, unknown> | undefined): Promise<void> {
  const { custom } = admin();
  try {
    await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL, name: 'default' });
  } catch {
    /* absent */
  }
  if (spec) {
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: KMAINT_NS,
      plural: CONFIG_PLURAL,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: KMAINT_NS }, spec },
    });
  }
}

export async function createNM(namespace: string, name: string, spec: NodeMaintenanceSpec): Promise<NodeMaintenance> {
  const { custom } = admin();
  return (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: NODE_MAINTENANCE_PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace }, spec },
  })) as NodeMaintenance;
}

export async function getNM(namespace: string, name: string): Promise<NodeMaintenance | undefined> {
  try {
    return (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name })) as NodeMaintenance;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

export async function patchNM(namespace: string, name: string, body: Record<string, unknown>, status = false): Promise<void> {
  const { custom } = admin();
  const req = { group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name, body };
  if (status) await custom.patchNamespacedCustomObjectStatus(req, mergePatch);
  else await custom.patchNamespacedCustomObject(req, mergePatch);
}

export async function deleteNM(namespace: string, name: string): Promise<void> {
  try {
    await admin().custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name });
  } catch (err) {
    if ((err as { code?: number }).code !== 404) throw err;
  }
}

export function phaseOf(nm: NodeMaintenance | undefined): string | undefined {
  if (!nm) return undefined;
  return nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';
}

/**
 * Waits until the request reaches `phase`, driving all passes. A timeout says where the request was last seen: its
 * phase and Ready message (the check throws that, and waitFor reports the last error with its timeout).
 */
export function untilPhase(namespace: string, name: string, phase: string, timeoutMs = 90_000): Promise<NodeMaintenance> {
  return driveUntil(`${namespace}/${name} in phase ${phase}`, async () => {
    const nm = await getNM(namespace, name);
    if (phaseOf(nm) === phase) return nm;
    if (!nm) throw new Error('last seen: the request is gone');
    const ready = nm.status?.conditions?.find((c) => c.type === 'Ready');
    throw new Error(`last seen in phase '${phaseOf(nm) ?? ''}': ${ready?.message ?? 'no Ready condition'}`);
  }, timeoutMs);
}

/** Deletes every NodeMaintenance in `namespace` and drives cleanup until they are gone. */
export async function removeAllNMs(namespace: string): Promise<void> {
  const { custom } = admin();
  const list = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
  for (const nm of list.items) await deleteNM(namespace, nm.metadata.name);
  await driveUntil(`all NodeMaintenances in ${namespace} gone`, async () => {
    const left = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] };
    if (left.items.length === 0) return true;
    // Requests held by additional requestors are released by emptying the list.
    for (const nm of left.items) if ((nm.spec.additionalRequestors ?? []).length > 0) await patchNM(namespace, nm.metadata.name, { spec: { additionalRequestors: null } });
    return undefined;
  });
}

export async function nodes(): Promise<V1Node[]> {
  return (await admin().core.listNode()).items;
}

/** Worker nodes of the general pool (no GPU, not control plane), sorted by name. */
export async function generalNodes(): Promise<string[]> {
  return (await nodes())
    .filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'general')
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

export async function podsOn(node: string): Promise<V1Pod[]> {
  return (await admin().core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` })).items;
}

export async function setUnschedulable(node: string, value: boolean): Promise<void> {
  await admin().core.patchNode({ name: node, body: { spec: { unschedulable: value ? true : null } } }, mergePatch);
}

export async function isUnschedulable(node: string): Promise<boolean> {
  return (await admin().core.readNode({ name: node })).spec?.unschedulable === true;
}

/** A bare pod bound to `node` that the simulated kubelet stops at once when deleted. */
export async function bindPod(
  namespace: string,
  name: string,
  node: string,
  opts: { labels?: Record<string, string>; requests?: Record<string, string>; owner?: boolean; /** spec.resourceClaims by claim name (DRA). */ claims?: string[] } = {},
): Promise<V1Pod> {
  const { core } = admin();
  const resources = opts.requests ? { requests: opts.requests, limits: Object.fromEntries(Object.entries(opts.requests).filter(([k]) => k.includes('/'))) } : { requests: { cpu: '10m' } };
  return core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, namespace, labels: opts.labels ?? {}, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources }],
        ...(opts.claims ? { resourceClaims: opts.claims.map((claim, i) => ({ name: `claim-${i}`, resourceClaimName: claim })) } : {}),
      },
    },
  });
}
