// The SR-IOV network operator's drain pools (SriovNetworkPoolConfig, interop sheet §1.5) resolved for kmaint's
// admission. The operator ignores them for externally drained nodes, so kmaint, as that drainer, enforces them.
import type { V1Node } from '@kubernetes/client-node';
import { isInProgress } from '#api';
import type { NodeMaintenance, SriovNetworkPoolConfig } from '#api';
import type { ExternalPool, ExternalPools } from '#scheduling';
import { labelSelectorFromObject, matchesLabels } from '#selectors';
import type { LabelSelector } from '#selectors';


/** The operator's virtual pool of the nodes no SriovNetworkPoolConfig selects: one at a time. */
export const SRIOV_DEFAULT_POOL = 'the default SR-IOV pool (nodes in no SriovNetworkPoolConfig, maxUnavailable 1)';

/**
 * A pool's limit over `size` nodes, as the operator reads spec.maxUnavailable: unset is no limit, an integer is used
 * as it is (negative is refused), `"N%"` needs N in 1..100 and is rounded down (20% of 4 nodes is 0: nothing starts).
 */
export function sriovMaxUnavailable(value: number | string | null | undefined, size: number): { ok: true; max: number | undefined; text: string } | { ok: false; problem: string } {
  if (value === undefined || value === null) return { ok: true, max: undefined, text: 'unset (no limit)' };
  if (typeof value === 'number') {
    return value < 0 ? { ok: false, problem: `maxUnavailable ${value} is negative` } : { ok: true, max: value, text: String(value) };
  }
  const percent = /^(\d+)%$/.exec(value);
  if (percent === null) return { ok: false, problem: `maxUnavailable ${JSON.stringify(value)} is neither an integer nor a percentage` };
  const n = Number(percent[1]);
  if (n < 1 || n > 100) return { ok: false, problem: `maxUnavailable ${JSON.stringify(value)}: a percentage needs to be between 1 and 100` };
  const max = Math.floor((n * size) / 100);
  return { ok: true, max, text: `${JSON.stringify(value)} of ${size} nodes = ${max}` };
}

interface ResolvedPool {
  name: string;
  selector: LabelSelector;
  value: number | string | null | undefined;
}

/** Drain pools in the operator's namespace (hardware-offload pools do not drain), or why their selectors cannot be read. */
function drainPools(configs: readonly SriovNetworkPoolConfig[], namespace: string): { pools: ResolvedPool[] } | { problem: string } {
  const pools: ResolvedPool[] = [];
  const sorted = configs.filter((c) => c.metadata?.namespace === namespace).sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const config of sorted) {
    if ((config.spec?.ovsHardwareOffloadConfig?.name ?? '') !== '') continue;
    const name = `SriovNetworkPoolConfig ${namespace}/${config.metadata?.name ?? ''}`;
    const selector = labelSelectorFromObject(config.spec?.nodeSelector ?? {});
    // The operator fails every drain on one unreadable selector; so does kmaint, naming it.
    if (!selector.ok) return { problem: `${name} spec.nodeSelector cannot be used (${selector.error})` };
    pools.push({ name, selector: selector.selector, value: config.spec?.maxUnavailable });
  }
  return { pools };
}

/**
 * Pure: the SR-IOV pools of the nodes with an SR-IOV request (`isSriov`) to admit, counting those in progress per pool.
 * A node two pools select admits nothing and says which.
 */
export function resolveSriovPools(input: {
  configs: readonly SriovNetworkPoolConfig[];
  namespace: string;
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  isSriov: (nm: NodeMaintenance) => boolean;
}): ExternalPools {
  const waiting = new Set(input.maintenances.filter((nm) => input.isSriov(nm) && !isInProgress(nm)).map((nm) => nm.spec.nodeName));
  const resolved = drainPools(input.configs, input.namespace);
  const problems = new Map<string, string>();
  if ('problem' in resolved) {
    for (const node of waiting) problems.set(node, resolved.problem);
    return { what: 'SR-IOV drain', poolOf: new Map(), pools: new Map(), problems };
  }
  const members = new Map<string, string[]>();
  for (const node of input.nodes) {
    const name = node.metadata?.name ?? '';
    const matched = resolved.pools.filter((p) => matchesLabels(p.selector, node.metadata?.labels)).map((p) => p.name);
    members.set(name, matched.length === 0 ? [SRIOV_DEFAULT_POOL] : matched);
  }
  const poolNodes = (pool: string): string[] => [...members].filter(([, m]) => m.length === 1 && m[0] === pool).map(([n]) => n);
  const inProgress = new Map<string, number>();
  for (const nm of input.maintenances) {
    // In progress includes being deleted: the node is cordoned until cleanup releases it.
    if (!input.isSriov(nm) || !isInProgress(nm)) continue;
    const of = members.get(nm.spec.nodeName);
    if (of?.length === 1 && of[0] !== undefined) inProgress.set(of[0], (inProgress.get(of[0]) ?? 0) + 1);
  }
  const poolOf = new Map<string, string>();
  const pools = new Map<string, ExternalPool>();
  for (const node of [...waiting].sort()) {
    const of = members.get(node) ?? [SRIOV_DEFAULT_POOL];
    if (of.length > 1) {
      problems.set(node, `node ${node} matches ${of.length} pools (${of.join(', ')}); the SR-IOV network operator refuses such a node, so kmaint does not guess its limit`);
      continue;
    }
    const name = of[0] ?? SRIOV_DEFAULT_POOL;
    poolOf.set(node, name);
    if (pools.has(name)) continue;
    const value = name === SRIOV_DEFAULT_POOL ? 1 : resolved.pools.find((p) => p.name === name)?.value;
    const limit = sriovMaxUnavailable(value, poolNodes(name).length);
    if (!limit.ok) {
      problems.set(node, `${name}: ${limit.problem}`);
      poolOf.delete(node);
      continue;
    }
    pools.set(name, { name, max: limit.max, text: limit.text, inProgress: inProgress.get(name) ?? 0 });
  }
  return { what: 'SR-IOV drain', poolOf, pools, problems };
}
