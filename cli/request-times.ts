// A request's own times (kmaint.io/deadline, kmaint.io/not-before) as `kmaint status` and `kmaint explain` show them:
// the instant in UTC seconds and where `now` stands against it. Pure; the clock is passed in.
import { Phase, maintenancePhase, readyCondition, requestDeadline, requestNotBefore, rfc3339Seconds } from '../shared/api/index.ts';
import type { NodeMaintenance, RequestTime } from '../shared/api/index.ts';
import { ageText } from './age-text.ts';

export interface RequestTimes {
  /** kmaint.io/deadline in UTC seconds, or `invalid: <why>`; absent when not set. */
  deadline?: string;
  /** 'met' (Ready by it), 'missed' (not Ready by it, or Ready after it), 'open' (still to come); absent without a valid deadline. */
  deadlineState?: 'met' | 'missed' | 'open';
  /** kmaint.io/not-before in UTC seconds, or `invalid: <why>`; absent when not set. */
  notBefore?: string;
}

function shown(time: RequestTime): string | undefined {
  return time.kind === 'absent' ? undefined : time.kind === 'valid' ? rfc3339Seconds(time.at) : `invalid: ${time.reason}`;
}

/** Met when the request became Ready at or before its deadline; missed when it did later or is still not Ready after it. */
function deadlineState(nm: NodeMaintenance, at: Date, now: Date): 'met' | 'missed' | 'open' {
  const ready = readyCondition(nm);
  if (maintenancePhase(nm) === Phase.Ready && ready !== undefined) {
    const since = Date.parse(ready.lastTransitionTime ?? '');
    return Number.isNaN(since) || since <= at.getTime() ? 'met' : 'missed';
  }
  return now.getTime() > at.getTime() ? 'missed' : 'open';
}

export function requestTimes(nm: NodeMaintenance, now: Date): RequestTimes {
  const deadline = requestDeadline(nm);
  const notBefore = shown(requestNotBefore(nm));
  const deadlineText = shown(deadline);
  return {
    ...(deadlineText !== undefined ? { deadline: deadlineText } : {}),
    ...(deadline.kind === 'valid' ? { deadlineState: deadlineState(nm, deadline.at, now) } : {}),
    ...(notBefore !== undefined ? { notBefore } : {}),
  };
}

/** ', in 5h' or ', 3h ago'; nothing without a clock (the status table, whose rows are compared between redraws). */
function relative(at: string, now: Date | undefined): string {
  if (now === undefined) return '';
  const ms = Date.parse(at) - now.getTime();
  return ms > 0 ? `, in ${ageText(ms / 1000)}` : `, ${ageText(-ms / 1000)} ago`;
}

/** `deadline 2026-01-02T00:00:00Z (missed, 3h ago); not before 2026-01-01T06:00:00Z (in 6h)`, or '' with neither set. */
export function requestTimesText(times: RequestTimes, now?: Date): string {
  const parts: string[] = [];
  if (times.deadline !== undefined) {
    parts.push(times.deadlineState === undefined ? `deadline ${times.deadline}` : `deadline ${times.deadline} (${times.deadlineState}${relative(times.deadline, now)})`);
  }
  if (times.notBefore !== undefined) {
    const future = now !== undefined && Date.parse(times.notBefore) > now.getTime();
    const when = times.notBefore.startsWith('invalid') || now === undefined ? '' : future ? ` (${relative(times.notBefore, now).slice(2)})` : ` (passed${relative(times.notBefore, now)})`;
    parts.push(`not before ${times.notBefore}${when}`);
  }
  return parts.join('; ');
}
