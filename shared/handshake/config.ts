// Reads the handshake's drainSpec templates from the MaintenanceOperatorConfig once per pass, and chooses a Node's.
import type { V1Node } from '@kubernetes/client-node';
import { CONFIG_NAME, maintenanceOperatorConfigSchema } from '#api';
import type { DrainSpec } from '#api';
import { labelSelectorFromObject, matchesLabels } from '#selectors';
import type { LabelSelector } from '#selectors';

export interface HandshakePool {
  readonly name: string;
  readonly selector: LabelSelector;
  /** The pool's own Drain_Required template; unset: the cluster-wide one applies to its Nodes. */
  readonly drainSpec?: DrainSpec;
}

export interface HandshakeConfig {
  /** kmaint's namespace: where handshake requests are created and looked for. */
  readonly namespace: string;
  /** `spec.nodeHandshake.drainSpec`. */
  readonly drainSpec?: DrainSpec;
  /** In spec order: a Node belongs to the first pool that selects it, as for admission. */
  readonly pools: readonly HandshakePool[];
  /** Why no Node's pool or template can be known (the config cannot be read); Drain_Required is then refused. */
  readonly problem?: string;
}

/** Where a Node's Drain_Required template comes from, or why it has none. */
export type TemplateChoice = { ok: true; drainSpec: DrainSpec; source: string } | { ok: false; problem: string };

/**
 * Pure: the templates of config object `obj` (absent = no templates). Pools are matched with their own selectors
 * here, so a pool whose selector cannot be read makes every Node's pool unknown, and Drain_Required fails closed.
 */
export function loadHandshakeConfig(obj: unknown, namespace: string): HandshakeConfig {
  if (obj === undefined || obj === null) return { namespace, pools: [] };
  const where = `MaintenanceOperatorConfig ${namespace}/${CONFIG_NAME}`;
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) return { namespace, pools: [], problem: `${where} is invalid (see its Valid condition), so no Drain_Required template is known` };
  const spec = parsed.data.spec ?? {};
  const pools: HandshakePool[] = [];
  for (const [index, pool] of (spec.pools ?? []).entries()) {
    const selector = labelSelectorFromObject(pool.nodeSelector);
    if (!selector.ok) {
      return { namespace, pools: [], problem: `${where} spec.pools[${index}].nodeSelector cannot be used (${selector.error}), so no Node's pool is known` };
    }
    const drainSpec = pool.nodeHandshake?.drainSpec;
    pools.push({ name: pool.name, selector: selector.selector, ...(drainSpec !== undefined ? { drainSpec } : {}) });
  }
  const drainSpec = spec.nodeHandshake?.drainSpec;
  return { namespace, pools, ...(drainSpec !== undefined ? { drainSpec } : {}) };
}

/** The Drain_Required template of `node`: its pool's (the first pool selecting it), else the cluster-wide one. */
export function drainTemplateFor(node: V1Node, config: HandshakeConfig): TemplateChoice {
  if (config.problem !== undefined) return { ok: false, problem: config.problem };
  const pool = config.pools.find((p) => matchesLabels(p.selector, node.metadata?.labels));
  if (pool?.drainSpec !== undefined) return { ok: true, drainSpec: pool.drainSpec, source: `pool ${pool.name}` };
  if (config.drainSpec !== undefined) return { ok: true, drainSpec: config.drainSpec, source: 'cluster-wide' };
  const where = `MaintenanceOperatorConfig ${config.namespace}/${CONFIG_NAME}`;
  const fields = pool === undefined ? 'spec.nodeHandshake.drainSpec' : `spec.nodeHandshake.drainSpec or the nodeHandshake.drainSpec of pool ${pool.name}`;
  return { ok: false, problem: `Drain_Required needs a drainSpec template choosing the pods to drain: set ${fields} in ${where}` };
}
