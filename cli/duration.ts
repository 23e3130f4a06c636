// Parses CLI durations such as "90s", "5m", "1h" or plain milliseconds.
import { UsageError } from './errors.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration "${text}": use e.g. 30s, 5m, 1h`);
  return Math.round(Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000));
}
