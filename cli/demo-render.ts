// How `kmaint demo` shows itself: one line per event (sim time first), on a TTY a live table of the requests
// under them, and the closing summary whose last line states the invariants.
import type { DemoLimits, DemoOutput, DemoSummary, DemoView, RebootReport, RequestRow } from '../sim/demo/index.ts';

/** `hh:mm:ss` of simulated time since the requests were created. */
export function clockText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** `14m 05s`, `42s`, `1h 02m`. */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

const thousands = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** One line per event. */
export function eventLine(e: DemoOutput): string {
  const at = clockText(e.atMs);
  switch (e.kind) {
    case 'setup':
      return `${at} ${e.message}`;
    case 'phase':
      return `${at} ${e.key} (${e.node}): ${e.from || '(new)'} -> ${e.to}${e.message ? ` — ${e.message}` : ''}`;
    case 'waiting':
      return `${at} ${e.key} (${e.node}): ${e.message}`;
    case 'deleting':
      return `${at} ${e.key} (${e.node}): deleted by its requestor, cleanup pending`;
    case 'released':
      return `${at} ${e.key} (${e.node}): released, ${e.node} ${e.unschedulable ? 'stays cordoned' : 'schedulable again'}`;
    case 'requestor':
      return `${at} ${e.requestor}: ${e.message}`;
    case 'node':
      return `${at} ${e.node}: ${e.message}`;
  }
}

const unavailableLimit = (l: DemoLimits): string => (l.maxUnavailable === undefined ? 'no limit' : `limit ${l.maxUnavailable}`);

/** The reboot scenario's lines: each request's phases and its node's boot IDs, and the most nodes down at once. */
function rebootLines(r: RebootReport, limits: DemoLimits): string[] {
  return [
    ...r.rows.map((row) => `  ${row.key} (${row.node}): ${row.phases.join(' -> ')}; boot ID ${row.bootBefore} -> ${row.bootAfter}`),
    `  down at once: at most ${plural(r.mostDown, 'node')} NotReady (maxParallelOperations ${limits.maxParallelOperations})`,
  ];
}

function headline(s: DemoSummary): string {
  const wall = `(${(s.wallMs / 1000).toFixed(1)} s wall, speed ${s.speed}x) on ${s.nodes} nodes in ${s.zones} zones`;
  if (s.reboots) return `kmaint demo: ${plural(s.reboots.rows.filter((r) => r.bootAfter !== r.bootBefore).length, 'node')} rebooted in ${durationText(s.simMs)} simulated ${wall}`;
  return `kmaint demo: ${plural(Object.values(s.maintained).reduce((a, b) => a + b, 0), 'node')} maintained in ${durationText(s.simMs)} simulated ${wall}`;
}

function invariantsLine(s: DemoSummary): string {
  if (!s.invariants.held) return `invariants VIOLATED: ${s.invariants.violations.join('; ')}`;
  const max = s.limits.maxParallelOperations;
  const reboots = s.reboots ? `, never more than ${plural(max, 'node')} down, ${s.reboots.rows.length} new boot IDs` : '';
  return `invariants held: never more than ${max} in progress${reboots}, every node back to its initial schedulability`;
}

/**
 * The administrator's cordon, as the invariants found it on that node (a violation of its own, "node <name> is …"): a
 * violation only naming it, as "request default/os-upgrade-<name> did not finish" does, says nothing of its cordon.
 */
export function preCordonLine(node: string, violations: readonly string[]): string {
  const own = violations.find((v) => v.startsWith(`node ${node} is `));
  const state = own === undefined ? 'still cordoned' : own.startsWith(`node ${node} is gone`) ? 'gone' : 'NOT cordoned';
  return `  ${node} was cordoned before the demo and is ${state}`;
}

export function summaryLines(s: DemoSummary): string[] {
  const byRequestor = Object.entries(s.maintained)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([who, n]) => `${who} ${n} node${n === 1 ? '' : 's'}`)
    .join(', ');
  const verbs = Object.entries(s.apiByVerb)
    .sort(([, a], [, b]) => b - a)
    .map(([verb, n]) => `${verb} ${thousands(n)}`)
    .join(', ');
  const total = Object.values(s.apiByVerb).reduce((a, b) => a + b, 0);
  const users = Object.entries(s.apiByUser)
    .sort(([, a], [, b]) => b - a)
    .map(([user, n]) => `${user} ${thousands(n)}`)
    .join(', ');
  const budgets = Object.entries(s.budgetWaits.byBudget)
    .sort(([, a], [, b]) => b - a)
    .map(([pdb, n]) => `${pdb} ${n}`)
    .join(', ');
  const lines = [
    headline(s),
    `  requestors:   ${byRequestor || 'none'}`,
    ...(s.reboots ? rebootLines(s.reboots, s.limits) : []),
    `  evictions:    ${s.evictions} (${s.refusedEvictions} refused by the API server and retried)`,
    `  budget waits: ${plural(s.limitWaits.requests, 'request')} waited for maxParallelOperations ${s.limits.maxParallelOperations}${s.limits.maxUnavailable !== undefined ? ` / maxUnavailable ${s.limits.maxUnavailable}` : ''}${s.limitWaits.requests > 0 ? ` (longest ${durationText(s.limitWaits.longestMs)})` : ''}; ${plural(s.budgetWaits.pods, 'pod')} waited for PodDisruptionBudgets${budgets ? ` (${budgets})` : ''}`,
    `  API requests: ${thousands(total)} — ${verbs}`,
    `  by client:    ${users} (kmaint ran ${s.passes} passes)`,
    `  peaks:        ${s.peakInProgress} in progress (limit ${s.limits.maxParallelOperations}), ${s.peakUnavailable} nodes unavailable (${unavailableLimit(s.limits)})`,
  ];
  if (s.preCordoned) lines.push(preCordonLine(s.preCordoned, s.invariants.violations));
  lines.push(invariantsLine(s));
  return lines;
}

const ANSI = {
  reset: '\x1b[0m',
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  cyan: '\x1b[36m',
  magenta: '\x1b[35m',
};

function phaseColour(row: RequestRow): string {
  if (row.releasedMs !== undefined) return ANSI.dim;
  switch (row.phase) {
    case 'Pending':
    case '':
      return ANSI.yellow;
    case 'Ready':
      return ANSI.green;
    case 'Scheduled':
    case 'Cordon':
    case 'WaitForPodCompletion':
    case 'Draining':
      return ANSI.cyan;
    default:
      return ANSI.magenta;
  }
}

function bar(percent: number, width = 10): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)));
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function rowDetail(row: RequestRow, activity: string | undefined): string {
  if (row.releasedMs !== undefined) return `released at ${clockText(row.releasedMs)}${row.unschedulableAfter ? ', stays cordoned' : ''}`;
  if (row.deleting) return 'deleted, cleanup pending';
  if (row.phase === 'Draining' && row.drain) {
    const waits = row.message.replace(/^draining: [^;]*;?\s*/, '');
    return `${bar(row.drain.drainProgress)} ${row.drain.drainProgress}% ${row.drain.evictionPods} left${waits ? `  ${waits}` : ''}`;
  }
  if (row.phase === 'Ready') return activity ?? 'ready for maintenance';
  return row.message;
}

/**
 * The live view on a TTY: event lines scroll above, the table of requests is redrawn below them. Redraws are
 * throttled; `finish` leaves the last table on screen.
 */
export class LiveView {
  private drawn = 0;
  private last: DemoView | undefined;
  private lastDraw = 0;
  private readonly activity = new Map<string, string>();

  constructor(private readonly out: NodeJS.WriteStream) {}

  event(e: DemoOutput): void {
    if (e.kind === 'requestor') this.activity.set(e.key, e.message);
    this.clear();
    this.out.write(`${ANSI.dim}${eventLine(e)}${ANSI.reset}\n`);
    this.draw(true);
  }

  view(v: DemoView): void {
    this.last = v;
    this.draw(false);
  }

  finish(): void {
    this.draw(true);
    this.drawn = 0;
  }

  private clear(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}F\x1b[J`);
    this.drawn = 0;
  }

  private draw(force: boolean): void {
    const v = this.last;
    if (!v) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.clear();
    const width = Math.max(60, this.out.columns || 120);
    const cut = (s: string): string => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
    const lines = [
      `${ANSI.bold}kmaint demo${ANSI.reset}  simulated ${clockText(v.simMs)} (${v.speed}x)  wall ${(v.wallMs / 1000).toFixed(1)} s  ${v.nodes} nodes`,
      `in progress ${v.inProgress}/${v.limits.maxParallelOperations}  unavailable ${v.unavailable}${v.limits.maxUnavailable !== undefined ? `/${v.limits.maxUnavailable}` : ''}  evictions ${v.evictions}  pods held by budgets ${v.budgetWaits}`,
    ];
    const nameWidth = v.rows.reduce((max, r) => Math.max(max, r.key.length), 7);
    for (const r of v.rows) {
      const phase = r.releasedMs !== undefined ? 'done' : r.phase || 'new';
      const head = `${r.key.padEnd(nameWidth)}  ${r.node.padEnd(9)}  `;
      const detail = cut(`${head}${phase.padEnd(21)} ${rowDetail(r, this.activity.get(r.key))}`).slice(head.length + 21);
      lines.push(`${head}${phaseColour(r)}${phase.padEnd(21)}${ANSI.reset}${detail}`);
    }
    this.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}
