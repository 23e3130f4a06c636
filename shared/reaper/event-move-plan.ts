// Where an EC2 scheduled event moves (issue 44 point 4): into the next maintenance window of its Node before the event's
// deadline, within what ModifyInstanceEventStartTime accepts. Pure: the clock and the windows are arguments.
import { rfc3339Seconds } from '#api';
import { windowStatus, type WindowSet } from '#config';
import type { ScheduledEvent } from './scheduled-events.ts';

/** EC2: the new start must be at least 60 minutes from now. */
export const MOVE_MIN_AHEAD_MS = 60 * 60_000;
/** EC2: an event starting within the next 5 minutes cannot be moved. */
export const MOVE_FROZEN_MS = 5 * 60_000;
/**
 * The call goes out after the plan (and the record before it): both EC2 bounds are kept with this much to spare, so a
 * slow pass never asks for a move EC2 refuses.
 */
export const MOVE_SPARE_MS = 5 * 60_000;
/** Window openings tried before giving up (a window a minute apart for a week is about 10,000). */
const MAX_STEPS = 20_000;

export type EventMove = { kind: 'move'; to: Date } | { kind: 'keep'; why: string };

type OpenAt = { kind: 'open' } | { kind: 'closed'; next: Date } | { kind: 'never'; why: string };

/** Whether every set is open at `t` (a set without windows always is); when not, the next instant worth trying. */
function openAt(sets: readonly WindowSet[], t: Date): OpenAt {
  let next: Date | undefined;
  for (const set of sets) {
    const status = windowStatus(set, t);
    if (status.kind === 'invalid') return { kind: 'never', why: `a window cannot be used: ${status.problem}` };
    if (status.kind === 'never') return { kind: 'never', why: 'a window never opens again' };
    if (status.kind === 'closed' && (next === undefined || status.nextOpen.getTime() > next.getTime())) next = status.nextOpen;
  }
  return next === undefined ? { kind: 'open' } : { kind: 'closed', next };
}

/** Whether the sets are open at `t` and were `leadMs` before it: the request can drain inside the window before `t`. */
function fits(sets: readonly WindowSet[], t: Date, leadMs: number): OpenAt {
  const at = openAt(sets, t);
  if (at.kind !== 'open') return at;
  const before = openAt(sets, new Date(t.getTime() - leadMs));
  return before.kind === 'closed' ? { kind: 'closed', next: new Date(before.next.getTime() + leadMs) } : before;
}

/** The earliest instant at or after `from` and not after `until` that fits, or why there is none. */
function firstFit(sets: readonly WindowSet[], from: Date, until: Date, leadMs: number): { kind: 'at'; at: Date } | { kind: 'none'; why?: string } {
  let t = from;
  for (let step = 0; step < MAX_STEPS && t.getTime() <= until.getTime(); step++) {
    const fit = fits(sets, t, leadMs);
    if (fit.kind === 'open') return { kind: 'at', at: t };
    if (fit.kind === 'never') return { kind: 'none', why: fit.why };
    t = fit.next.getTime() > t.getTime() ? fit.next : new Date(t.getTime() + 60_000);
  }
  return { kind: 'none' };
}

/** The next whole minute at or after `t`. */
function ceilMinute(t: number): Date {
  return new Date(Math.ceil(t / 60_000) * 60_000);
}

/**
 * Where `event` should start: `move` to the first instant inside the Node's windows (every set in `sets` open, and open
 * `leadSeconds` before it) that EC2 accepts (at least an hour out, with MOVE_SPARE_MS to spare, and not after the
 * event's NotBeforeDeadline); `keep` with why when EC2 would refuse any move, the start is already in a window, no
 * window is configured, or none fits before the deadline.
 */
export function planEventMove(event: ScheduledEvent, sets: readonly WindowSet[], leadSeconds: number, now: Date): EventMove {
  const { notBefore, notBeforeDeadline: deadline } = event;
  if (event.id === '') return { kind: 'keep', why: 'EC2 gave the event no id' };
  if (deadline === undefined) return { kind: 'keep', why: 'EC2 does not let this event move (it has no NotBeforeDeadline)' };
  if (notBefore === undefined) return { kind: 'keep', why: 'the event has no NotBefore' };
  if (notBefore.getTime() <= now.getTime() + MOVE_FROZEN_MS + MOVE_SPARE_MS) {
    return { kind: 'keep', why: `it starts at ${rfc3339Seconds(notBefore)}, within ${(MOVE_FROZEN_MS + MOVE_SPARE_MS) / 60_000} minutes: EC2 no longer moves it` };
  }
  const restricting = sets.filter((s) => s.kind === 'invalid' || s.windows.length > 0);
  if (restricting.length === 0) return { kind: 'keep', why: 'no maintenance window applies to the node' };
  const leadMs = leadSeconds * 1000;
  if (fits(restricting, notBefore, leadMs).kind === 'open') return { kind: 'keep', why: `its start ${rfc3339Seconds(notBefore)} is already in a maintenance window` };
  const earliest = ceilMinute(now.getTime() + MOVE_MIN_AHEAD_MS + MOVE_SPARE_MS);
  const found = firstFit(restricting, earliest, deadline, leadMs);
  if (found.kind === 'at') return { kind: 'move', to: found.at };
  const span = `between ${rfc3339Seconds(earliest)} and its deadline ${rfc3339Seconds(deadline)}`;
  return { kind: 'keep', why: found.why ?? `no maintenance window (open ${leadSeconds} s before the start) fits ${span}` };
}
