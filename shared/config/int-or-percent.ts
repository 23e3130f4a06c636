// Resolves a Kubernetes int-or-string limit ("3" as 3, or "25%" of a total) to a whole number, rounding as asked.
import type { IntOrString } from '#api';

export type IntOrPercentResult = { ok: true; value: number } | { ok: false; error: string };

const PERCENT = /^(\d+)%$/;

/**
 * A non-negative integer is returned as is; `"N%"` (N a whole number >= 0, above 100 allowed) is N percent of
 * `total`, rounded `up` (ceil) or `down` (floor). Anything else — a negative or fractional number, a string
 * without `%`, a negative or non-numeric percentage — is an error naming the value.
 */
export function resolveIntOrPercent(value: IntOrString, total: number, rounding: 'up' | 'down'): IntOrPercentResult {
  if (!Number.isSafeInteger(total) || total < 0) return { ok: false, error: `total ${total} is not a count (a whole number >= 0)` };
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return { ok: false, error: `${value} is not a whole number` };
    if (value < 0) return { ok: false, error: `${value} is negative; use 0 or more` };
    return { ok: true, value };
  }
  const match = PERCENT.exec(value);
  if (match === null) {
    if (/^-\d+%$/.test(value)) return { ok: false, error: `${JSON.stringify(value)} is a negative percentage; use 0% or more` };
    if (/^\d+$/.test(value)) return { ok: false, error: `${JSON.stringify(value)} is a string without a % sign; write ${value} or "${value}%"` };
    return { ok: false, error: `${JSON.stringify(value)} is not an integer or a percentage` };
  }
  const percent = Number(match[1]);
  const scaled = percent * total;
  if (!Number.isSafeInteger(scaled)) return { ok: false, error: `${JSON.stringify(value)} is too large` };
  // Integer arithmetic: floor and ceil of scaled / 100 without floating-point surprises.
  const whole = (scaled - (scaled % 100)) / 100;
  return { ok: true, value: rounding === 'up' && scaled % 100 !== 0 ? whole + 1 : whole };
}
