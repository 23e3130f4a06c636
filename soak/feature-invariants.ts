// The all-features soak's invariants (issue 30 point 4), beside those of invariants.ts: gangs admitted whole, count
// limits (pools, SR-IOV pools) held, and nothing of kmaint's left on the cluster once its passes are quiet. Pure.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { ANNOTATION_ADMITTED, ANNOTATION_CORDONED_BY, ANNOTATION_OUT_OF_SERVICE_BY, maintenanceKey, MEDIK8S_HOLDER_PREFIX, NODE_CONDITION_MESSAGE_PREFIX, NODE_CONDITION_TYPES, NodeConditionReason, TAINT_OUT_OF_SERVICE } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import type { GangRecord } from './actors.ts';
import { inProgress, type CheckResult, type ClusterSample } from './invariants.ts';

const phaseOf = (nm: NodeMaintenance): string => nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';
/** Not admitted: new or Pending (the scheduler has not written Scheduled). */
const waiting = (nm: NodeMaintenance): boolean => ['', 'Pending'].includes(phaseOf(nm));
/**
 * In maintenance: kmaint is acting on the node (Cordon or later). A member Scheduled but held is not: a pass may repair
 * a gang one member of which was admitted alone (its write failed for the others) by holding it until the rest fits.
 */
const inMaintenance = (nm: NodeMaintenance): boolean => !waiting(nm) && phaseOf(nm) !== 'Scheduled';

/** How long a gang may be seen partly admitted before it counts: the passes retry a failed member within seconds. */
export const GANG_SETTLE_MS = 20_000;

/**
 * The gangs partly admitted in `sample`: some live member (not being deleted) in maintenance (Cordon or later) while
 * another live member is not admitted (new or Pending). Gangs `skip` says were not gangs to kmaint throughout (a
 * node-label gang while gangNodeLabel was off) are left out. Gang name -> what the members are.
 */
export function partialGangs(sample: ClusterSample, gangs: ReadonlyMap<string, GangRecord>, skip: (g: GangRecord) => boolean): Map<string, string> {
  const byKey = new Map(sample.nms.map((nm) => [maintenanceKey(nm), nm]));
  const out = new Map<string, string>();
  for (const [name, g] of [...gangs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (skip(g)) continue;
    const live = g.members.map((m) => byKey.get(m)).filter((nm): nm is NodeMaintenance => nm !== undefined && nm.metadata.deletionTimestamp === undefined);
    const inside = live.filter(inMaintenance);
    const outside = live.filter(waiting);
    if (inside.length === 0 || outside.length === 0) continue;
    out.set(name, `${inside.map((nm) => `${maintenanceKey(nm)} ${phaseOf(nm)}`).join(', ')} in maintenance; ${outside.map((nm) => `${maintenanceKey(nm)} ${phaseOf(nm) || '(new)'}`).join(', ')} not admitted`);
  }
  return out;
}

/**
 * (a) No gang partly admitted after a quiet period: a gang seen partly admitted in every sample from `since` until
 * `at`, `settleMs` or longer, is a violation (reported once per episode). `since` maps each gang partly admitted in
 * the previous sample to the time it was first seen so; the result carries the map for the next sample.
 */
export function checkGangs(partial: ReadonlyMap<string, string>, since: ReadonlyMap<string, number>, reported: ReadonlySet<string>, at: number, settleMs = GANG_SETTLE_MS): CheckResult & { since: Map<string, number>; reported: Set<string> } {
  const violations: string[] = [];
  const next = new Map<string, number>();
  const nowReported = new Set<string>();
  for (const [gang, what] of partial) {
    const first = since.get(gang) ?? at;
    next.set(gang, first);
    if (at - first < settleMs) continue;
    if (!reported.has(gang)) violations.push(`gang ${gang} partly admitted for ${((at - first) / 1000).toFixed(0)} s: ${what}`);
    nowReported.add(gang);
  }
  return { violations, checks: partial.size, since: next, reported: nowReported };
}

/** A limit on how many counted requests may be in progress at once (a pool's maxParallelOperations, an SR-IOV pool). */
export interface CountLimit {
  scope: string;
  limit: number;
  counts: (nm: NodeMaintenance) => boolean;
}

/**
 * (b) Count limits: when a counted request entered progress since `prev`, the counted requests in progress now (all
 * admitted before it and still in progress, so in progress together at its admission) may not exceed the limit.
 * Requests whose Node is gone hold nothing.
 */
export function checkCountLimits(prev: ClusterSample, now: ClusterSample, limits: readonly CountLimit[]): CheckResult {
  const violations: string[] = [];
  const nodes = new Set(now.nodes.map((n) => n.metadata?.name ?? ''));
  const before = new Set(prev.nms.filter(inProgress).map(maintenanceKey));
  const during = now.nms.filter((nm) => inProgress(nm) && nodes.has(nm.spec.nodeName));
  for (const l of limits) {
    const counted = during.filter(l.counts);
    const entrants = counted.filter((nm) => !before.has(maintenanceKey(nm)));
    if (entrants.length === 0) continue;
    if (counted.length > l.limit) violations.push(`${l.scope} limit ${l.limit}: ${counted.length} in progress (${counted.map(maintenanceKey).sort().join(', ')}), ${entrants.map(maintenanceKey).sort().join(', ')} just admitted`);
  }
  return { violations, checks: limits.length };
}

const KMAINT_CONDITION_REASONS: ReadonlySet<string> = new Set(Object.values(NodeConditionReason));

/**
 * (d) Nothing of kmaint's left on the nodes and leases once its passes are quiet: no kmaint.io/cordoned-by,
 * kmaint.io/out-of-service-by or kmaint.io/admitted record, no out-of-service taint (the soak adds none; one a node started with is left
 * out), none of kmaint's node conditions (by its message prefix or its reasons), no medik8s lease held by `kmaint/…`.
 * Requests left and cordons are checkEnd's.
 */
export function checkLeftovers(nodes: readonly V1Node[], leases: readonly V1Lease[], initiallyTainted: ReadonlySet<string>): CheckResult {
  const violations: string[] = [];
  let checks = 0;
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const annotations = node.metadata?.annotations ?? {};
    checks += 4;
    for (const record of [ANNOTATION_CORDONED_BY, ANNOTATION_OUT_OF_SERVICE_BY, ANNOTATION_ADMITTED]) {
      if (annotations[record] !== undefined) violations.push(`node ${name} keeps ${record}=${annotations[record]}`);
    }
    if (!initiallyTainted.has(name) && (node.spec?.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE)) violations.push(`node ${name} keeps the ${TAINT_OUT_OF_SERVICE} taint`);
    for (const c of node.status?.conditions ?? []) {
      if (!(NODE_CONDITION_TYPES as readonly string[]).includes(c.type)) continue;
      if ((c.message ?? '').startsWith(NODE_CONDITION_MESSAGE_PREFIX) || KMAINT_CONDITION_REASONS.has(c.reason ?? '')) violations.push(`node ${name} keeps condition ${c.type}=${c.status}/${c.reason ?? ''} (${c.message ?? ''})`);
    }
  }
  for (const lease of leases) {
    checks++;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder.startsWith(MEDIK8S_HOLDER_PREFIX)) violations.push(`lease ${lease.metadata?.namespace ?? ''}/${lease.metadata?.name ?? ''} still held by ${holder}`);
  }
  return { violations, checks };
}

/** What the soak reads of Slurm at the end: every reservation's name, every node's state and reason. */
export interface SlurmLeftovers {
  reservations: readonly string[];
  nodes: ReadonlyArray<{ name: string; state: readonly string[]; reason: string }>;
}

/**
 * (d) in Slurm: once the passes are quiet, no reservation with kmaint's name prefix (`kmaint_`) and no node drained
 * (DRAIN flag) with a reason starting with kmaint's prefix (`kmaint:`, spec.slurm.reasonPrefix's default). A reason
 * left on a node that is no longer drained (24.11 keeps it after an undrain) is not a drain.
 */
export function checkSlurmLeftovers(slurm: SlurmLeftovers, reasonPrefix = 'kmaint:'): CheckResult {
  const violations: string[] = [];
  for (const name of slurm.reservations) if (name.startsWith('kmaint_')) violations.push(`Slurm reservation ${name} left`);
  for (const n of slurm.nodes) if (n.state.includes('DRAIN') && n.reason.startsWith(reasonPrefix)) violations.push(`Slurm node ${n.name} left drained (${n.state.join('+')}): ${n.reason}`);
  return { violations, checks: slurm.reservations.length + slurm.nodes.length };
}
