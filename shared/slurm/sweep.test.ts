// Cleanup's sweep: Slurm state with kmaint's mark (reservation name prefix, drain reason prefix) that no request in the
// snapshot owns is removed; a reservation its request still needs is extended before it ends; the rest is left alone.
import { describe, expect, it } from 'vitest';
import { FINALIZER, type NodeMaintenance } from '../api/index.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmNodeInfo, SlurmReservationInfo } from './client.ts';
import { drainOwner } from './ownership.ts';
import { ANNOTATION_SLURM_RESERVATION } from './reservation-rules.ts';
import type { SlurmSettings } from './settings.ts';
import { planSlurmSweep } from './sweep.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
/** NOW in Unix seconds. */
const T = 1767225600;
const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const SETTINGS: SlurmSettings = { source: 'slurmrestd', url: 'https://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };

function aRequest(name: string, opts: { phase?: string; notBefore?: string; recorded?: boolean; deleting?: boolean } = {}): NodeMaintenance {
  const annotations: Record<string, string> = {
    ...(opts.notBefore ? { 'kmaint.io/not-before': opts.notBefore } : {}),
    ...(opts.recorded === false ? {} : { [ANNOTATION_SLURM_RESERVATION]: `kmaint_ns1_${name}` }),
  };
  return {
    metadata: { name, namespace: 'ns1', uid: `u-${name}`, annotations, finalizers: [FINALIZER], ...(opts.deleting ? { deletionTimestamp: '2025-12-31T23:00:00Z' } : {}) },
    spec: { requestorID: 'upgrade.acme.com', nodeName: 'w1' },
    status: { conditions: [{ type: 'Ready', status: 'False', reason: opts.phase ?? 'Pending', message: '', lastTransitionTime: '2025-12-31T00:00:00Z' }] },
  };
}
const resv = (name: string, startTime: number, endTime: number): SlurmReservationInfo => ({ name, startTime, endTime, nodeList: 'n1', flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] });
const drained = (name: string, reason: string, state = ['IDLE', 'DRAIN']): SlurmNodeInfo => ({ name, state, reason });
function ctx(reservations: SlurmReservationInfo[], nodes: SlurmNodeInfo[] = []): SlurmContext {
  return { kind: 'on', settings: SETTINGS, view: { kind: 'ok', nodes: new Map(nodes.map((n) => [n.name, n])), reservations: { kind: 'ok', byName: new Map(reservations.map((r) => [r.name, r])) } } };
}
const GONE = { namespace: 'ns1', name: 'gone' };

interface Row {
  rule: string;
  maintenances: NodeMaintenance[];
  ctx: SlurmContext | undefined;
  writes: SlurmWrite[];
}
const ROWS: Row[] = [
  {
    rule: 'a kmaint reservation whose request is gone (the scheduler created it after cleanup let the request go): deleted',
    maintenances: [],
    ctx: ctx([resv('kmaint_ns1_gone', T + 3600, T + 3600 + 14400)]),
    writes: [{ kind: 'slurmUnreserve', reservation: 'kmaint_ns1_gone', maintenance: GONE, why: 'kmaint made it for ns1/gone, which no longer exists', sweep: true }],
  },
  { rule: "an administrator's reservation (no kmaint prefix): left alone", maintenances: [], ctx: ctx([resv('admin_window', T, T + 3600)]), writes: [] },
  {
    rule: 'a kmaint drain whose request is gone (the drainer drained it after cleanup released): undrained',
    maintenances: [],
    ctx: ctx([], [drained('n1', 'kmaint: upgrade.acme.com ns1/gone')]),
    writes: [{ kind: 'slurmUndrain', node: 'n1', maintenance: GONE, why: 'kmaint drained it for ns1/gone, which no longer exists', sweep: true }],
  },
  { rule: 'a kmaint drain whose request exists: left to that request', maintenances: [aRequest('gone', { phase: 'Draining' })], ctx: ctx([], [drained('n1', 'kmaint: upgrade.acme.com ns1/gone')]), writes: [] },
  { rule: 'undrained already (24.11 keeps the reason): nothing', maintenances: [], ctx: ctx([], [drained('n1', 'kmaint: upgrade.acme.com ns1/gone', ['IDLE'])]), writes: [] },
  { rule: "an administrator's drain: left alone", maintenances: [], ctx: ctx([], [drained('n1', 'bad dimm ns1/gone')]), writes: [] },
  { rule: "Slinky's drain after kmaint's cordon: left to Slinky", maintenances: [], ctx: ctx([], [drained('n1', 'slurm-operator: kmaint: ns1/gone')]), writes: [] },
  {
    rule: 'a reservation its waiting request needs, 1 h left: extended to 4 h from now',
    maintenances: [aRequest('r1', { notBefore: '2026-01-01T01:00:00Z' })],
    ctx: ctx([resv('kmaint_ns1_r1', T - 10800, T + 3600)]),
    writes: [{ kind: 'slurmExtend', reservation: 'kmaint_ns1_r1', endTime: T + 14400, maintenance: { namespace: 'ns1', name: 'r1' }, why: 'ns1/r1 still needs it (its end 2026-01-01T01:00:00Z)' }],
  },
  {
    rule: 'an admitted request in maintenance: its reservation (infinite, from an earlier kmaint) gets an end',
    maintenances: [aRequest('r1', { phase: 'Draining' })],
    ctx: ctx([resv('kmaint_ns1_r1', T - 3600, 0)]),
    writes: [{ kind: 'slurmExtend', reservation: 'kmaint_ns1_r1', endTime: T + 14400, maintenance: { namespace: 'ns1', name: 'r1' }, why: 'ns1/r1 still needs it (no end)' }],
  },
  { rule: 'more than 2 h left: not extended yet', maintenances: [aRequest('r1', { phase: 'Draining' })], ctx: ctx([resv('kmaint_ns1_r1', T - 3600, T + 7200)]), writes: [] },
  { rule: 'waiting past not-before (not admitted): not extended, it ends with its window', maintenances: [aRequest('r1', { notBefore: '2025-12-31T23:00:00Z' })], ctx: ctx([resv('kmaint_ns1_r1', T - 3600, T + 600)]), writes: [] },
  { rule: "being deleted: cleanup's release deletes it, the sweep does nothing", maintenances: [aRequest('r1', { phase: 'Ready', deleting: true })], ctx: ctx([resv('kmaint_ns1_r1', T - 3600, T + 600)]), writes: [] },
  { rule: 'a request that does not record it: neither extended nor deleted', maintenances: [aRequest('r1', { phase: 'Draining', recorded: false })], ctx: ctx([resv('kmaint_ns1_r1', T - 3600, T + 600)]), writes: [] },
  { rule: 'spec.slurm off: nothing', maintenances: [], ctx: undefined, writes: [] },
  { rule: 'Slurm unreadable: nothing', maintenances: [], ctx: { kind: 'on', settings: SETTINGS, view: { kind: 'problem', problem: { kind: 'unreachable', message: 'down' } } }, writes: [] },
  {
    rule: 'reservations unreadable (24.11): the drains are still swept',
    maintenances: [],
    ctx: { kind: 'on', settings: SETTINGS, view: { kind: 'ok', nodes: new Map([['n1', drained('n1', 'kmaint: upgrade.acme.com ns1/gone')]]), reservations: { kind: 'problem', problem: { kind: 'no-version', message: 'none' } } } },
    writes: [{ kind: 'slurmUndrain', node: 'n1', maintenance: GONE, why: 'kmaint drained it for ns1/gone, which no longer exists', sweep: true }],
  },
];

describe('planSlurmSweep', () => {
  it.each(ROWS)('$rule', (row) => {
    expect(planSlurmSweep(row.maintenances, row.ctx, NOW)).toEqual(row.writes);
  });
});

describe('drainOwner', () => {
  it.each<[string, string, string, { namespace: string; name: string } | undefined]>([
    ["kmaint's reason names its request", 'kmaint: upgrade.acme.com ns1/req-1', 'kmaint:', { namespace: 'ns1', name: 'req-1' }],
    ['another prefix: none', 'admin: upgrade.acme.com ns1/req-1', 'kmaint:', undefined],
    ['the prefix glued to more text: none', 'kmaint:x upgrade.acme.com ns1/req-1', 'kmaint:', undefined],
    ['no requestor word: none', 'kmaint: ns1/req-1', 'kmaint:', undefined],
    ['no namespace/name: none', 'kmaint: by hand', 'kmaint:', undefined],
    ['an empty prefix names nothing', ' upgrade.acme.com ns1/req-1', '', undefined],
  ])('%s', (_rule, reason, prefix, owner) => {
    expect(drainOwner(reason, prefix)).toEqual(owner);
  });
});
