// The drain phase's Slurm gate: drain the request's Slurm nodes (record first, drain next pass), wait until they are
// Drained, never touch a drain someone else set, and never let an eviction through while Slurm cannot be read.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeMaintenance } from '../api/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, drainReason, formatRecord, recordedSlurmNodes } from './ownership.ts';
import { formatState, hasDrainFlag, isDrained } from './state.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';
import { slurmWorkersOf } from './workers.ts';

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

export const EVENT_REASON_SLURM_PROBLEM = 'SlurmProblem';
export const EVENT_REASON_SLURM_DRAIN_TIMEOUT = 'SlurmDrainTimeout';

function rfc3339Seconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Decides the gate for one request whose drain phase is about to evict. Pure. */
export function planSlurmGate(nm: NodeMaintenance, node: V1Node, pods: readonly V1Pod[], ctx: SlurmContext, now: Date): SlurmGate {
  const annotations: Record<string, string | null> = {};
  const hold = (message: string, warning?: SlurmGate['warning']): SlurmGate => ({ hold: true, message, annotations, writes, ...(warning ? { warning } : {}) });
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
  const recorded = new Set(recordedSlurmNodes(nm));
  const reason = drainReason(s.reasonPrefix, nm);
  const toRecord: string[] = [];
  const waits: string[] = [];
  const missing: string[] = [];
  for (const w of workers.workers) {
    const info = view.nodes.get(w.slurmNode);
    if (!info) {
      missing.push(`Slurm node ${w.slurmNode} (of ${w.source}) is unknown to slurmctld`);
      continue;
    }
    const state = formatState(info.state);
    if (recorded.has(w.slurmNode)) {
      // Ours: drain it if the flag is not (or no longer) set, then wait for the work on it to end.
      if (!hasDrainFlag(info.state)) {
        writes.push({ kind: 'slurmDrain', node: w.slurmNode, reason, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why: `before evicting ${w.source}` });
        waits.push(`Slurm node ${w.slurmNode} draining, state ${state}`);
      } else if (!isDrained(info.state)) {
        waits.push(`Slurm node ${w.slurmNode} draining, state ${state}`);
      }
    } else if (hasDrainFlag(info.state)) {
      // Someone else's drain (an admin, Slinky's slurm-operator:, another request): wait for it, never touch it.
      if (!isDrained(info.state)) waits.push(`Slurm node ${w.slurmNode} drained by someone else ("${info.reason}"), state ${state}`);
    } else {
      // Record before draining: the drain is sent next pass, once the record is on the object.
      toRecord.push(w.slurmNode);
      waits.push(`Slurm node ${w.slurmNode} to be drained, state ${state}`);
    }
  }
  if (toRecord.length > 0) annotations[ANNOTATION_SLURM_DRAINED] = formatRecord([...recorded, ...toRecord]);
  if (missing.length > 0) return hold(`waiting: ${[...missing, ...waits].join('; ')}`, { eventReason: EVENT_REASON_SLURM_PROBLEM, message: missing.join('; ') });
  if (waits.length === 0) return { hold: false, message: '', annotations, writes };

  let startedAt = ms[ANNOTATION_SLURM_DRAIN_START];
  const startMs = Date.parse(startedAt ?? '');
  if (startedAt === undefined || Number.isNaN(startMs)) {
    startedAt = rfc3339Seconds(now);
    annotations[ANNOTATION_SLURM_DRAIN_START] = startedAt;
  } else if (s.drainTimeoutSeconds > 0 && now.getTime() - startMs >= s.drainTimeoutSeconds * 1000 && writes.length === 0 && toRecord.length === 0) {
    // Every drain has been sent; what is left is work that did not end in time.
    return { hold: false, message: '', annotations, writes, warning: { eventReason: EVENT_REASON_SLURM_DRAIN_TIMEOUT, message: `Slurm drain did not finish within ${s.drainTimeoutSeconds} s (${waits.join('; ')}); evicting anyway` } };
  }
  return hold(`waiting: ${waits.join('; ')}`);
}
