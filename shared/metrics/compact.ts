// The figures of one pass as one short line for the pass summary (`kmaint pass`, `kmaint run` on a terminal).
import type { PassMetrics } from './pass-metrics.ts';
import { PHASES } from './pass-metrics.ts';
import { WAIT_GATES } from './wait-gates.ts';

function pairs(rec: Readonly<Record<string, number | undefined>>, order: readonly string[]): string {
  const keys = [...order.filter((k) => rec[k] !== undefined), ...Object.keys(rec).filter((k) => !order.includes(k)).sort()];
  return keys.length > 0 ? keys.map((k) => `${k}=${rec[k] ?? 0}`).join(' ') : 'none';
}

/** e.g. "requests Pending=1 Scheduled=2; waiting parallel=1 (longest 40 s); evictions 2 (1 refused); drains 1 (longest 12 s); API errors none" */
export function compactFigures(m: PassMetrics): string {
  const waitSeconds = Object.values(m.waitingOldestSeconds).reduce((max, s) => Math.max(max, s), 0);
  const waiting = pairs(m.waiting, WAIT_GATES);
  const drains = m.drainSeconds.length > 0 ? `${m.drainSeconds.length} (longest ${m.drainSeconds.reduce((max, s) => Math.max(max, s), -Infinity)} s)` : '0';
  return [
    `requests ${pairs(m.requests, PHASES)}`,
    `waiting ${waiting}${waiting === 'none' ? '' : ` (longest ${waitSeconds} s)`}`,
    `evictions ${m.evictions}${m.evictionsRefused > 0 ? ` (${m.evictionsRefused} refused)` : ''}`,
    `drains ${drains}`,
    `API errors ${pairs(m.apiErrors, [])}`,
  ].join('; ');
}
