// The what-if report for a terminal: makespans first, then where the time went.
import type { WhatIfReport } from '../../sim/whatif/index.ts';

/** "0s", "5.5s", "4m 07s", "2h 03m 00s". */
export function formatDuration(ms: number): string {
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${Number.isInteger(totalSeconds) ? totalSeconds : totalSeconds.toFixed(1)}s`;
  const s = Math.round(totalSeconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m ${sec}s` : `${m}m ${sec}s`;
}

const plural = (n: number, noun: string, nouns = `${noun}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? noun : nouns}`;
/** Admissions listed in text output; --output json lists them all. */
const ADMISSIONS_SHOWN = 20;

/**
 * The node, and a device request's devices by their device names (issue 45), with the pods that held them when known:
 * `gpu-01 (devices: gpu-1, gpu-3; held by: ml/train-0, ml/train-1)`, as `kmaint status` writes a device request.
 */
export function requestNodeText(r: { node: string; devices?: readonly string[]; holders?: ReadonlyArray<{ pod: string }> }): string {
  if (r.devices === undefined) return r.node;
  const held = r.holders === undefined ? '' : `; held by: ${r.holders.map((h) => h.pod).join(', ') || 'no pod'}`;
  return `${r.node} (devices: ${r.devices.map((d) => d.slice(d.lastIndexOf('/') + 1)).join(', ') || 'unreadable'}${held})`;
}

/** "5 nodes", "1 device request (2 devices)", "5 nodes and 1 device request (1 device)". */
function maintainedText(r: WhatIfReport): string {
  const d = r.deviceRequests;
  const parts = [...(r.nodes > 0 || d.requests === 0 ? [plural(r.nodes, 'node')] : []), ...(d.requests > 0 ? [`${plural(d.requests, 'device request')} (${plural(d.devices, 'device')})`] : [])];
  return parts.join(' and ');
}

/**
 * One admitted device request (issue 45): the pods holding its devices when admitted, the pods that left its node
 * while it was in progress, and whether the node stayed schedulable. "device request default/whatif-gpu-01-devices
 * (gpu-01: gpu-0): held by ml/holder-a; evicted ml/holder-a; gpu-01 stayed schedulable".
 */
export function deviceRequestLine(a: WhatIfReport['admissionOrder'][number]): string {
  const short = (a.devices ?? []).map((d) => d.slice(d.lastIndexOf('/') + 1)).join(', ') || 'unreadable';
  const held = (a.holders ?? []).map((h) => h.pod).join(', ') || 'no pod';
  const evicted = (a.evicted ?? []).join(', ') || 'no pod';
  return `device request ${a.request} (${a.node}: ${short}): held by ${held}; evicted ${evicted}; ${a.node} ${a.nodeCordoned === true ? 'was cordoned meanwhile' : 'stayed schedulable'}`;
}

const OUTCOME_TEXT = { running: 'still validating', Passed: 'passed', Failed: 'failed', TimedOut: 'timed out' } as const;

/** "validation before uncordon: 2 nodes, longest wait 30s: n1 30s passed, n2 1m 00s timed out (stayed cordoned)". */
export function validationLine(validations: WhatIfReport['validations']): string {
  const nodes = new Set(validations.map((v) => v.node)).size;
  const longest = Math.max(0, ...validations.map((v) => v.waitMs));
  const each = validations.slice(0, ADMISSIONS_SHOWN).map((v) => `${v.node} ${formatDuration(v.waitMs)} ${OUTCOME_TEXT[v.outcome]}${v.stayedCordoned ? ' (stayed cordoned)' : ''}`);
  const more = validations.length > ADMISSIONS_SHOWN ? `, … ${validations.length - ADMISSIONS_SHOWN} more (--output json lists all)` : '';
  return `validation before uncordon: ${plural(nodes, 'node')}, longest wait ${formatDuration(longest)}: ${each.join(', ')}${more}`;
}

export function renderReport(r: WhatIfReport): string {
  const lines: string[] = [];
  const limit = (v: number | 'unlimited' | null): string => (v === null ? 'invalid' : String(v));
  lines.push(`kmaint simulate: a rolling maintenance of ${maintainedText(r)} of ${plural(r.cluster.nodes, 'node')} (${plural(r.cluster.pods, 'pod')}, ${plural(r.cluster.budgets, 'PodDisruptionBudget')}; ${r.source})`);
  lines.push(`  limits: maxParallelOperations ${limit(r.limits.maxParallelOperations)}, maxUnavailable ${limit(r.limits.maxUnavailable)}; hold ${formatDuration(r.settings.holdMs)}, replacement pods Ready ${formatDuration(r.settings.podStartMs)} after binding`);
  for (const p of r.limits.problems) lines.push(`  config problem: ${p}`);
  if (r.outcome === 'done') lines.push(`predicted makespan: ${formatDuration(r.makespanMs ?? 0)} simulated`);
  else lines.push(`predicted makespan: none — ${r.outcome === 'stuck' ? 'the maintenance cannot finish' : 'not finished'} after ${formatDuration(r.simulatedMs)} simulated (${plural(r.unfinished.length, 'request')} left)`);
  lines.push(`ideal makespan:     ${r.idealMakespanMs === undefined ? 'none (the limits admit nothing)' : formatDuration(r.idealMakespanMs)} (each node's longest grace period${r.settings.holdMs > 0 ? ' plus the hold' : ''}, under the limits, no budget waits)`);
  const shown = r.admissionOrder.slice(0, ADMISSIONS_SHOWN).map((a) => `${requestNodeText(a)} +${formatDuration(a.admittedMs)}`);
  const more = r.admissionOrder.length > ADMISSIONS_SHOWN ? `, … ${r.admissionOrder.length - ADMISSIONS_SHOWN} more (--output json lists all)` : '';
  lines.push(`admission order: ${shown.join(', ')}${more}`);
  const deviceRequests = r.admissionOrder.filter((a) => a.devices !== undefined);
  for (const a of deviceRequests.slice(0, ADMISSIONS_SHOWN)) lines.push(`  ${deviceRequestLine(a)}`);
  if (deviceRequests.length > ADMISSIONS_SHOWN) lines.push(`  … ${deviceRequests.length - ADMISSIONS_SHOWN} more device requests (--output json lists all)`);
  if (r.budgetWaits.length === 0) lines.push('budget waits: none (no eviction waited for a PodDisruptionBudget)');
  else {
    lines.push(`budget waits (top ${r.budgetWaits.length} by total wait):`);
    const width = r.budgetWaits.reduce((max, w) => Math.max(max, w.budget.length), -Infinity);
    for (const w of r.budgetWaits) lines.push(`  ${w.budget.padEnd(width)}  ${plural(w.pods, 'pod')} waited, ${formatDuration(w.totalWaitMs)} in all, longest ${formatDuration(w.longestWaitMs)}`);
  }
  lines.push(
    r.limitWaits.requests === 0
      ? 'limit waits: none (every request was admitted at once)'
      : `limit waits: ${plural(r.limitWaits.requests, 'request')} waited for a slot, longest ${formatDuration(r.limitWaits.longestMs)}, mean ${formatDuration(r.limitWaits.meanMs)}`,
  );
  lines.push(`peak unavailable nodes by pool: ${r.peakUnavailableByPool.map((p) => `${p.pool} ${p.peak}`).join(', ')} (cluster ${r.peakUnavailable}; ${r.peakInProgress} in maintenance at most)`);
  lines.push(`cluster: ${plural(r.evictions, 'eviction')}, ${plural(r.activity.replacementsCreated, 'replacement pod')}${r.activity.unschedulable > 0 ? `, ${plural(r.activity.unschedulable, 'pod')} left without a node` : ''}`);
  if (r.validations.length > 0) lines.push(validationLine(r.validations));
  for (const u of r.unfinished.slice(0, 5)) lines.push(`  not finished: ${u.request} (${requestNodeText(u)}) ${u.phase}: ${u.message}`);
  if (r.unfinished.length > 5) lines.push(`  … and ${r.unfinished.length - 5} more`);
  lines.push(`kmaint: ${plural(r.passes.run, 'pass', 'passes')} in ${plural(r.passes.rounds, 'round')}; ${formatDuration(r.simulatedMs)} simulated in ${formatDuration(r.wallMs)} wall (${formatDuration(r.loadMs)} of it loading the cluster)`);
  for (const e of r.passes.errors.slice(0, 3)) lines.push(`  pass error: ${e}`);
  return `${lines.join('\n')}\n`;
}
