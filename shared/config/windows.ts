// Compiles maintenance windows (cron start, duration, time zone) once per pass with croner; a window that
// cannot be used makes its whole scope admit nothing, never everything.
import { errorMessage } from '../errors/index.ts';
import { Cron } from 'croner';
import type { MaintenanceWindowSpec } from '#api';

/** The time zone of a window that names none: never the process's local zone, so planning stays pure. */
export const DEFAULT_WINDOW_TIME_ZONE = 'UTC';

export interface MaintenanceWindow {
  /** The schedule as written in the config. */
  readonly schedule: string;
  /** What croner was given: Quartz `N/S` steps and `?` rewritten (see normaliseCron). */
  readonly pattern: string;
  readonly timeZone: string;
  /** How long the window stays open after each start, in milliseconds of elapsed time (so a DST change does not stretch it). */
  readonly durationMs: number;
  /** The first start strictly after `t`, or null when the schedule never fires again (croner searches up to the year 3000). */
  nextStartAfter(t: Date): Date | null;
}

/** The windows of one scope (the cluster, or one pool). */
export type WindowSet = { kind: 'valid'; windows: readonly MaintenanceWindow[] } | { kind: 'invalid'; problem: string };

type Field = { name: string; min: number; max: number };

/** Seconds first when there are 6 fields, as Quartz and croner read them. */
const FIELDS_5: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 6 },
];
const FIELDS_6: readonly Field[] = [{ name: 'second', min: 0, max: 59 }, ...FIELDS_5];

export type NormalisedCron = { ok: true; pattern: string } | { ok: false; error: string };

/**
 * Rewrites the Quartz spellings croner does not take, or takes differently: a step from a start without a
 * range (`0/15`) becomes `*\/15` when it starts at the field's minimum and `5-59/15` otherwise; `?` (no
 * specific value, day-of-month and day-of-week only) becomes `*` (croner would put the current time there).
 * Nicknames (`@daily`) pass through.
 */
export function normaliseCron(expression: string): NormalisedCron {
  const trimmed = expression.trim();
  if (trimmed.startsWith('@')) return { ok: true, pattern: trimmed };
  const parts = trimmed.split(/\s+/);
  const fields = parts.length === 6 ? FIELDS_6 : parts.length === 5 ? FIELDS_5 : undefined;
  if (fields === undefined) {
    return { ok: false, error: `has ${parts.length} fields; use 5 (minute hour day-of-month month day-of-week) or 6 with seconds first` };
  }
  const out: string[] = [];
  for (const [i, part] of parts.entries()) {
    const field = fields[i] as Field;
    if (part.includes('?')) {
      if (part !== '?' || (field.name !== 'day-of-month' && field.name !== 'day-of-week')) {
        return { ok: false, error: `uses "?" in ${field.name} ("${part}"); "?" is allowed only as the whole day-of-month or day-of-week field` };
      }
      out.push('*');
      continue;
    }
    out.push(
      part
        .split(',')
        .map((item) => {
          const step = /^(\d+)\/(\d+)$/.exec(item);
          if (step === null) return item;
          const start = Number(step[1]);
          return start === field.min ? `*/${step[2]}` : `${start}-${field.max}/${step[2]}`;
        })
        .join(','),
    );
  }
  return { ok: true, pattern: out.join(' ') };
}

/** Whether the runtime's time zone database (the one croner uses) knows `timeZone`; Intl throws a RangeError otherwise. */
function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    throw err;
  }
}

/** `1h30m` -> 5_400_000; the schema has already checked the shape. */
export function windowDurationMs(duration: string): number {
  const hours = /(\d+)h/.exec(duration)?.[1];
  const minutes = /(\d+)m/.exec(duration)?.[1];
  return (Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60_000;
}

function compileOne(spec: MaintenanceWindowSpec, path: string): { ok: true; window: MaintenanceWindow } | { ok: false; problem: string } {
  const timeZone = spec.timeZone ?? DEFAULT_WINDOW_TIME_ZONE;
  if (!isKnownTimeZone(timeZone)) return { ok: false, problem: `${path}.timeZone: ${JSON.stringify(timeZone)} is not a known IANA time zone` };
  const durationMs = windowDurationMs(spec.duration);
  if (!Number.isSafeInteger(durationMs) || durationMs <= 0) {
    return { ok: false, problem: `${path}.duration: ${JSON.stringify(spec.duration)} must be longer than zero` };
  }
  const normalised = normaliseCron(spec.schedule);
  if (!normalised.ok) return { ok: false, problem: `${path}.schedule: ${JSON.stringify(spec.schedule)} ${normalised.error}` };
  let cron: Cron;
  try {
    // No callback: croner only computes dates and starts no timer.
    cron = new Cron(normalised.pattern, { timezone: timeZone });
  } catch (err) {
    const why = errorMessage(err);
    return { ok: false, problem: `${path}.schedule: ${JSON.stringify(spec.schedule)} is not a valid cron expression (${why})` };
  }
  return {
    ok: true,
    window: { schedule: spec.schedule, pattern: normalised.pattern, timeZone, durationMs, nextStartAfter: (t) => cron.nextRun(t) },
  };
}

/** Every window of one scope; any window that cannot be used makes the whole set invalid (fail closed), all problems listed. */
export function compileWindows(specs: readonly MaintenanceWindowSpec[], path: string): WindowSet {
  const windows: MaintenanceWindow[] = [];
  const problems: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const compiled = compileOne(spec, `${path}[${i}]`);
    if (compiled.ok) windows.push(compiled.window);
    else problems.push(compiled.problem);
  }
  return problems.length > 0 ? { kind: 'invalid', problem: problems.join('; ') } : { kind: 'valid', windows };
}
