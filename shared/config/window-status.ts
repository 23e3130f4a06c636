// Whether a scope's maintenance windows are open at `now`, and if not, when the next one opens. Pure: the clock is an argument.
import { errorMessage } from '../errors/index.ts';
import type { WindowSet } from './windows.ts';

export type WindowStatus =
  /** The scope has no windows: it is never closed by time. */
  | { kind: 'unrestricted' }
  | { kind: 'open' }
  /** `nextOpen` is the earliest next start of any of the scope's windows. */
  | { kind: 'closed'; nextOpen: Date }
  /** No window of the scope starts again (e.g. 30 February). */
  | { kind: 'never' }
  /** A window could not be used: the scope admits nothing. */
  | { kind: 'invalid'; problem: string };

/**
 * Open when some window started in (now − duration, now]: the first start after now − duration is at or before
 * now. Starts and ends are instants (a window's duration is elapsed time, so a DST change neither stretches nor
 * shortens it); where a start falls in a DST gap or repeat is croner's choice, pinned by the table tests.
 */
export function windowStatus(set: WindowSet | undefined, now: Date): WindowStatus {
  if (set === undefined) return { kind: 'unrestricted' };
  if (set.kind === 'invalid') return { kind: 'invalid', problem: set.problem };
  if (set.windows.length === 0) return { kind: 'unrestricted' };
  let open = false;
  let nextOpen: Date | undefined;
  for (const window of set.windows) {
    let latestStart: Date | null;
    let next: Date | null;
    try {
      latestStart = window.nextStartAfter(new Date(now.getTime() - window.durationMs));
      next = window.nextStartAfter(now);
    } catch (err) {
      // croner evaluates the time zone lazily; a zone the loader accepted but croner cannot use still fails closed.
      const why = errorMessage(err);
      return { kind: 'invalid', problem: `schedule "${window.schedule}" in ${window.timeZone}: ${why}` };
    }
    if (latestStart !== null && latestStart.getTime() <= now.getTime()) open = true;
    if (next !== null && (nextOpen === undefined || next.getTime() < nextOpen.getTime())) nextOpen = next;
  }
  if (open) return { kind: 'open' };
  return nextOpen === undefined ? { kind: 'never' } : { kind: 'closed', nextOpen };
}
