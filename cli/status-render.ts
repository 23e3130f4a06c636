// How `kmaint status` shows its rows: a table with a drain progress bar (-o text, or -o wide: every column, nothing
// cut to the terminal), one JSON object per line (-o json), one YAML document per request (-o yaml), or the
// requests' namespace/name (-o name, what `kmaint explain` takes).
import { ageText } from './age-text.ts';
import { renderDocuments } from './output-format.ts';
import { requestTimesText } from './request-times.ts';
import type { StatusRow, StatusView } from './status.ts';
import { renderTable, type Cell, type Colour } from './table.ts';

/** `████░░░░░░  40% 3 of 5 pods left` (left to evict of those selected); '-' before the drain starts. */
export function drainText(drain: StatusRow['drain'], width = 10): string {
  if (!drain) return '-';
  const pct = Math.max(0, Math.min(100, drain.drainProgress));
  const filled = Math.round((pct / 100) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(pct).padStart(3)}% ${drain.podsLeft} of ${drain.evictionPods} pods left`;
}

export function phaseText(row: StatusRow): string {
  return `${row.phase || 'new'}${row.deleting ? ' (deleting)' : ''}`;
}

function phaseColour(row: StatusRow): Colour {
  if (row.deleting) return 'dim';
  switch (row.phase) {
    case '':
    case 'Pending':
      return 'yellow';
    case 'Ready':
      return 'green';
    case 'RequestorFailed':
      return 'red';
    default:
      return 'cyan';
  }
}

/** `3 requests: 1 Pending, 1 Draining, 1 Ready` in the order phases first appear. */
export function countsLine(rows: readonly StatusRow[]): string {
  const byPhase = new Map<string, number>();
  for (const r of rows) byPhase.set(r.phase || 'new', (byPhase.get(r.phase || 'new') ?? 0) + 1);
  const parts = [...byPhase].map(([phase, n]) => `${n} ${phase}`);
  return `${rows.length} request${rows.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * The NODE cell: the node, and for a device request (issue 45) its devices by their device names (the node itself
 * stays in service) and, when read, the pods holding them: `gpu-01 (devices: gpu-3; held by: ml/train-0)`.
 */
export function nodeText(r: StatusRow): string {
  if (r.devices === undefined) return r.node;
  const devices = r.devices.map((d) => d.slice(d.lastIndexOf('/') + 1)).join(', ') || 'unreadable';
  const holders = r.holders === undefined ? '' : `; held by: ${r.holders.map((h) => h.pod).join(', ') || 'no pod'}`;
  return `${r.node} (devices: ${devices}${holders})`;
}

export const STATUS_HEADERS = ['REQUEST', 'NODE', 'REQUESTOR', 'PHASE', 'AGE', 'DRAIN', 'MESSAGE'] as const;

/**
 * The text view: config line, counts, table. Ends with a newline. `wide`: the TIMES column always, nothing cut.
 * `tty: false` (piped, as kubectl get): the table alone, starting with its header (the config and count lines and the
 * "no requests" line are for a terminal; status-command sends warnings to stderr). `headers: false`: no header row.
 */
export function renderStatusText(view: StatusView, opts: { colour?: boolean; width?: number; wide?: boolean; tty?: boolean; headers?: boolean } = {}): string {
  const tty = opts.tty !== false;
  if (view.rows.length === 0) return tty ? `${view.config}\nno NodeMaintenance requests${view.filtered ?? ''}\n` : '';
  // A TIMES column (kmaint.io/deadline, kmaint.io/not-before) only when some request carries one, or when asked.
  const withTimes = opts.wide === true || view.rows.some((r) => r.deadline !== undefined || r.notBefore !== undefined);
  const cells = view.rows.map((r): Cell[] => [
    { text: r.request },
    // A device request (issue 45) names its devices by their device names: the node itself stays in service.
    { text: nodeText(r) },
    { text: r.requestor },
    { text: phaseText(r), colour: phaseColour(r) },
    { text: ageText(r.ageSeconds) },
    ...(withTimes ? [{ text: requestTimesText(r) || '-', ...(r.deadlineState === 'missed' ? { colour: 'red' as const } : {}) }] : []),
    { text: drainText(r.drain), ...(r.drain ? { colour: 'cyan' as const } : {}) },
    { text: r.validating ?? (r.message || (r.deleting ? 'deleted, cleanup pending' : '')) },
  ]);
  const headers = withTimes ? [...STATUS_HEADERS.slice(0, 5), 'TIMES', ...STATUS_HEADERS.slice(5)] : STATUS_HEADERS;
  const table = { ...(opts.colour !== undefined ? { colour: opts.colour } : {}), ...(opts.width !== undefined && opts.wide !== true ? { width: opts.width } : {}) };
  const lines = renderTable(headers, cells, table).slice(opts.headers === false ? 1 : 0);
  return `${[...(tty ? [view.config, countsLine(view.rows)] : []), ...lines].join('\n')}\n`;
}

/** One JSON object per request and line. */
export function renderStatusJson(view: StatusView): string {
  return renderDocuments(view.rows, 'json');
}

/** `-o name`: namespace/name of each request, one per line. */
export function renderStatusNames(view: StatusView): string {
  return view.rows.map((r) => `${r.request}\n`).join('');
}

/** What a watch compares to decide the view changed: everything but the ages, which change every second. */
export function statusChangeKey(view: StatusView): string {
  return JSON.stringify([view.config, view.rows.map(({ ageSeconds: _age, ...rest }) => rest)]);
}

/** On a terminal: home the cursor and clear the screen before each table, as `watch` does. */
export const CLEAR_SCREEN = '\x1b[H\x1b[2J';
