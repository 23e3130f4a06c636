// Human rendering of pass summaries, plans and Lambda run summaries for a terminal (JSON lines are written as-is).
import type { PassSummary } from '../shared/pass/index.ts';
import type { BudgetRunSummary } from '../shared/runtime/index.ts';
import { compactFigures } from '../shared/metrics/index.ts';

function counts(rec: Record<string, number>): string {
  const parts = Object.entries(rec).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join(' ') : 'none';
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function renderSummary(s: PassSummary): string {
  if (s.outcome === 'lease-held') return `${s.fn}: another pass holds the lease (${s.leaseHolder ?? 'unknown'}); nothing done\n`;
  const lines = [`${s.fn} pass ${s.passId} ${s.outcome} in ${s.durationMs} ms: ${s.planned} planned, actions ${counts(s.actions)}, requests ${counts(s.requests)}`];
  if (s.metrics) lines.push(`  ${compactFigures(s.metrics)}`);
  if (s.outcome === 'dry-run') for (const p of s.plan) lines.push(`  would ${p}`);
  for (const w of s.waits ?? []) lines.push(`  ${w.request} (${w.node}) ${w.reason}`);
  if (s.conflicts > 0) lines.push(`  ${s.conflicts} conflicts (decided again next pass)`);
  if (s.blocked > 0) lines.push(`  ${s.blocked} evictions blocked by disruption budgets`);
  for (const p of s.configProblems) lines.push(`  config: ${p}`);
  for (const e of s.errors) lines.push(`  error: ${e}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `kmaint plan`: per function its decisions (each with its reason) and, for the scheduler, every request that waits
 * with the message it carries ("waiting: …"), whether or not that message changes. Config problems once at the end.
 */
export function renderPlan(summaries: readonly PassSummary[]): string {
  const lines: string[] = [];
  for (const s of summaries) {
    const waits = s.waits ?? [];
    const parts = [...(s.plan.length > 0 ? [plural(s.plan.length, 'decision')] : []), ...(waits.length > 0 ? [`${plural(waits.length, 'request')} waiting`] : [])];
    lines.push(`${s.fn}: ${parts.length > 0 ? parts.join(', ') : 'nothing to do'}`);
    for (const p of s.plan) lines.push(`  would ${p}`);
    for (const w of waits) lines.push(`  ${w.request} (${w.node}) ${w.reason}`);
  }
  for (const p of [...new Set(summaries.flatMap((s) => s.configProblems))]) lines.push(`config: ${p}`);
  return `${lines.join('\n')}\n`;
}

/** `kmaint invoke`: the function's run summary, then each of its passes. */
export function renderRunSummary(functionName: string, r: BudgetRunSummary): string {
  const totals = `admitted ${r.admitted}, became ready ${r.becameReady}, released ${r.released}, collected ${r.collected}, conflicts ${r.conflicts}, errors ${r.errors}`;
  const c = r.chain;
  const chain = c.kind === 'invoke' ? `started ${c.target} (depth ${c.depth}): ${c.reason}` : c.kind === 'failed' ? `starting ${c.target} failed: ${c.error}` : `none: ${c.reason}`;
  const lines = [`${functionName} (${r.fn}): ${r.stopped} after ${plural(r.passes.length, 'pass')} in ${r.durationMs} ms; ${totals}`, `  chain: ${chain}`];
  for (const p of r.passes) lines.push(...renderSummary(p).trimEnd().split('\n').map((l) => `  ${l}`));
  return `${lines.join('\n')}\n`;
}
