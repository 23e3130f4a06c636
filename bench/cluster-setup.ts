// What the lifecycle benchmark puts into a testbed before timing kmaint: CRDs, the kmaint namespace and config,
// many NodeMaintenance requests created with bounded concurrency (as the admin, not timed as kmaint work).
import { forEachBounded } from '../shared/concurrency/index.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { CONFIG_PLURAL, GROUP, namespacedName, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance, NodeMaintenanceSpec } from '../shared/api/index.ts';
import { binaryPath } from '../testbed/versions.ts';

const run = promisify(execFile);
export const KMAINT_NS = 'kmaint';

async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  const { stdout } = await run(binaryPath('kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** CRDs applied with kubectl (as the tests do), established, plus the kmaint namespace and `ns`. */
export async function installKmaint(kubeconfig: string, namespaces: string[]): Promise<void> {
  await kubectl(kubeconfig, ['apply', '-f', 'crds/']);
  await kubectl(kubeconfig, ['wait', '--for=condition=Established', 'crd/nodemaintenances.maintenance.nvidia.com', 'crd/maintenanceoperatorconfigs.maintenance.nvidia.com', '--timeout=60s']);
  for (const ns of [KMAINT_NS, ...namespaces]) await kubectl(kubeconfig, ['create', 'namespace', ns]);
}

/** Replaces the MaintenanceOperatorConfig `default` spec (creates it when missing). */
export async function setConfig(kc: KubeConfig, spec: Record<string, unknown>): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const req = { group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL };
  try {
    const cur = (await custom.getNamespacedCustomObject({ ...req, name: 'default' })) as { metadata: { resourceVersion: string } };
    await custom.replaceNamespacedCustomObject({
      ...req,
      name: 'default',
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: KMAINT_NS, resourceVersion: cur.metadata.resourceVersion }, spec },
    });
  } catch (err) {
    if ((err as { code?: number }).code !== 404) throw err;
    await custom.createNamespacedCustomObject({ ...req, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: KMAINT_NS }, spec } });
  }
}

export interface RequestPlan {
  namespace: string;
  name: string;
  spec: NodeMaintenanceSpec;
}

/**
 * `requests` requests spread evenly over `requestors` requestors and round-robin over `nodes`: request k goes to
 * node k mod |nodes|, so with twice as many requests as nodes every node has two, from different requestors.
 */
export function planRequests(opts: { namespace: string; nodes: readonly string[]; requests: number; requestors: number; spec?: Partial<NodeMaintenanceSpec> }): RequestPlan[] {
  const perRequestor = Math.ceil(opts.requests / opts.requestors);
  const out: RequestPlan[] = [];
  for (let k = 0; k < opts.requests; k++) {
    const r = Math.floor(k / perRequestor);
    out.push({
      namespace: opts.namespace,
      name: `req-${String(r).padStart(2, '0')}-${String(k % perRequestor).padStart(5, '0')}`,
      spec: { requestorID: `team-${String(r).padStart(2, '0')}.example.com`, nodeName: opts.nodes[k % opts.nodes.length] as string, cordon: true, ...opts.spec },
    });
  }
  return out;
}

/** Creates the requests, retrying transient failures; returns each one's creation time (ms). */
export async function createRequests(kc: KubeConfig, plans: readonly RequestPlan[], concurrency: number): Promise<Map<string, number>> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const createdAt = new Map<string, number>();
  await forEachBounded(plans, { limit: concurrency }, async (p) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: p.namespace,
          plural: NODE_MAINTENANCE_PLURAL,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: p.name, namespace: p.namespace }, spec: p.spec },
        });
        createdAt.set(namespacedName(p), Date.now());
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === 409) return;
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  });
  return createdAt;
}

export async function listRequests(kc: KubeConfig, namespace: string): Promise<NodeMaintenance[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const items: NodeMaintenance[] = [];
  let cont: string | undefined;
  do {
    const page = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, limit: 1000, ...(cont ? { _continue: cont } : {}) })) as {
      items: NodeMaintenance[];
      metadata?: { continue?: string };
    };
    items.push(...page.items);
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return items;
}

/** Deletes requests (no finalizer yet: they go at once), with bounded concurrency. */
export async function deleteRequests(kc: KubeConfig, keys: readonly string[], concurrency: number): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  await forEachBounded(keys, { limit: concurrency }, async (key) => {
    const [namespace, name] = key.split('/') as [string, string];
    try {
      await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, name });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  });
}

export function phaseOf(nm: NodeMaintenance): string {
  return nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';
}
