// Human rendering of pass summaries for a terminal (JSON lines are written as-is).
import type { PassSummary } from '../shared/pass/index.ts';

function counts(rec: Record<string, number>): string {
  const parts = Object.entries(rec).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join(' ') : 'none';
}

export function renderSummary(s: PassSummary): string {
  if (s.outcome === 'lease-held') return `${s.fn}: another pass holds the lease (${s.leaseHolder ?? 'unknown'}); nothing done\n`;
  const lines = [`${s.fn} pass ${s.passId} ${s.outcome} in ${s.durationMs} ms: ${s.planned} planned, actions ${counts(s.actions)}, requests ${counts(s.requests)}`];
  if (s.outcome === 'dry-run') for (const p of s.plan) lines.push(`  would ${p}`);
  if (s.conflicts > 0) lines.push(`  ${s.conflicts} conflicts (decided again next pass)`);
  if (s.blocked > 0) lines.push(`  ${s.blocked} evictions blocked by disruption budgets`);
  for (const p of s.configProblems) lines.push(`  config: ${p}`);
  for (const e of s.errors) lines.push(`  error: ${e}`);
  return `${lines.join('\n')}\n`;
}
