// How `kmaint status` draws: kubectl-style ages, the drain bar, the exact table text, colours only when asked,
// the message cut to the terminal, and JSON lines.
import { describe, expect, it } from 'vitest';
import type { StatusRow, StatusView } from './status.ts';
import { ageText } from './age-text.ts';
import { countsLine, drainText, renderStatusJson, renderStatusNames, renderStatusText } from './status-render.ts';
import { renderTable } from './table.ts';

function aRow(over: Partial<StatusRow> & { request: string }): StatusRow {
  const [namespace = '', name = ''] = over.request.split('/');
  return { namespace, name, node: 'node-1', requestor: 'cli.example.com', phase: 'Pending', createdAt: '2026-01-02T03:00:00Z', ageSeconds: 65, deleting: false, drain: null, message: '', ...over };
}

const VIEW: StatusView = {
  config: 'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 1, maxUnavailable unlimited',
  rows: [
    aRow({ request: 'ops/a', phase: 'Draining', ageSeconds: 754, drain: { totalPods: 7, evictionPods: 5, drainProgress: 40, podsLeft: 3 }, message: 'draining: 3 of 5 pods left' }),
    aRow({ request: 'ops/b', node: 'node-2', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' }),
    aRow({ request: 'ops/old', node: 'node-3', requestor: 'x.io', phase: 'Ready', ageSeconds: 200_000, deleting: true }),
  ],
};

describe('ageText', () => {
  it.each([
    [null, '-'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [330, '5m30s'],
    [754, '12m'],
    [3 * 3600 + 20 * 60, '3h20m'],
    [30 * 3600, '30h'],
    [2 * 86400 + 5 * 3600, '2d5h'],
    [12 * 86400, '12d'],
  ])('%s s -> %s', (s, text) => {
    expect(ageText(s)).toBe(text);
  });
});

describe('drainText', () => {
  it.each<[StatusRow['drain'], string]>([
    [null, '-'],
    [{ totalPods: 7, evictionPods: 5, drainProgress: 0, podsLeft: 5 }, '░░░░░░░░░░   0% 5 of 5 pods left'],
    [{ totalPods: 7, evictionPods: 5, drainProgress: 40, podsLeft: 3 }, '████░░░░░░  40% 3 of 5 pods left'],
    [{ totalPods: 3, evictionPods: 0, drainProgress: 100, podsLeft: 0 }, '██████████ 100% 0 of 0 pods left'],
  ])('%j -> %s', (drain, text) => {
    expect(drainText(drain)).toBe(text);
  });
});

/** VIEW's table as renderStatusText prints it: the header, then one row per request. */
const TABLE = [
  'REQUEST  NODE    REQUESTOR        PHASE             AGE   DRAIN                             MESSAGE',
  'ops/a    node-1  cli.example.com  Draining          12m   ████░░░░░░  40% 3 of 5 pods left  draining: 3 of 5 pods left',
  'ops/b    node-2  cli.example.com  Pending           65s   -                                 waiting: maxParallelOperations 1 reached (1 in progress)',
  'ops/old  node-3  x.io             Ready (deleting)  2d7h  -                                 deleted, cleanup pending',
];

describe('renderStatusText', () => {
  it('prints the config, the counts and a padded table with each message verbatim', () => {
    expect(renderStatusText(VIEW).split('\n')).toEqual([
      'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 1, maxUnavailable unlimited',
      '3 requests: 1 Draining, 1 Pending, 1 Ready',
      'REQUEST  NODE    REQUESTOR        PHASE             AGE   DRAIN                             MESSAGE',
      'ops/a    node-1  cli.example.com  Draining          12m   ████░░░░░░  40% 3 of 5 pods left  draining: 3 of 5 pods left',
      'ops/b    node-2  cli.example.com  Pending           65s   -                                 waiting: maxParallelOperations 1 reached (1 in progress)',
      'ops/old  node-3  x.io             Ready (deleting)  2d7h  -                                 deleted, cleanup pending',
      '',
    ]);
  });

  it.each<[string, { tty: boolean; headers: boolean }, string[]]>([
    ['piped (as kubectl get): the table alone, header first', { tty: false, headers: true }, TABLE],
    ['piped with --no-headers: the rows alone', { tty: false, headers: false }, TABLE.slice(1)],
    ['on a terminal with --no-headers: config and counts, then the rows', { tty: true, headers: false }, [VIEW.config, '3 requests: 1 Draining, 1 Pending, 1 Ready', ...TABLE.slice(1)]],
  ])('%s', (_rule, opts, want) => {
    expect(renderStatusText(VIEW, opts).split('\n')).toEqual([...want, '']);
  });

  it('piped, no requests print nothing (status-command says so on stderr)', () => {
    expect(renderStatusText({ config: 'c', rows: [] }, { tty: false })).toBe('');
  });

  it('says so when there are no requests', () => {
    expect(renderStatusText({ config: 'c', rows: [] })).toBe('c\nno NodeMaintenance requests\n');
  });

  it('colours the phase on a terminal and cuts the message to its width', () => {
    const lines = renderStatusText({ config: 'c', rows: [VIEW.rows[1] as StatusRow] }, { colour: true, width: 80 }).split('\n');
    expect(lines[3]).toBe('ops/b    node-2  cli.example.com  \x1b[33mPending\x1b[0m  65s  -      waiting: maxParallelOper…');
    // eslint-disable-next-line no-control-regex
    expect(lines[3]?.replace(/\x1b\[\d+m/g, '')).toHaveLength(80);
  });
});

it('renderStatusJson writes one object per request and line', () => {
  const lines = renderStatusJson(VIEW).trimEnd().split('\n');
  expect(lines.map((l) => (JSON.parse(l) as StatusRow).request)).toEqual(['ops/a', 'ops/b', 'ops/old']);
  expect(JSON.parse(lines[1] as string)).toEqual(VIEW.rows[1]);
});

it('countsLine counts new requests as "new"', () => {
  expect(countsLine([aRow({ request: 'a/a', phase: '' })])).toBe('1 request: 1 new');
});

describe('renderTable', () => {
  it('pads by characters, not bytes, and never pads the last column', () => {
    expect(renderTable(['A', 'B', 'C'], [[{ text: '██' }, { text: 'x' }, { text: 'end  ' }], [{ text: 'a' }, { text: 'yyy' }, { text: '' }]])).toEqual(['A   B    C', '██  x    end', 'a   yyy']);
  });
});

describe('renderStatusText: request times', () => {
  it('adds a TIMES column only when some request carries kmaint.io/deadline or kmaint.io/not-before', () => {
    const view: StatusView = {
      config: 'cfg',
      rows: [
        aRow({ request: 'ops/a', deadline: '2026-01-02T06:00:00Z', deadlineState: 'missed' }),
        aRow({ request: 'ops/b', notBefore: '2026-01-03T00:00:00Z' }),
        aRow({ request: 'ops/c' }),
      ],
    };
    const lines = renderStatusText(view).split('\n');
    expect(lines[2]?.split(/\s{2,}/)).toEqual(['REQUEST', 'NODE', 'REQUESTOR', 'PHASE', 'AGE', 'TIMES', 'DRAIN', 'MESSAGE']);
    expect(lines.slice(3, 6).map((l) => l.split(/\s{2,}/)[5])).toEqual(['deadline 2026-01-02T06:00:00Z (missed)', 'not before 2026-01-03T00:00:00Z', '-']);
    expect(renderStatusText({ config: 'cfg', rows: [aRow({ request: 'ops/c' })] }).split('\n')[2]).not.toContain('TIMES');
  });
});

describe('kmaint status -o wide, name, and a filtered view with no requests', () => {
  it('wide: the TIMES column always and the message not cut, whatever the terminal width', () => {
    const lines = renderStatusText({ config: 'c', rows: [VIEW.rows[1] as StatusRow] }, { width: 40, wide: true }).split('\n');
    expect(lines.slice(2)).toEqual([
      'REQUEST  NODE    REQUESTOR        PHASE    AGE  TIMES  DRAIN  MESSAGE',
      'ops/b    node-2  cli.example.com  Pending  65s  -      -      waiting: maxParallelOperations 1 reached (1 in progress)',
      '',
    ]);
  });

  it('name: namespace/name of each request, the form kmaint explain takes', () => {
    expect(renderStatusNames(VIEW)).toBe('ops/a\nops/b\nops/old\n');
  });

  it('says what the filters kept when none matched', () => {
    expect(renderStatusText({ config: 'c', rows: [], filtered: ' in namespace team-a, on node n1' })).toBe('c\nno NodeMaintenance requests in namespace team-a, on node n1\n');
  });
});
