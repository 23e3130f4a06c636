// The drain phase's Slurm gate: drain the request's Slurm nodes (record first, drain next pass), wait until they are
// Drained, never touch a drain someone else set, and never let an eviction through while Slurm cannot be read. On a
// Slinky-managed node Slinky drains on kmaint's cordon: kmaint records that drain and waits for it, never lifts it.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_SLINKY_DRAINED, rfc3339Seconds, SLINKY_CONDITION_PREFIX, WaitKind, type NodeMaintenance } from '../api/index.ts';
import type { SlurmNodeInfo } from './client.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, drainReason, formatRecord, recordedSlinkyNodes, recordedSlurmNodes } from './ownership.ts';
import { isSlinkyPod, isSlinkyReason, slinkyDrainReason, slinkyLeavesAlone, slurmNodeFromConditions } from './slinky.ts';
import { formatState, hasDrainFlag, isDrained } from './state.ts';
import type { SlurmContext, SlurmView, SlurmWrite } from './view.ts';
import { slurmWorkersOf, type SlurmWorker } from './workers.ts';

export interface SlurmGate {
  /** No eviction this pass. */
  hold: boolean;
  /** The Ready condition message while holding ("waiting: Slurm node n3 draining, state ALLOCATED+DRAIN"). */
  message: string;
  /** NodeMaintenance annotations to write (records go on before any drain is sent). */
  annotations: Record<string, string | null>;
  writes: SlurmWrite[];
  /** A warning worth an event when the message is new (a problem, or a timeout). */
  warning?: { eventReason: string; message: string };
}

/** The gate and, while it holds, what its message waits on (kmaint.io/wait-kind), for the drainer to record. */
export type SlurmGateWithWait = SlurmGate & { wait?: WaitKind };

export const EVENT_REASON_SLURM_PROBLEM = 'SlurmProblem';
export const EVENT_REASON_SLURM_DRAIN_TIMEOUT = 'SlurmDrainTimeout';

/** What one worker's Slurm node needs: a drain kmaint sends, a record, a wait, or a problem nothing else solves. */
interface Verdict {
  drain?: true;
  record?: 'kmaint' | 'slinky';
  wait?: string;
  /** A wait on Slinky: its drain still to come, or its drain under way. */
  slinky?: 'to-drain' | 'draining';
  problem?: string;
}

interface JudgeRules {
  /** Drains kmaint sent for this request (kmaint.io/slurm-drained). */
  recorded: ReadonlySet<string>;
  /** Drains Slinky made for this request (kmaint.io/slinky-drained). */
  slinkyRecorded: ReadonlySet<string>;
  /** `slurm-operator: kmaint: ns/name`: Slinky's drain after kmaint's cordon of this request. */
  slinkyReason: string;
  /** kmaint can drain through slurmrestd (not in the token-free mode). */
  canWrite: boolean;
}

/** The worker's Slurm node from slurmctld's list, or from its pod's Slinky conditions; a string says why neither. */
function slurmNodeOf(w: SlurmWorker, view: Exclude<SlurmView, { kind: 'problem' }>): SlurmNodeInfo | string {
  if (view.kind === 'ok') return view.nodes.get(w.slurmNode) ?? `Slurm node ${w.slurmNode} (of ${w.source}) is unknown to slurmctld`;
  const info = w.pod ? slurmNodeFromConditions(w.slurmNode, w.pod) : undefined;
  return info ?? `${w.source} carries no ${SLINKY_CONDITION_PREFIX}* condition to read Slurm node ${w.slurmNode} from (spec.slurm has no url and token, so kmaint reads Slinky's pod conditions)`;
}

/**
 * One worker, first match wins: kmaint's own drain; a drain already set (Slinky's for this request, Slinky's for
 * another cause, anyone else's: waited for, never touched); Slinky still to drain after the cordon; else kmaint drains.
 */
function judgeWorker(w: SlurmWorker, info: SlurmNodeInfo, r: JudgeRules): Verdict {
  const at = `Slurm node ${w.slurmNode}`;
  const state = formatState(info.state);
  const drained = isDrained(info.state);
  const slinky = w.pod !== undefined && isSlinkyPod(w.pod);
  if (r.recorded.has(w.slurmNode)) {
    // Ours: drain it if the flag is not (or no longer) set, then wait for the work on it to end.
    if (!hasDrainFlag(info.state)) return r.canWrite ? { drain: true, wait: `${at} draining, state ${state}` } : { problem: `${at} was drained by kmaint and is no longer; without slurmrestd url and token kmaint cannot drain it again` };
    return drained ? {} : { wait: `${at} draining, state ${state}` };
  }
  if (hasDrainFlag(info.state)) {
    // Slinky's drain for this request: recorded (its preStop hook rewrites the reason), waited for, never undrained by kmaint.
    const forUs = r.slinkyRecorded.has(w.slurmNode) || (slinky && info.reason === r.slinkyReason);
    const record = forUs && !r.slinkyRecorded.has(w.slurmNode) ? { record: 'slinky' as const } : {};
    if (drained) return record;
    if (forUs) return { ...record, slinky: 'draining', wait: `${at} draining by Slinky for this request ("${info.reason}"), state ${state}` };
    // Slinky drained it for another cause (someone else's cordon, its pod-cordon): cooperating, not foreign.
    if (slinky && isSlinkyReason(info.reason)) return { slinky: 'draining', wait: `${at} draining by Slinky ("${info.reason}"), state ${state}` };
    // Someone else's drain (an admin, another request): wait for it, never touch it.
    return { wait: `${at} drained by someone else ("${info.reason}"), state ${state}` };
  }
  // Slinky drains the Slurm node of a cordoned Kubernetes node, unless a foreign reason freezes it.
  if (slinky && !slinkyLeavesAlone(info.reason)) return { slinky: 'to-drain', wait: `${at} to be drained by Slinky, state ${state}` };
  if (!r.canWrite) return { problem: `${at} has a reason Slinky leaves alone ("${info.reason}"), so Slinky will not drain it, and without slurmrestd url and token kmaint cannot: clear the reason or drain the node by hand` };
  // Record before draining: the drain is sent next pass, once the record is on the object.
  return { record: 'kmaint', wait: `${at} to be drained, state ${state}` };
}

/** Decides the gate for one request whose drain phase is about to evict. Pure. */
export function planSlurmGate(nm: NodeMaintenance, node: V1Node, pods: readonly V1Pod[], ctx: SlurmContext, now: Date): SlurmGate {
  const { wait: _wait, ...gate } = planSlurmGateWithWait(nm, node, pods, ctx, now);
  return gate;
}

/** planSlurmGate, plus the kind of wait when it holds. Pure. */
export function planSlurmGateWithWait(nm: NodeMaintenance, node: V1Node, pods: readonly V1Pod[], ctx: SlurmContext, now: Date): SlurmGateWithWait {
  const annotations: Record<string, string | null> = {};
  const hold = (message: string, warning?: SlurmGate['warning'], wait: WaitKind = WaitKind.SlurmProblem): SlurmGateWithWait => ({ hold: true, message, annotations, writes, wait, ...(warning ? { warning } : {}) });
  const writes: SlurmWrite[] = [];
  if (ctx.kind === 'invalid') return hold(`waiting: ${ctx.problem}`, { eventReason: EVENT_REASON_SLURM_PROBLEM, message: ctx.problem });
  const s = ctx.settings;
  const workers = slurmWorkersOf(node, pods, s);
  if (!workers.ok) return hold(`waiting: ${workers.error}`, { eventReason: EVENT_REASON_SLURM_PROBLEM, message: workers.error });
  if (workers.workers.length === 0) return { hold: false, message: '', annotations, writes };

  const view = ctx.view;
  if (view.kind === 'problem') {
    if (view.problem.kind === 'unreachable' && s.whenUnreachable === 'evict') {
      return { hold: false, message: '', annotations, writes, warning: { eventReason: EVENT_REASON_SLURM_PROBLEM, message: `${view.problem.message}; evicting without a Slurm drain (spec.slurm.whenUnreachable: evict)` } };
    }
    const names = workers.workers.map((w) => w.slurmNode).join(', ');
    return hold(`waiting: ${view.problem.message}; nothing is evicted until Slurm node ${names} can be drained`, { eventReason: EVENT_REASON_SLURM_PROBLEM, message: view.problem.message });
  }

  const ms = nm.metadata.annotations ?? {};
  const ref = { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name };
  const rules: JudgeRules = { recorded: new Set(recordedSlurmNodes(nm)), slinkyRecorded: new Set(recordedSlinkyNodes(nm)), slinkyReason: slinkyDrainReason(ref), canWrite: view.kind === 'ok' };
  const reason = drainReason(s.reasonPrefix, nm);
  const toRecord: string[] = [];
  const slinkyToRecord: string[] = [];
  const waits: string[] = [];
  const missing: string[] = [];
  const waited: SlurmNodeInfo[] = [];
  const slinkyWaits = new Set<'to-drain' | 'draining'>();
  for (const w of workers.workers) {
    const info = slurmNodeOf(w, view);
    if (typeof info === 'string') {
      missing.push(info);
      continue;
    }
    const v = judgeWorker(w, info, rules);
    if (v.drain) writes.push({ kind: 'slurmDrain', node: w.slurmNode, reason, maintenance: ref, why: `before evicting ${w.source}` });
    if (v.record === 'kmaint') toRecord.push(w.slurmNode);
    if (v.record === 'slinky') slinkyToRecord.push(w.slurmNode);
    if (v.problem !== undefined) missing.push(v.problem);
    if (v.wait !== undefined) {
      waits.push(v.wait);
      if (v.slinky) slinkyWaits.add(v.slinky);
      waited.push(info);
    }
  }
  if (slinkyToRecord.length > 0) annotations[ANNOTATION_SLINKY_DRAINED] = formatRecord([...rules.slinkyRecorded, ...slinkyToRecord]);
  if (toRecord.length > 0) annotations[ANNOTATION_SLURM_DRAINED] = formatRecord([...rules.recorded, ...toRecord]);
  if (missing.length > 0) return hold(`waiting: ${[...missing, ...waits].join('; ')}`, { eventReason: EVENT_REASON_SLURM_PROBLEM, message: missing.join('; ') });
  if (waits.length === 0) return { hold: false, message: '', annotations, writes };

  const startedAt = ms[ANNOTATION_SLURM_DRAIN_START];
  const startMs = Date.parse(startedAt ?? '');
  if (startedAt === undefined || Number.isNaN(startMs)) {
    annotations[ANNOTATION_SLURM_DRAIN_START] = rfc3339Seconds(now);
  } else if (s.drainTimeoutSeconds > 0 && writes.length === 0 && toRecord.length === 0) {
    // Every drain has been sent; what is left is work that did not end in time, counted from Slurm's own clock.
    const since = drainingSince(waited);
    if (since !== undefined && now.getTime() - Math.max(startMs, since * 1000) >= s.drainTimeoutSeconds * 1000) {
      return { hold: false, message: '', annotations, writes, warning: { eventReason: EVENT_REASON_SLURM_DRAIN_TIMEOUT, message: `Slurm drain did not finish within ${s.drainTimeoutSeconds} s (${waits.join('; ')}); evicting anyway` } };
    }
  }
  const wait = slinkyWaits.has('to-drain') ? WaitKind.SlinkyDrain : slinkyWaits.has('draining') ? WaitKind.SlinkyJobs : WaitKind.SlurmDrain;
  return hold(`waiting: ${waits.join('; ')}`, undefined, wait);
}

/**
 * Since when Slurm has been draining every node waited for (Unix seconds): the latest time Slurm says a drain's reason
 * was set; undefined while any of them carries no DRAIN flag or no such time. The drain timeout counts from here, never
 * from kmaint.io/slurm-drain-start-time alone: a requestor can write that annotation (issue 40), so it can only make the
 * wait longer, and a Slurm node nobody has drained yet never times out.
 */
function drainingSince(waited: readonly SlurmNodeInfo[]): number | undefined {
  let latest = 0;
  for (const info of waited) {
    if (!hasDrainFlag(info.state) || info.reasonSetAt === undefined) return undefined;
    latest = Math.max(latest, info.reasonSetAt);
  }
  return waited.length > 0 ? latest : undefined;
}
