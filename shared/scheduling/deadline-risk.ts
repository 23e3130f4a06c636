// What a request's kmaint.io/deadline means for ranking: a deadline the scheduler believes (valid and not before the
// request was created), and whether it is at risk, i.e. close enough that waiting for another pass may miss it.
import { requestDeadline, rfc3339Seconds, type NodeMaintenance } from '#api';

/** Slack on top of the expected drain time: two scheduler ticks (5 min each by default), the cordon, and the pod waits' rounding. */
export const DEADLINE_RISK_MARGIN_SECONDS = 1800;
/** drainSpec.timeoutSeconds when the request sets none (upstream's default). */
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 300;
/** What a timeout of 0 (no timeout) counts as: an hour, so a request without a bound still gets ahead eventually. */
export const UNBOUNDED_STEP_SECONDS = 3600;

export type RankingDeadline =
  | { readonly kind: 'none' }
  | { readonly kind: 'valid'; readonly at: Date }
  /** Readable but not believed for ranking; the scheduler reports it on the request. */
  | { readonly kind: 'ignored'; readonly reason: string };

function createdMs(nm: NodeMaintenance): number | undefined {
  const t = Date.parse(nm.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? undefined : t;
}

/**
 * The deadline ranking may use. One before the request's own creation could never be met and would rank first forever
 * (issue 31: queue jumping), so it is ignored; an unreadable one is reported by planDeadlineReports and ranks as none.
 */
export function rankingDeadline(nm: NodeMaintenance): RankingDeadline {
  const deadline = requestDeadline(nm);
  if (deadline.kind !== 'valid') return { kind: 'none' };
  const created = createdMs(nm);
  if (created !== undefined && deadline.at.getTime() < created) {
    return { kind: 'ignored', reason: `kmaint.io/deadline ${rfc3339Seconds(deadline.at)} is before the request was created (${rfc3339Seconds(new Date(created))})` };
  }
  return { kind: 'valid', at: deadline.at };
}

/** How long the request's drain is expected to take once admitted: its drain timeout plus its wait for pods, if bounded. */
export function expectedDrainSeconds(nm: NodeMaintenance): number {
  const drain = nm.spec.drainSpec?.timeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS;
  const wait = nm.spec.waitForPodCompletion;
  const waitSeconds = wait?.podSelector === undefined || wait.podSelector === '' ? 0 : wait.timeoutSeconds || UNBOUNDED_STEP_SECONDS;
  return (drain === 0 ? UNBOUNDED_STEP_SECONDS : drain) + waitSeconds;
}

/** At risk from `deadline − (expected drain time + margin)` on, including once it has passed (it is still the most urgent). */
export function deadlineAtRisk(nm: NodeMaintenance, now: Date): boolean {
  const deadline = rankingDeadline(nm);
  if (deadline.kind !== 'valid') return false;
  return now.getTime() >= deadline.at.getTime() - (expectedDrainSeconds(nm) + DEADLINE_RISK_MARGIN_SECONDS) * 1000;
}
