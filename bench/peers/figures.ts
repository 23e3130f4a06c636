// One system's figures for one scenario, from the audit log (requests by its user) and the observed times.
import type { AuditEntry } from '../../testbed/audit.ts';
import { percentile } from '../figures.ts';
import type { RequestTimes } from './observe.ts';
import type { Scenario } from './scenario.ts';
import { isKmaint, type SystemName } from './systems.ts';

export interface Figures {
  scenario: string;
  system: SystemName;
  requests: number;
  /** First request created to the last one gone (kubectl: script start to end), ms. */
  makespanMs: number;
  /** Makespan beyond what the workload forces (Scenario.nominal*), ms. */
  overheadMs: number;
  scheduledP50: number;
  scheduledP95: number;
  readyP50: number;
  readyP95: number;
  apiRequests: number;
  byVerb: Record<string, number>;
  /** Writes to NodeMaintenances, nodes and pods (not evictions, events or kmaint's pass leases), per request. */
  writesPerRequest: number;
  eventsPerRequest: number;
  leaseWrites: number;
  /** Every write (evictions excluded) by resource. */
  writesByResource: Record<string, number>;
  /** The writes one by one ("verb resource name code"), for finding where they come from. */
  writeLog: string[];
  evictionRequests: number;
  evictedPods: number;
  /** Pods evicted that the request did not ask for, and asked-for pods left behind. */
  wrongEvictions: string[];
  peakUnavailable: number;
  limit: number;
  cpuSeconds: number;
  /** 1-minute load average of the machine when the run ended. */
  load: number;
  notes: string[];
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export function computeFigures(opts: {
  scenario: Scenario;
  system: SystemName;
  entries: readonly AuditEntry[];
  times: ReadonlyMap<string, RequestTimes>;
  startMs: number;
  endMs: number;
  drainable: ReadonlySet<string>;
  peakUnavailable: number;
  cpuSeconds: number;
  load: number;
  notes: string[];
}): Figures {
  const { entries, scenario } = opts;
  const byVerb: Record<string, number> = {};
  const writesByResource: Record<string, number> = {};
  let evictionRequests = 0;
  const evicted = new Set<string>();
  const writeLog: string[] = [];
  for (const e of entries) {
    byVerb[e.verb] = (byVerb[e.verb] ?? 0) + 1;
    if (e.resource === 'pods/eviction') {
      evictionRequests++;
      if (e.code >= 200 && e.code < 300) evicted.add(`${e.namespace ?? ''}/${e.name ?? ''}`);
      continue;
    }
    if (!WRITE_VERBS.has(e.verb)) continue;
    writesByResource[e.resource || e.uri] = (writesByResource[e.resource || e.uri] ?? 0) + 1;
    if (e.resource !== 'leases') writeLog.push(`${e.at} ${e.verb} ${e.resource} ${e.namespace ?? ''}/${e.name ?? ''} ${e.code}`);
  }
  const sum = (pick: (resource: string) => boolean) => Object.entries(writesByResource).filter(([r]) => pick(r)).reduce((a, [, n]) => a + n, 0);
  const writes = sum((r) => r !== 'events' && r !== 'leases');
  const since = (r: RequestTimes, phase: string) => (r.phases.get(phase) ?? Number.NaN) - r.createdMs;
  const rs = [...opts.times.values()];
  const sched = rs.map((r) => since(r, 'Scheduled'));
  const ready = rs.map((r) => since(r, 'Ready'));
  const wrong = [...[...evicted].filter((p) => !opts.drainable.has(p)).map((p) => `evicted ${p}`), ...[...opts.drainable].filter((p) => !evicted.has(p)).map((p) => `not evicted ${p}`)];
  const makespanMs = opts.endMs - opts.startMs;
  const nominal = opts.system === 'kubectl-drain' ? scenario.nominalSequentialSeconds : scenario.nominalMakespanSeconds;
  return {
    scenario: scenario.name,
    system: opts.system,
    requests: rs.length,
    makespanMs,
    overheadMs: makespanMs - nominal * 1000,
    scheduledP50: percentile(sched, 50),
    scheduledP95: percentile(sched, 95),
    readyP50: percentile(ready, 50),
    readyP95: percentile(ready, 95),
    apiRequests: entries.length,
    byVerb,
    writesPerRequest: writes / Math.max(1, rs.length),
    eventsPerRequest: sum((r) => r === 'events') / Math.max(1, rs.length),
    leaseWrites: sum((r) => r === 'leases'),
    writesByResource,
    writeLog,
    evictionRequests,
    evictedPods: evicted.size,
    wrongEvictions: wrong,
    peakUnavailable: opts.peakUnavailable,
    limit: opts.system === 'kubectl-drain' ? 1 : scenario.maxParallelOperations,
    cpuSeconds: opts.cpuSeconds,
    load: opts.load,
    notes: opts.notes,
  };
}

const s = (ms: number): string => (Number.isNaN(ms) ? '—' : `${(ms / 1000).toFixed(1)}`);
const verbs = (rec: Record<string, number>): string =>
  Object.entries(rec)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/** The figures as a Markdown table (one row per scenario and system) plus the per-verb breakdown. */
export function renderTable(rows: readonly Figures[]): string[] {
  const out = [
    '| scenario | system | makespan s | overhead s | →Scheduled p50/p95 s | →Ready p50/p95 s | API requests | writes/request (+events) | lease writes | evictions (requests/pods) | peak unavailable (limit) | CPU s | load |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of rows) {
    out.push(
      `| ${f.scenario} | ${f.system} | ${s(f.makespanMs)} | ${s(f.overheadMs)} | ${s(f.scheduledP50)} / ${s(f.scheduledP95)} | ${s(f.readyP50)} / ${s(f.readyP95)} | ${f.apiRequests} | ${f.writesPerRequest.toFixed(1)} (+${f.eventsPerRequest.toFixed(1)}) | ${f.leaseWrites} | ${f.evictionRequests} / ${f.evictedPods} | ${f.peakUnavailable} (${f.limit}) | ${f.cpuSeconds.toFixed(1)} | ${f.load.toFixed(1)} |`,
    );
  }
  out.push('', 'API requests by verb, and all writes (evictions not included) by resource:', '');
  for (const f of rows) {
    out.push(`- ${f.scenario} / ${f.system}: ${verbs(f.byVerb)}; writes: ${verbs(f.writesByResource) || 'none'}${f.wrongEvictions.length ? `; WRONG EVICTIONS: ${f.wrongEvictions.join(', ')}` : ''}${f.notes.length ? `; ${f.notes.join('; ')}` : ''}`);
  }
  return out;
}

/** Each issue-11 goal per scenario: met, missed (with the numbers), or not measurable. */
export function renderGoals(rows: readonly Figures[]): string[] {
  const out: string[] = [];
  for (const scenario of [...new Set(rows.map((r) => r.scenario))]) {
    const n = rows.find((r) => r.scenario === scenario && r.system === 'nvidia-operator');
    for (const k of rows.filter((r) => r.scenario === scenario && isKmaint(r.system))) out.push(goalLine(k, n));
  }
  return out;
}

/** One kmaint row's goals: makespan overhead and API requests against the operator, writes and evictions per unit. */
function goalLine(k: Figures, n: Figures | undefined): string {
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const parts: string[] = [];
  if (n) {
    const ov = k.overheadMs / n.overheadMs;
    const api = k.apiRequests / n.apiRequests;
    parts.push(`makespan overhead ${s(k.overheadMs)} s vs ${s(n.overheadMs)} s = ${ov.toFixed(2)}× (≤ 0.5×: ${mark(ov <= 0.5)})`);
    parts.push(`API requests ${k.apiRequests} vs ${n.apiRequests} = ${api.toFixed(2)}× (≤ 0.5×: ${mark(api <= 0.5)})`);
  } else {
    parts.push('no operator run to compare with');
  }
  const perRequest = (extra: number) => k.writesPerRequest + extra;
  const withEvents = perRequest(k.eventsPerRequest);
  const withLeases = perRequest(k.eventsPerRequest + k.leaseWrites / Math.max(1, k.requests));
  parts.push(
    `writes per request ${k.writesPerRequest.toFixed(1)} to NodeMaintenance/Node (≤ 8: ${mark(k.writesPerRequest <= 8)}), ` +
      `${withEvents.toFixed(1)} with events (${mark(withEvents <= 8)}), ${withLeases.toFixed(1)} with pass leases (${mark(withLeases <= 8)})`,
  );
  if (k.evictedPods > 0) {
    const per = k.evictionRequests / k.evictedPods;
    parts.push(`eviction requests per evicted pod ${per.toFixed(2)} (≤ 1.1: ${mark(per <= 1.1)})`);
  }
  return `- ${k.scenario} / ${k.system}: ${parts.join('; ')}`;
}
