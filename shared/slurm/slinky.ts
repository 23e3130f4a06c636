// Slinky (slurm-operator v1.x) as kmaint sees it: which pods are its NodeSet pods, the cordon reason kmaint hands it,
// whose Slurm reason is Slinky's, and the Slurm node state read from the SlurmNodeState* pod conditions it writes.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { SLINKY_CONDITION_PREFIX, SLINKY_NODE_CORDON_REASON, SLINKY_POD_HOSTNAME_LABEL, SLINKY_REASON_PREFIX } from '../api/index.ts';
import type { SlurmNodeInfo } from './client.ts';

/** A request by namespace and name. */
type Named = { namespace: string; name: string };

/** A NodeSet pod: Slinky labels each with its Slurm node name. A node running one (not finished) is Slinky-managed. */
export function isSlinkyPod(pod: V1Pod): boolean {
  const finished = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  return !finished && (pod.metadata?.labels?.[SLINKY_POD_HOSTNAME_LABEL] ?? '') !== '';
}

/** The text kmaint puts in the Node's node-cordon-reason: Slinky's drain then reads `slurm-operator: kmaint: ns/name`. */
export function slinkyCordonReason(ref: Named): string {
  return `${KMAINT_CORDON_REASON_PREFIX}${ref.namespace}/${ref.name}`;
}

/** What every node-cordon-reason kmaint writes starts with. */
export const KMAINT_CORDON_REASON_PREFIX = 'kmaint: ';

/** The Slurm reason Slinky drains with after kmaint's cordon for `ref`. */
export function slinkyDrainReason(ref: Named): string {
  return `${SLINKY_REASON_PREFIX}${slinkyCordonReason(ref)}`;
}

/** The Node's node-cordon-reason is the one kmaint wrote for `ref` (cleanup removes only that one). */
export function hasOurCordonReason(node: V1Node, ref: Named): boolean {
  return node.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON] === slinkyCordonReason(ref);
}

/** A reason Slinky set (its own drains, and its preStop hook's `slurm-operator: Pod is terminating`). */
export function isSlinkyReason(reason: string): boolean {
  return reason.startsWith(SLINKY_REASON_PREFIX);
}

/** Slinky acts on a Slurm node only while its reason is empty or its own; any other reason freezes it for that node. */
export function slinkyLeavesAlone(reason: string): boolean {
  return reason !== '' && !isSlinkyReason(reason);
}

/** Condition type suffix -> the Slurm state word slurmrestd uses for it. */
const STATE_WORDS: Readonly<Record<string, string>> = {
  Allocated: 'ALLOCATED',
  Down: 'DOWN',
  Error: 'ERROR',
  Future: 'FUTURE',
  Idle: 'IDLE',
  Mixed: 'MIXED',
  Unknown: 'UNKNOWN',
  Completing: 'COMPLETING',
  Drain: 'DRAIN',
  Fail: 'FAIL',
  Invalid: 'INVALID',
  InvalidReg: 'INVALID_REG',
  Maintenance: 'MAINTENANCE',
  NotResponding: 'NOT_RESPONDING',
  Undrain: 'UNDRAIN',
};
const BASE_STATES: ReadonlySet<string> = new Set(['Allocated', 'Down', 'Error', 'Future', 'Idle', 'Mixed', 'Unknown']);

/**
 * The Slurm node of a NodeSet pod as Slinky's pod conditions show it (token-free mode): base state first, then flags in
 * the table's order; DRAIN dropped while Undrain is set (Slinky's "Drain: Drain and not Undrain"); the reason from the
 * Drain condition's message, else any condition's. undefined when the pod carries no SlurmNodeState* condition.
 */
export function slurmNodeFromConditions(name: string, pod: V1Pod): SlurmNodeInfo | undefined {
  const present = new Map<string, string>();
  let drainSince: number | undefined;
  for (const c of pod.status?.conditions ?? []) {
    if (!c.type.startsWith(SLINKY_CONDITION_PREFIX) || c.status !== 'True') continue;
    present.set(c.type.slice(SLINKY_CONDITION_PREFIX.length), c.message ?? '');
    if (c.type === `${SLINKY_CONDITION_PREFIX}Drain`) drainSince = conditionSeconds(c.lastTransitionTime);
  }
  if (present.size === 0) return undefined;
  const suffixes = Object.keys(STATE_WORDS).filter((s) => present.has(s) && !(s === 'Drain' && present.has('Undrain')));
  const ordered = [...suffixes.filter((s) => BASE_STATES.has(s)), ...suffixes.filter((s) => !BASE_STATES.has(s))];
  const reason = present.get('Drain') ?? [...present.values()].find((m) => m !== '') ?? '';
  return { name, state: ordered.map((s) => STATE_WORDS[s] ?? s), reason, ...(drainSince !== undefined ? { reasonSetAt: drainSince } : {}) };
}

/** A condition's lastTransitionTime in Unix seconds (client-node gives a Date; a string when read raw). */
function conditionSeconds(t: Date | string | undefined): number | undefined {
  const ms = t === undefined ? Number.NaN : new Date(t).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}
