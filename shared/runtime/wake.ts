// After a round that made no progress: what to wait for before the next one. Watching the LISTs the round read wakes
// the run on the change it waits for (a pod gone, a budget relaxed, a request created or deleted) at the cost of one
// WATCH each; a timer covers what only time changes. Anything else the round depends on and cannot watch: poll.
import { ANNOTATION_RELEASED_AT, ANNOTATION_DESIRED_STATE, SRIOV_ANNOTATION_NODE_STATE, ANNOTATION_DRAIN_START, ANNOTATION_GC_IGNORE, ANNOTATION_READY_TIME, ANNOTATION_WAIT_POD_COMPLETION_START, DEFAULTS, Phase, maintenancePhase } from '../api/index.ts';
import type { NodeMaintenance } from '../api/index.ts';
import type { ListedVersion } from '../kube/index.ts';
import type { RoundRead } from '../pass/index.ts';

export type WakePlan = { kind: 'watch'; targets: ListedVersion[]; atMs: number } | { kind: 'poll'; why: string };

export interface WakeInput {
  /** The round's last base snapshot and the config its pass parsed. */
  read: RoundRead | undefined;
  /** The LISTs the round read (KubeClient.listedSince). */
  listed: readonly ListedVersion[];
  /** The round read medik8s node leases (their holders renew them: a watch would wake all the time). */
  medik8sSeen: boolean;
  nowMs: number;
  /** Longest wait even when nothing changes (node readiness and new handshakes are not watched). */
  maxWaitMs: number;
}

/** WATCHes per wait at most; more nodes in flight than this and the run polls. */
export const MAX_WATCH_TARGETS = 16;
/** What a change can unblock: requests (slots, deletions), the pods of nodes in flight, budgets. Nodes heartbeat. */
const WATCHED = new Set(['nodemaintenances', 'pods', 'poddisruptionbudgets']);

/** When only time moves a request on: a wait timeout, a drain window, garbage collection, a release delay's end. Earliest first. */
function timedWakeMs(nms: readonly NodeMaintenance[], maxNodeMaintenanceTimeSeconds: number, releaseDelaySeconds: number, nowMs: number): number | undefined {
  const at: number[] = [];
  const after = (iso: string | undefined, seconds: number): void => {
    const t = Date.parse(iso ?? '');
    // Second-granular timestamps: one second late is never early.
    if (!Number.isNaN(t) && seconds > 0 && t + seconds * 1000 + 1000 > nowMs) at.push(t + seconds * 1000 + 1000);
  };
  for (const nm of nms) {
    // A released request kept for spec.releaseDelaySeconds: cleanup lets it go, and the scheduler admits, at its end.
    if (nm.metadata.deletionTimestamp) {
      after(nm.metadata.annotations?.[ANNOTATION_RELEASED_AT], releaseDelaySeconds);
      continue;
    }
    const annotations = nm.metadata.annotations ?? {};
    const phase = maintenancePhase(nm);
    if (phase === Phase.WaitForPodCompletion) after(annotations[ANNOTATION_WAIT_POD_COMPLETION_START], nm.spec.waitForPodCompletion?.timeoutSeconds ?? DEFAULTS.waitTimeoutSeconds);
    if (phase === Phase.Draining) after(annotations[ANNOTATION_DRAIN_START], nm.spec.drainSpec?.timeoutSeconds ?? DEFAULTS.drainTimeoutSeconds);
    if (phase === Phase.Ready && annotations[ANNOTATION_GC_IGNORE] !== 'true') after(annotations[ANNOTATION_READY_TIME], maxNodeMaintenanceTimeSeconds);
  }
  // A loop, not Math.min(...at): a spread of one argument per request throws past the engine's argument limit.
  return at.length > 0 ? at.reduce((min, t) => Math.min(min, t), Infinity) : undefined;
}

/**
 * How long to wait after a watch saw a change before the next round: `settleMs`, so that a burst of changes costs one
 * round, and never less than what polling would have waited since the round ended (`intervalMs`), so that waking on
 * change never makes more rounds than polling would. Pure.
 */
export function wokenRoundDelayMs(settleMs: number, intervalMs: number, sinceRoundEndMs: number): number {
  return Math.max(settleMs, intervalMs - sinceRoundEndMs, 0);
}

/** Pure: watch what the round read, until a timer, or poll and say why. */
export function planWake(input: WakeInput): WakePlan {
  if (!input.read) return { kind: 'poll', why: 'nothing read this round' };
  const { base, config } = input.read;
  const targets = input.listed.filter((l) => l.resource !== 'nodes');
  const { slurm } = config;
  // In order: each names something a change of which the next round would act on, and which no watch here sees.
  const unwatchable: Array<[boolean, string]> = [
    [input.medik8sSeen, 'medik8s node leases are read'],
    [slurm.kind !== 'off', slurm.kind === 'on' && slurm.settings.source === 'pod-conditions' ? "spec.slurm is set (token-free: Slinky's pod conditions are read with the drain's pods, not watched)" : 'spec.slurm is set (slurmrestd cannot be watched)'],
    [config.cloudEventsOn, 'spec.cloudEvents is on (cloud scheduled events cannot be watched)'],
    [config.reaperMode !== 'disabled', 'the reaper reads node health'],
    // Maintenance windows open with the clock, per pool: not worth a timer of their own.
    [config.limits.admission !== undefined, 'admission rules (windows) are set'],
    [base.nodeList.some((n) => (n.metadata?.annotations?.[ANNOTATION_DESIRED_STATE] ?? 'Idle') !== 'Idle'), 'a node-annotation handshake is in progress'],
    [base.nodeList.some((n) => (n.metadata?.annotations?.[SRIOV_ANNOTATION_NODE_STATE] ?? 'Idle') !== 'Idle'), 'an SR-IOV drain handshake is in progress'],
    [targets.some((l) => !WATCHED.has(l.resource)), 'the round read something that is not watched'],
    [!targets.some((l) => l.resource === 'nodemaintenances'), 'no NodeMaintenance LIST to watch from'],
    [targets.length > MAX_WATCH_TARGETS, `more than ${MAX_WATCH_TARGETS} LISTs to watch`],
  ];
  const poll = unwatchable.find(([applies]) => applies);
  if (poll) return { kind: 'poll', why: poll[1] };
  const timed = timedWakeMs(base.maintenances, config.limits.maxNodeMaintenanceTimeSeconds, config.releaseDelaySeconds, input.nowMs);
  return { kind: 'watch', targets, atMs: Math.min(input.nowMs + input.maxWaitMs, timed ?? Infinity) };
}
