// Vitest setup file of the testbed project: every file must give the shared control plane back as it found it (no node
// left cordoned or NotReady, no NodeMaintenance left, no pod left in a terminating namespace, no kmaint record added to a
// Node, no CronJob left resumed). After the file's own teardown it
// waits for the cluster to settle; what is still left fails that file by name and is repaired where it can be, so the
// next file starts clean instead of failing somewhere else for it.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect } from 'vitest';
import { GROUP, maintenanceKey, NODE_MAINTENANCE_PLURAL, VERSION } from '../../shared/api/index.ts';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { isKmaintRecordKey, leftovers, type HygieneView, type Leftover } from '../../testbed/hygiene.ts';
import { adminKubeConfig } from '../support/cluster.ts';
import { admin } from '../support/kmaint.ts';

const SETTLE_MS = 45_000;

/** Every NodeMaintenance; none before the CRD is installed (404), a retry while its storage initializes (429). */
async function listMaintenances(custom: ReturnType<typeof admin>['custom']): Promise<NodeMaintenance[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return ((await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] }).items;
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code === 404) return [];
      if (code !== 429 || attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function view(): Promise<HygieneView> {
  const { core, custom } = admin();
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const [nodes, namespaces, pods, cronJobs] = await Promise.all([core.listNode(), core.listNamespace(), core.listPodForAllNamespaces(), batch.listCronJobForAllNamespaces()]);
  const nms = await listMaintenances(custom);
  return {
    nodes: new Map(
      nodes.items.map((n) => [
        n.metadata?.name ?? '',
        { cordoned: n.spec?.unschedulable === true, ready: n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true },
      ]),
    ),
    maintenances: new Map(nms.map((nm) => [maintenanceKey(nm), { uid: nm.metadata.uid ?? '', finalizers: nm.metadata.finalizers ?? [] }])),
    terminating: new Map(
      namespaces.items
        .filter((ns) => ns.status?.phase === 'Terminating')
        .map((ns) => [ns.metadata?.name ?? '', pods.items.filter((p) => p.metadata?.namespace === ns.metadata?.name).length]),
    ),
    records: new Map(nodes.items.map((n) => [n.metadata?.name ?? '', Object.fromEntries(Object.entries(n.metadata?.annotations ?? {}).filter(([k]) => isKmaintRecordKey(k)))])),
    cronJobs: new Map(cronJobs.items.map((c) => [`${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`, c.spec?.suspend === true])),
  };
}

async function repair(left: readonly Leftover[]): Promise<void> {
  const { core, custom } = admin();
  for (const { repair: r } of left) {
    if (r?.kind === 'uncordon') await core.patchNode({ name: r.node, body: [{ op: 'replace', path: '/spec/unschedulable', value: false }] });
    if (r?.kind === 'dropFinalizers') {
      await custom
        .patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: r.namespace, plural: NODE_MAINTENANCE_PLURAL, name: r.name, body: [{ op: 'remove', path: '/metadata/finalizers' }] })
        .catch(() => undefined);
    }
    if (r?.kind === 'dropAnnotations') {
      await core.patchNode({ name: r.node, body: r.keys.map((k) => ({ op: 'remove', path: `/metadata/annotations/${k.replaceAll('~', '~0').replaceAll('/', '~1')}` })) }).catch(() => undefined);
    }
    if (r?.kind === 'suspendCronJob') {
      await adminKubeConfig()
        .makeApiClient(BatchV1Api)
        .patchNamespacedCronJob({ namespace: r.namespace, name: r.name, body: [{ op: 'replace', path: '/spec/suspend', value: true }] })
        .catch(() => undefined);
    }
  }
}

let before: HygieneView | undefined;
beforeAll(async () => {
  before = await view();
});
afterAll(async () => {
  if (!before) return;
  const start = before;
  const deadline = Date.now() + SETTLE_MS;
  const waitStart = Date.now();
  let left = leftovers(start, await view());
  const first = left.map((l) => l.what);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    left = leftovers(start, await view());
  }
  if (first.length > 0) process.stderr.write(`[hygiene] ${expect.getState().testPath ?? ''}: waited ${((Date.now() - waitStart) / 1000).toFixed(1)} s for: ${first.join('; ')}\n`);
  if (left.length === 0) return;
  await repair(left);
  throw new Error(`this file left the shared testbed changed ${SETTLE_MS / 1000} s after its teardown (repaired where possible): ${left.map((l) => l.what).join('; ')}`);
}, SETTLE_MS + 30_000);
