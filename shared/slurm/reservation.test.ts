// The maintenance reservation, table by table: recorded (with the finalizer) a pass before it is created, created from
// not-before, re-created when not-before moves, each problem reported once, and deleted by cleanup before the request goes.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FINALIZER, type Action, type NodeMaintenance } from '../api/index.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmNodeInfo, SlurmProblem, SlurmReservationInfo } from './client.ts';
import { ANNOTATION_SLURM_DRAINED } from './ownership.ts';
import { planSlurmRelease, type SlurmRelease } from './release.ts';
import { ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM, reservationName } from './reservation-rules.ts';
import { planReservationRelease, planSlurmReservations, type ReservationPlan, type ReservationRelease } from './reservation.ts';
import type { SlurmSettings } from './settings.ts';
import { describeSlurmWrite, type SlurmContext, type SlurmWrite } from './view.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const NOT_BEFORE = '2026-01-01T06:00:00Z';
/** NOT_BEFORE in Unix seconds. */
const START = 1767247200;
/** An hour earlier: what Slurm holds after not-before moved. */
const EARLIER_START = 1767243600;
const NAME = 'kmaint_ns1_req1';
const MAINTENANCE = { namespace: 'ns1', name: 'req1' };
const TARGET = { namespace: 'ns1', name: 'req1', uid: 'u1', resourceVersion: '7' };
const EVENT_TARGET = { kind: 'NodeMaintenance' as const, namespace: 'ns1', name: 'req1', uid: 'u1' };

const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const POD_MODE: SlurmSettings = { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };
const NODE_MODE: SlurmSettings = { ...POD_MODE, mode: 'node', nameFrom: 'name' };
const TOKEN_FREE: SlurmSettings = { ...POD_MODE, source: 'pod-conditions', url: '' };

interface RequestOptions {
  annotations?: Record<string, string>;
  /** Ready condition reason; '' leaves the condition out. @default 'Pending' */
  phase?: string;
  finalizers?: string[];
  deleting?: boolean;
}

function aRequest(opts: RequestOptions = {}): NodeMaintenance {
  const phase = opts.phase ?? 'Pending';
  return {
    metadata: {
      name: 'req1',
      namespace: 'ns1',
      uid: 'u1',
      resourceVersion: '7',
      annotations: opts.annotations ?? { 'kmaint.io/not-before': NOT_BEFORE },
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2025-12-31T23:59:00Z' } : {}),
    },
    spec: { requestorID: 'upgrade.acme.com', nodeName: 'w1' },
    ...(phase === '' ? {} : { status: { conditions: [{ type: 'Ready', status: 'False', reason: phase, message: '', lastTransitionTime: '2025-12-31T00:00:00Z' }] } }),
  };
}
/** A request with not-before ahead and `extra` annotations. */
const ahead = (extra: Record<string, string> = {}, opts: Omit<RequestOptions, 'annotations'> = {}): NodeMaintenance => aRequest({ ...opts, annotations: { 'kmaint.io/not-before': NOT_BEFORE, ...extra } });
const RECORDED = { [ANNOTATION_SLURM_RESERVATION]: NAME };

const NODE: V1Node = { metadata: { name: 'w1' } };
function worker(name: string, hostname: string, labels: Record<string, string> = { 'app.kubernetes.io/name': 'slurmd' }): V1Pod {
  return { metadata: { name, namespace: 'slurm', labels }, spec: { containers: [], hostname }, status: { phase: 'Running' } };
}
const PODS = [worker('slurm-n1', 'n1'), worker('web', 'web-1', { app: 'web' })];

const reservation = (startTime: number): SlurmReservationInfo => ({ name: NAME, startTime, endTime: startTime + 4 * 3600, nodeList: 'n1', flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] });
/** slurmrestd read with the nodes and reservations given. */
function slurm(reservations: SlurmReservationInfo[], settings = POD_MODE, nodes: SlurmNodeInfo[] = [{ name: 'n1', state: ['IDLE'], reason: '' }]): SlurmContext {
  return { kind: 'on', settings, view: { kind: 'ok', nodes: new Map(nodes.map((n) => [n.name, n])), reservations: { kind: 'ok', byName: new Map(reservations.map((r) => [r.name, r])) } } };
}
const UNREACHABLE: SlurmProblem = { kind: 'unreachable', message: 'cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED' };
/** What the client says on Slurm 24.11, which serves reservations read-only. */
const NO_VERSION: SlurmProblem = { kind: 'no-version', message: 'slurmrestd at http://slurm:6820 cannot create reservations: it offers none of v0.0.45, v0.0.44, v0.0.43 (Slurm 25.05 or later; older slurmrestd serves reservations read-only)' };
const VIEW_PROBLEM: SlurmContext = { kind: 'on', settings: POD_MODE, view: { kind: 'problem', problem: UNREACHABLE } };
const RESERVATIONS_PROBLEM: SlurmContext = { kind: 'on', settings: POD_MODE, view: { kind: 'ok', nodes: new Map(), reservations: { kind: 'problem', problem: NO_VERSION } } };
const NOT_READ: SlurmContext = { kind: 'on', settings: POD_MODE, view: { kind: 'ok', nodes: new Map() } };
const POD_CONDITIONS: SlurmContext = { kind: 'on', settings: TOKEN_FREE, view: { kind: 'pod-conditions' } };
const INVALID: SlurmContext = { kind: 'invalid', problem: 'spec.slurm.podSelector: required in pod mode' };

const TOKEN_FREE_TEXT = 'spec.slurm has no slurmrestd url and token (token-free mode), and only slurmrestd can create reservations';
const problemText = (why: string): string => `cannot reserve the Slurm nodes of w1 before ns1/req1's not-before: ${why}`;
const NOTHING: ReservationPlan = { actions: [], writes: [] };

function recordProblem(why: string): Action[] {
  const message = problemText(why);
  return [
    { kind: 'patchMaintenanceMeta', target: TARGET, annotations: { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: message }, reason: 'record the Slurm reservation problem of ns1/req1' },
    { kind: 'emitEvent', target: EVENT_TARGET, type: 'Warning', eventReason: 'SlurmReservation', message, reason: 'ns1/req1: Slurm reservation problem' },
  ];
}
function record(nodes: string, opts: { addFinalizer?: boolean; clearProblem?: boolean } = {}): Action[] {
  return [
    {
      kind: 'patchMaintenanceMeta',
      target: TARGET,
      annotations: { [ANNOTATION_SLURM_RESERVATION]: NAME, ...(opts.clearProblem ? { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: null } : {}) },
      ...(opts.addFinalizer === false ? {} : { addFinalizer: true }),
      reason: 'record Slurm reservation kmaint_ns1_req1 of ns1/req1 before creating it',
    },
    {
      kind: 'emitEvent',
      target: EVENT_TARGET,
      type: 'Normal',
      eventReason: 'SlurmReservation',
      message: `reserving Slurm node ${nodes} from 2026-01-01T06:00:00Z (MAINT reservation kmaint_ns1_req1): jobs that would still run then are not started there`,
      reason: 'ns1/req1: Slurm reservation recorded',
    },
  ];
}
const RESERVE = (nodes: string[]): SlurmWrite => ({ kind: 'slurmReserve', reservation: NAME, nodes, startTime: START, endTime: START + 4 * 3600, users: ['root'], comment: 'kmaint: upgrade.acme.com ns1/req1', maintenance: MAINTENANCE, why: 'kmaint.io/not-before 2026-01-01T06:00:00Z' });
const MOVED: SlurmWrite = { kind: 'slurmMove', reservation: NAME, startTime: START, endTime: START + 4 * 3600, maintenance: MAINTENANCE, why: 'kmaint.io/not-before moved from 2026-01-01T05:00:00Z to 2026-01-01T06:00:00Z' };
/** A reservation that started an hour before NOW: it cannot be moved to start again later. */
const ACTIVE_START = 1767222000;
const UNRESERVE_ACTIVE: SlurmWrite = { kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before moved from 2025-12-31T23:00:00Z to 2026-01-01T06:00:00Z; created again next pass' };
const CLEAR_PROBLEM: Action = { kind: 'patchMaintenanceMeta', target: TARGET, annotations: { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: null }, reason: 'ns1/req1: the Slurm reservation problem is gone' };

/** The request as it reads after the plan's metadata patches (a copy; the input is left alone). */
function patched(nm: NodeMaintenance, actions: readonly Action[]): NodeMaintenance {
  const annotations: Record<string, string> = { ...(nm.metadata.annotations ?? {}) };
  const finalizers = [...(nm.metadata.finalizers ?? [])];
  for (const a of actions) {
    if (a.kind !== 'patchMaintenanceMeta') continue;
    for (const [k, v] of Object.entries(a.annotations ?? {})) {
      if (v === null) delete annotations[k];
      else annotations[k] = v;
    }
    if (a.addFinalizer === true && !finalizers.includes(FINALIZER)) finalizers.push(FINALIZER);
  }
  return { ...nm, metadata: { ...nm.metadata, annotations, ...(finalizers.length > 0 ? { finalizers } : {}) } };
}

interface PlanRow {
  rule: string;
  nm: NodeMaintenance;
  ctx: SlurmContext | undefined;
  /** @default PODS */
  pods?: V1Pod[];
  expected: ReservationPlan;
  /** The next pass, on the request as patched by `expected` and the same Slurm (writes not applied). */
  next: ReservationPlan;
}

const PLAN_ROWS: PlanRow[] = [
  { rule: 'spec.slurm off (no context): nothing', nm: ahead(), ctx: undefined, expected: NOTHING, next: NOTHING },
  { rule: 'no not-before: nothing', nm: aRequest({ annotations: {} }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  { rule: 'not-before already past: nothing', nm: aRequest({ annotations: { 'kmaint.io/not-before': '2025-12-31T23:00:00Z' } }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  { rule: 'not-before exactly now: nothing (it must still be ahead)', nm: aRequest({ annotations: { 'kmaint.io/not-before': '2026-01-01T00:00:00Z' } }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  { rule: 'not-before unreadable: nothing here (the scheduler reports it)', nm: aRequest({ annotations: { 'kmaint.io/not-before': 'tomorrow at six' } }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  { rule: 'admitted already (Ready reason past Pending): nothing', nm: ahead({}, { phase: 'Cordon' }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  // Recorded and not-before no longer ahead, still waiting: the reservation is checked, never created again.
  {
    rule: 'recorded, not-before come (now exactly), the reservation starts then: kept',
    nm: aRequest({ annotations: { 'kmaint.io/not-before': '2026-01-01T00:00:00Z', ...RECORDED }, finalizers: [FINALIZER] }),
    ctx: slurm([reservation(1767225600)]),
    expected: NOTHING,
    next: NOTHING,
  },
  {
    rule: 'recorded, not-before moved into the past: the reservation (still at the old time) is deleted',
    nm: aRequest({ annotations: { 'kmaint.io/not-before': '2025-12-31T23:00:00Z', ...RECORDED }, finalizers: [FINALIZER] }),
    ctx: slurm([reservation(START)]),
    expected: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before moved from 2026-01-01T06:00:00Z to 2025-12-31T23:00:00Z, already past' }] },
    next: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before moved from 2026-01-01T06:00:00Z to 2025-12-31T23:00:00Z, already past' }] },
  },
  {
    rule: 'recorded, not-before removed: the reservation is deleted',
    nm: aRequest({ annotations: { ...RECORDED }, finalizers: [FINALIZER] }),
    ctx: slurm([reservation(START)]),
    expected: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before removed' }] },
    next: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before removed' }] },
  },
  {
    rule: 'recorded, not-before made unreadable: the reservation is deleted',
    nm: aRequest({ annotations: { 'kmaint.io/not-before': 'soon', ...RECORDED }, finalizers: [FINALIZER] }),
    ctx: slurm([reservation(START)]),
    expected: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before can no longer be read (kmaint.io/not-before "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z))' }] },
    next: { actions: [], writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before can no longer be read (kmaint.io/not-before "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z))' }] },
  },
  { rule: 'recorded, not-before removed, Slurm has no such reservation: nothing', nm: aRequest({ annotations: { ...RECORDED }, finalizers: [FINALIZER] }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  {
    rule: 'recorded, not-before removed, Slurm cannot be read: nothing here (cleanup holds the request until it can delete it)',
    nm: aRequest({ annotations: { ...RECORDED }, finalizers: [FINALIZER] }),
    ctx: { kind: 'on', settings: POD_MODE, view: { kind: 'problem', problem: UNREACHABLE } },
    expected: NOTHING,
    next: NOTHING,
  },
  { rule: 'recorded, not-before removed, admitted already: nothing (deleted on release)', nm: aRequest({ annotations: { ...RECORDED }, phase: 'Draining', finalizers: [FINALIZER] }), ctx: slurm([reservation(START)]), expected: NOTHING, next: NOTHING },
  { rule: 'admitted and recorded, Slurm lacks the reservation: not created any more', nm: ahead(RECORDED, { phase: 'Draining', finalizers: [FINALIZER] }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  { rule: 'being deleted: nothing (cleanup deletes what is recorded)', nm: ahead(RECORDED, { deleting: true, finalizers: [FINALIZER] }), ctx: slurm([]), expected: NOTHING, next: NOTHING },
  {
    rule: 'first pass (no Ready condition yet): record the name with the finalizer, and say so; created the next pass',
    nm: ahead({}, { phase: '' }),
    ctx: slurm([]),
    expected: { actions: record('n1'), writes: [] },
    next: { actions: [], writes: [RESERVE(['n1'])] },
  },
  {
    rule: 'first pass, the finalizer already there: record without adding it again',
    nm: ahead({}, { finalizers: [FINALIZER] }),
    ctx: slurm([]),
    expected: { actions: record('n1', { addFinalizer: false }), writes: [] },
    next: { actions: [], writes: [RESERVE(['n1'])] },
  },
  {
    rule: 'recorded, absent from Slurm: create it from not-before for root',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: slurm([]),
    expected: { actions: [], writes: [RESERVE(['n1'])] },
    next: { actions: [], writes: [RESERVE(['n1'])] },
  },
  { rule: 'recorded, present with the same start: nothing', nm: ahead(RECORDED, { finalizers: [FINALIZER] }), ctx: slurm([reservation(START)]), expected: NOTHING, next: NOTHING },
  {
    rule: 'recorded, present with another start not reached yet (not-before moved): moved in place to the new start and window, never absent',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: slurm([reservation(EARLIER_START)]),
    expected: { actions: [], writes: [MOVED] },
    next: { actions: [], writes: [MOVED] },
  },
  {
    rule: 'recorded, an active reservation with another start (not-before moved later after it began): delete it, created again next pass',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: slurm([reservation(ACTIVE_START)]),
    expected: { actions: [], writes: [UNRESERVE_ACTIVE] },
    next: { actions: [], writes: [UNRESERVE_ACTIVE] },
  },
  {
    rule: 'pod mode: every matching worker pod of the node, by hostname, sorted',
    nm: ahead(),
    ctx: slurm([]),
    pods: [worker('slurm-n2', 'n2'), ...PODS],
    expected: { actions: record('n1, n2'), writes: [] },
    next: { actions: [], writes: [RESERVE(['n1', 'n2'])] },
  },
  {
    rule: 'node mode: the Kubernetes node names the Slurm node, pods ignored',
    nm: ahead(),
    ctx: slurm([], NODE_MODE),
    expected: { actions: record('w1'), writes: [] },
    next: { actions: [], writes: [RESERVE(['w1'])] },
  },
  { rule: 'pod mode, no Slurm worker pod on the node: nothing to reserve', nm: ahead(), ctx: slurm([]), pods: [worker('web', 'web-1', { app: 'web' })], expected: NOTHING, next: NOTHING },
  {
    rule: 'pod mode, no worker pod, a problem reported earlier: the problem is cleared',
    nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(UNREACHABLE.message) }),
    ctx: slurm([]),
    pods: [],
    expected: { actions: [{ kind: 'patchMaintenanceMeta', target: TARGET, annotations: { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: null }, reason: 'ns1/req1: no Slurm node to reserve' }], writes: [] },
    next: NOTHING,
  },
  { rule: 'token-free mode, a node without Slurm worker pods: nothing (no Warning for a node Slurm does not run on)', nm: ahead(), ctx: POD_CONDITIONS, pods: [worker('web', 'web-1', { app: 'web' })], expected: NOTHING, next: NOTHING },
  { rule: 'slurmrestd unreachable, a node without Slurm worker pods: nothing', nm: ahead(), ctx: VIEW_PROBLEM, pods: [], expected: NOTHING, next: NOTHING },
  {
    rule: 'a node without Slurm worker pods, a problem reported while it had some: cleared even though Slurm still has the problem',
    nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(UNREACHABLE.message) }),
    ctx: VIEW_PROBLEM,
    pods: [],
    expected: { actions: [{ kind: 'patchMaintenanceMeta', target: TARGET, annotations: { [ANNOTATION_SLURM_RESERVATION_PROBLEM]: null }, reason: 'ns1/req1: no Slurm node to reserve' }], writes: [] },
    next: NOTHING,
  },
  {
    rule: 'recorded, worker pods gone, Slurm unreadable: the problem is still reported (the recorded one cannot be checked)',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: VIEW_PROBLEM,
    pods: [],
    expected: { actions: recordProblem(UNREACHABLE.message), writes: [] },
    next: NOTHING,
  },
  {
    rule: 'recorded, worker pods gone, absent from Slurm: nothing to create',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: slurm([]),
    pods: [],
    expected: NOTHING,
    next: NOTHING,
  },
  {
    rule: 'node mode, the node lacks the label naming its Slurm node: a problem, reported once',
    nm: ahead(),
    ctx: slurm([], { ...NODE_MODE, nameFrom: 'label', nameKey: 'slurm/node' }),
    expected: { actions: recordProblem('node w1 has no label slurm/node naming its Slurm node'), writes: [] },
    next: NOTHING,
  },
  { rule: 'slurmrestd unreachable: one patch of the problem and one Warning', nm: ahead(), ctx: VIEW_PROBLEM, expected: { actions: recordProblem(UNREACHABLE.message), writes: [] }, next: NOTHING },
  { rule: 'the same problem already recorded: no action at all', nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(UNREACHABLE.message) }), ctx: VIEW_PROBLEM, expected: NOTHING, next: NOTHING },
  {
    rule: 'another problem than the one recorded: reported anew',
    nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(UNREACHABLE.message) }),
    ctx: RESERVATIONS_PROBLEM,
    expected: { actions: recordProblem(NO_VERSION.message), writes: [] },
    next: NOTHING,
  },
  { rule: "Slurm 24.11 (reservations read-only, the client's 'no-version'): a problem, reported once", nm: ahead(), ctx: RESERVATIONS_PROBLEM, expected: { actions: recordProblem(NO_VERSION.message), writes: [] }, next: NOTHING },
  {
    rule: 'recorded, then the reservations cannot be read: a problem, nothing deleted or created',
    nm: ahead(RECORDED, { finalizers: [FINALIZER] }),
    ctx: RESERVATIONS_PROBLEM,
    expected: { actions: recordProblem(NO_VERSION.message), writes: [] },
    next: NOTHING,
  },
  { rule: 'reservations not read this pass: a problem, not a creation', nm: ahead(), ctx: NOT_READ, expected: { actions: recordProblem('the reservations were not read this pass'), writes: [] }, next: NOTHING },
  { rule: 'token-free mode: only slurmrestd creates reservations', nm: ahead(), ctx: POD_CONDITIONS, expected: { actions: recordProblem(TOKEN_FREE_TEXT), writes: [] }, next: NOTHING },
  { rule: 'token-free mode, already reported: no action', nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(TOKEN_FREE_TEXT) }), ctx: POD_CONDITIONS, expected: NOTHING, next: NOTHING },
  { rule: 'spec.slurm invalid: its problem, reported once', nm: ahead(), ctx: INVALID, expected: { actions: recordProblem(INVALID.problem), writes: [] }, next: NOTHING },
  {
    rule: 'working again before recording: the record patch clears the problem too',
    nm: ahead({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(NO_VERSION.message) }),
    ctx: slurm([]),
    expected: { actions: record('n1', { clearProblem: true }), writes: [] },
    next: { actions: [], writes: [RESERVE(['n1'])] },
  },
  {
    rule: 'working again after recording: the problem is cleared, the reservation created',
    nm: ahead({ ...RECORDED, [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(NO_VERSION.message) }, { finalizers: [FINALIZER] }),
    ctx: slurm([]),
    expected: { actions: [CLEAR_PROBLEM], writes: [RESERVE(['n1'])] },
    next: { actions: [], writes: [RESERVE(['n1'])] },
  },
  {
    rule: 'working again, the reservation in place: only the problem is cleared',
    nm: ahead({ ...RECORDED, [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(NO_VERSION.message) }, { finalizers: [FINALIZER] }),
    ctx: slurm([reservation(START)]),
    expected: { actions: [CLEAR_PROBLEM], writes: [] },
    next: NOTHING,
  },
];

function plan(nm: NodeMaintenance, ctx: SlurmContext | undefined, pods: V1Pod[]): ReservationPlan {
  return planSlurmReservations({ maintenances: [nm], nodes: new Map([['w1', NODE]]), podsByNode: new Map([['w1', pods]]), slurm: ctx }, NOW);
}

describe('planSlurmReservations', () => {
  it.each(PLAN_ROWS)('$rule', (row) => {
    const before = structuredClone(row.nm);
    const first = plan(row.nm, row.ctx, row.pods ?? PODS);
    expect(first).toEqual(row.expected);
    expect(row.nm).toEqual(before);
    expect(plan(patched(row.nm, first.actions), row.ctx, row.pods ?? PODS)).toEqual(row.next);
  });

  it('a request whose node is not in the snapshot is skipped', () => {
    expect(planSlurmReservations({ maintenances: [ahead()], nodes: new Map(), podsByNode: new Map(), slurm: slurm([]) }, NOW)).toEqual(NOTHING);
  });

  it('passes of one request: record, create, nothing while Slurm has it, moved in place after not-before moved', () => {
    let nm = ahead();
    let held: SlurmReservationInfo[] = [];
    /** One pass: plan, patch the request, apply the writes to the fake Slurm. */
    const pass = (): ReservationPlan => {
      const p = plan(nm, slurm(held), PODS);
      nm = patched(nm, p.actions);
      for (const w of p.writes) {
        if (w.kind === 'slurmReserve') held = [...held, { name: w.reservation, startTime: w.startTime, endTime: w.endTime, nodeList: w.nodes.join(','), flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] }];
        if (w.kind === 'slurmUnreserve') held = held.filter((r) => r.name !== w.reservation);
        if (w.kind === 'slurmMove') held = held.map((r) => (r.name === w.reservation ? { ...r, startTime: w.startTime, endTime: w.endTime } : r));
      }
      return p;
    };
    expect(pass()).toEqual({ actions: record('n1'), writes: [] });
    expect(nm.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION]).toBe(reservationName(nm));
    expect(nm.metadata.finalizers).toEqual([FINALIZER]);
    expect(pass()).toEqual({ actions: [], writes: [RESERVE(['n1'])] });
    expect(pass()).toEqual(NOTHING);
    expect(pass()).toEqual(NOTHING);
    nm = { ...nm, metadata: { ...nm.metadata, annotations: { ...nm.metadata.annotations, 'kmaint.io/not-before': '2026-01-01T07:00:00Z' } } };
    const moved = { ...MOVED, startTime: START + 3600, endTime: START + 3600 + 4 * 3600, why: 'kmaint.io/not-before moved from 2026-01-01T06:00:00Z to 2026-01-01T07:00:00Z' };
    expect(pass()).toEqual({ actions: [], writes: [moved] });
    expect(pass()).toEqual(NOTHING);
  });
});

describe('reservationName', () => {
  it('kmaint_<namespace>_<name>', () => {
    expect(reservationName(aRequest())).toBe('kmaint_ns1_req1');
  });
});

const UNRESERVE: SlurmWrite = { kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'ns1/req1 deleted; kmaint created it' };
const UNDRAIN: SlurmWrite = { kind: 'slurmUndrain', node: 'n1', maintenance: MAINTENANCE, why: 'ns1/req1 deleted; kmaint drained it' };
const ESCAPE = 'drop annotation kmaint.io/slurm-reservation to release without deleting it';
const OUR_DRAIN: SlurmNodeInfo = { name: 'n1', state: ['IDLE', 'DRAIN'], reason: 'kmaint: upgrade.acme.com ns1/req1' };
const UNDRAINED: SlurmNodeInfo = { name: 'n1', state: ['IDLE'], reason: 'kmaint: upgrade.acme.com ns1/req1' };
const deleting = (annotations: Record<string, string>): NodeMaintenance => aRequest({ annotations, deleting: true, finalizers: [FINALIZER] });

interface ReleaseRow {
  rule: string;
  nm: NodeMaintenance;
  ctx: SlurmContext | undefined;
  /** planReservationRelease alone. */
  reservation: ReservationRelease;
  /** planSlurmRelease: the reservation with the drains. */
  release: SlurmRelease;
}

const RELEASE_ROWS: ReleaseRow[] = [
  { rule: 'nothing recorded: done, Slurm need not be read', nm: deleting({}), ctx: undefined, reservation: { kind: 'done' }, release: { kind: 'done', dropAnnotations: [] } },
  {
    rule: 'recorded and in Slurm: delete it, hold the finalizer until it is gone',
    nm: deleting(RECORDED),
    ctx: slurm([reservation(START)]),
    reservation: { kind: 'hold', why: 'deleting Slurm reservation kmaint_ns1_req1', writes: [UNRESERVE] },
    release: { kind: 'hold', why: 'deleting Slurm reservation kmaint_ns1_req1', writes: [UNRESERVE] },
  },
  { rule: 'recorded and gone from Slurm (or never created): done, the record dropped', nm: deleting(RECORDED), ctx: slurm([]), reservation: { kind: 'done' }, release: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_RESERVATION] } },
  {
    rule: 'recorded with a problem reported, gone from Slurm: both annotations dropped',
    nm: deleting({ ...RECORDED, [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(NO_VERSION.message) }),
    ctx: slurm([]),
    reservation: { kind: 'done' },
    release: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM] },
  },
  {
    rule: 'only a problem reported (never recorded): done, the problem dropped',
    nm: deleting({ [ANNOTATION_SLURM_RESERVATION_PROBLEM]: problemText(TOKEN_FREE_TEXT) }),
    ctx: undefined,
    reservation: { kind: 'done' },
    release: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_RESERVATION_PROBLEM] },
  },
  {
    rule: 'spec.slurm turned off with a reservation recorded: hold and say how to release',
    nm: deleting(RECORDED),
    ctx: undefined,
    reservation: { kind: 'hold', why: `spec.slurm is not enabled: cannot delete Slurm reservation kmaint_ns1_req1 (${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `spec.slurm is not enabled: cannot delete Slurm reservation kmaint_ns1_req1 (${ESCAPE})`, writes: [] },
  },
  {
    rule: 'slurmrestd unreachable: hold with the reason',
    nm: deleting(RECORDED),
    ctx: VIEW_PROBLEM,
    reservation: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${UNREACHABLE.message} (or ${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${UNREACHABLE.message} (or ${ESCAPE})`, writes: [] },
  },
  {
    rule: 'the reservations cannot be read (24.11): hold with the reason',
    nm: deleting(RECORDED),
    ctx: RESERVATIONS_PROBLEM,
    reservation: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${NO_VERSION.message} (or ${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${NO_VERSION.message} (or ${ESCAPE})`, writes: [] },
  },
  {
    rule: 'the reservations were not read: hold, never assume it is gone',
    nm: deleting(RECORDED),
    ctx: NOT_READ,
    reservation: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: the reservations were not read this pass (or ${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: the reservations were not read this pass (or ${ESCAPE})`, writes: [] },
  },
  {
    rule: 'token-free mode: hold, only slurmrestd deletes reservations',
    nm: deleting(RECORDED),
    ctx: POD_CONDITIONS,
    reservation: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${TOKEN_FREE_TEXT} (or ${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${TOKEN_FREE_TEXT} (or ${ESCAPE})`, writes: [] },
  },
  {
    rule: 'spec.slurm invalid: hold with its problem',
    nm: deleting(RECORDED),
    ctx: INVALID,
    reservation: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${INVALID.problem} (or ${ESCAPE})`, writes: [] },
    release: { kind: 'hold', why: `cannot delete Slurm reservation kmaint_ns1_req1: ${INVALID.problem} (or ${ESCAPE})`, writes: [] },
  },
  {
    rule: 'a recorded drain and a reservation: both writes, both whys',
    nm: deleting({ ...RECORDED, [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: slurm([reservation(START)], POD_MODE, [OUR_DRAIN]),
    reservation: { kind: 'hold', why: 'deleting Slurm reservation kmaint_ns1_req1', writes: [UNRESERVE] },
    release: { kind: 'hold', why: 'undraining Slurm node n1; deleting Slurm reservation kmaint_ns1_req1', writes: [UNDRAIN, UNRESERVE] },
  },
  {
    rule: 'drain lifted, reservation still there: the reservation holds alone',
    nm: deleting({ ...RECORDED, [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: slurm([reservation(START)], POD_MODE, [UNDRAINED]),
    reservation: { kind: 'hold', why: 'deleting Slurm reservation kmaint_ns1_req1', writes: [UNRESERVE] },
    release: { kind: 'hold', why: 'deleting Slurm reservation kmaint_ns1_req1', writes: [UNRESERVE] },
  },
  {
    rule: 'reservation gone, drain still on: the drain holds alone, the reservation record kept',
    nm: deleting({ ...RECORDED, [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: slurm([], POD_MODE, [OUR_DRAIN]),
    reservation: { kind: 'done' },
    release: { kind: 'hold', why: 'undraining Slurm node n1', writes: [UNDRAIN] },
  },
  {
    rule: 'both gone: done, every record dropped',
    nm: deleting({ ...RECORDED, [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: slurm([], POD_MODE, [UNDRAINED]),
    reservation: { kind: 'done' },
    release: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_RESERVATION] },
  },
];

/** The request without the annotations a done release drops. */
function dropped(nm: NodeMaintenance, keys: readonly string[]): NodeMaintenance {
  const annotations = Object.fromEntries(Object.entries(nm.metadata.annotations ?? {}).filter(([k]) => !keys.includes(k)));
  return { ...nm, metadata: { ...nm.metadata, annotations } };
}

describe('planReservationRelease and planSlurmRelease', () => {
  it.each(RELEASE_ROWS)('$rule', (row) => {
    expect(planReservationRelease(row.nm, row.ctx)).toEqual(row.reservation);
    const release = planSlurmRelease(row.nm, row.ctx);
    expect(release).toEqual(row.release);
    if (release.kind === 'done') {
      // Done is a fixed point: once the records are dropped, nothing is left to write or drop.
      const after = dropped(row.nm, release.dropAnnotations);
      expect(planReservationRelease(after, row.ctx)).toEqual({ kind: 'done' });
      expect(planSlurmRelease(after, row.ctx)).toEqual({ kind: 'done', dropAnnotations: [] });
    }
  });

  it('the holds end once Slurm confirms: unreserve and undrain, then done, then nothing', () => {
    const nm = deleting({ ...RECORDED, [ANNOTATION_SLURM_DRAINED]: 'n1' });
    expect(planSlurmRelease(nm, slurm([reservation(START)], POD_MODE, [OUR_DRAIN]))).toEqual({ kind: 'hold', why: 'undraining Slurm node n1; deleting Slurm reservation kmaint_ns1_req1', writes: [UNDRAIN, UNRESERVE] });
    // The writes applied: Slurm has no reservation and the node undrained (24.11 keeps the reason).
    const done = planSlurmRelease(nm, slurm([], POD_MODE, [UNDRAINED]));
    expect(done).toEqual({ kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_RESERVATION] });
    if (done.kind !== 'done') return;
    expect(planSlurmRelease(dropped(nm, done.dropAnnotations), slurm([], POD_MODE, [UNDRAINED]))).toEqual({ kind: 'done', dropAnnotations: [] });
  });
});

describe('describeSlurmWrite', () => {
  it.each<[string, SlurmWrite, string]>([
    ['a reservation: name, MAINT, nodes, start, end and why', RESERVE(['n1', 'n2']), 'slurm reservation kmaint_ns1_req1 (MAINT) on n1,n2 from 2026-01-01T06:00:00Z to 2026-01-01T10:00:00Z for ns1/req1: kmaint.io/not-before 2026-01-01T06:00:00Z'],
    ['moving a reservation: name, new start and end, and why', MOVED, 'slurm move reservation kmaint_ns1_req1 to 2026-01-01T06:00:00Z-2026-01-01T10:00:00Z for ns1/req1: kmaint.io/not-before moved from 2026-01-01T05:00:00Z to 2026-01-01T06:00:00Z'],
    ['extending a reservation: name, new end and why', { kind: 'slurmExtend', reservation: NAME, endTime: START + 4 * 3600, maintenance: MAINTENANCE, why: 'ns1/req1 still needs it (no end)' }, 'slurm extend reservation kmaint_ns1_req1 to 2026-01-01T10:00:00Z for ns1/req1: ns1/req1 still needs it (no end)'],
    ['a sweep says whose it was', { ...UNRESERVE, sweep: true, why: 'kmaint made it for ns1/req1, which no longer exists' }, 'slurm delete reservation kmaint_ns1_req1 (sweep: ns1/req1 is gone): kmaint made it for ns1/req1, which no longer exists'],
    ['deleting a reservation: name and why', UNRESERVE, 'slurm delete reservation kmaint_ns1_req1 for ns1/req1: ns1/req1 deleted; kmaint created it'],
    ['a drain still reads as before', { kind: 'slurmDrain', node: 'n1', reason: 'kmaint: upgrade.acme.com ns1/req1', maintenance: MAINTENANCE, why: 'before evicting pod slurm/slurm-n1' }, 'slurm drain n1 reason "kmaint: upgrade.acme.com ns1/req1" for ns1/req1: before evicting pod slurm/slurm-n1'],
    ['an undrain still reads as before', UNDRAIN, 'slurm undrain n1 for ns1/req1: ns1/req1 deleted; kmaint drained it'],
  ])('%s', (_rule, write, line) => {
    expect(describeSlurmWrite(write)).toBe(line);
  });
});

// Issue 31: the reservation annotation is a requestor's to write. Its value is never the name kmaint deletes or checks.
const OTHERS = 'kmaint_team-b_their-request';
const othersReservation: SlurmReservationInfo = { name: OTHERS, startTime: START, endTime: START + 4 * 3600, nodeList: 'n7', flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] };
const adminReservation: SlurmReservationInfo = { name: 'admin_window', startTime: START, endTime: START + 3600, nodeList: 'n7', flags: ['MAINT'] };

describe('a forged kmaint.io/slurm-reservation', () => {
  it.each([
    { rule: "a pending request without not-before naming another request's reservation: not deleted", name: OTHERS, held: othersReservation },
    { rule: "a pending request without not-before naming an administrator's reservation: not deleted", name: 'admin_window', held: adminReservation },
  ])('$rule', ({ name, held }) => {
    const forged = aRequest({ annotations: { [ANNOTATION_SLURM_RESERVATION]: name } });
    expect(plan(forged, slurm([held]), PODS)).toEqual(NOTHING);
  });

  it('a pending request with not-before ahead and a forged name: the derived name is recorded over it, nothing else touched', () => {
    const forged = ahead({ [ANNOTATION_SLURM_RESERVATION]: OTHERS }, { finalizers: [FINALIZER] });
    expect(plan(forged, slurm([othersReservation]), PODS)).toEqual({ actions: record('n1', { addFinalizer: false }), writes: [] });
  });

  it("a deleted request naming another request's reservation: released without deleting it, the annotation dropped", () => {
    const forged = deleting({ [ANNOTATION_SLURM_RESERVATION]: OTHERS });
    expect({ reservation: planReservationRelease(forged, slurm([othersReservation])), release: planSlurmRelease(forged, slurm([othersReservation])) }).toEqual({
      reservation: { kind: 'done' },
      release: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_RESERVATION] },
    });
  });
});

describe('a forged kmaint.io/slurm-drained', () => {
  const othersDrain: SlurmNodeInfo = { name: 'n7', state: ['IDLE', 'DRAIN'], reason: 'kmaint: upgrade.acme.com team-b/their-request' };
  it.each([
    { rule: "a node drained for another request is not undrained", node: othersDrain },
    { rule: 'a node drained by a kmaint-looking reason that names no request is not undrained', node: { ...othersDrain, reason: 'kmaint: by hand' } },
  ])('$rule', ({ node }) => {
    const forged = deleting({ [ANNOTATION_SLURM_DRAINED]: 'n7' });
    expect(planSlurmRelease(forged, slurm([], POD_MODE, [node]))).toEqual({ kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAINED] });
  });
});

describe('the reservation horizon and window', () => {
  const far = (days: number): NodeMaintenance => aRequest({ annotations: { 'kmaint.io/not-before': new Date(NOW.getTime() + days * 86400_000).toISOString() } });
  it.each([
    { rule: 'not-before 30 days ahead: no reservation recorded before admission', nm: far(30), wanted: NOTHING },
    { rule: 'not-before 7 days and a second ahead: not yet', nm: aRequest({ annotations: { 'kmaint.io/not-before': '2026-01-08T00:00:01Z' } }), wanted: NOTHING },
  ])('$rule', ({ nm, wanted }) => {
    expect(plan(nm, slurm([]), PODS)).toEqual(wanted);
  });

  it('not-before exactly 7 days ahead: recorded (the horizon is inclusive)', () => {
    const nm = aRequest({ annotations: { 'kmaint.io/not-before': '2026-01-08T00:00:00Z' } });
    expect(plan(nm, slurm([]), PODS).actions.map((a) => a.kind)).toEqual(['patchMaintenanceMeta', 'emitEvent']);
  });

  it('a reservation whose not-before moved beyond the horizon is deleted', () => {
    const nm = aRequest({ annotations: { 'kmaint.io/not-before': '2026-02-01T00:00:00Z', ...RECORDED } });
    expect(plan(nm, slurm([reservation(START)]), PODS)).toEqual({
      actions: [],
      writes: [{ kind: 'slurmUnreserve', reservation: NAME, maintenance: MAINTENANCE, why: 'kmaint.io/not-before moved from 2026-01-01T06:00:00Z to 2026-02-01T00:00:00Z, beyond the reservation horizon of 168 h' }],
    });
  });

  it('a reservation is created with an end 4 h after its start, never infinite', () => {
    expect(plan(ahead(RECORDED, { finalizers: [FINALIZER] }), slurm([]), PODS).writes).toEqual([{ ...RESERVE(['n1']), endTime: START + 14400 }]);
  });
});
