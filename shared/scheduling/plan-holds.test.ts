// A waiting request holds nothing (issue 40): which request a Node serves is decided among the requests that could start
// now (start-now.ts). A gang that cannot start (a member missing, a member on a Node whose window is closed, a gang too
// large for a limit, a member that loses its own Node), however it ranks, never keeps another request off a Node; and a
// node-label gang incomplete longer than gangIncompleteAdmitAfterSeconds starts as the requests that exist.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_GANG_SIZE, ANNOTATION_NOT_BEFORE, LABEL_GANG } from '#api';
import type { NodeMaintenance } from '#api';
import { aNode, aPoolNode, itPlansEachRow, limits, NOW, pending, planChecked, POOL, someNodes, withAdmission } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

const NEVER_RESERVE = { gangReserveAfterSeconds: 2_000_000_000 };
const CLIQUE = 'nvidia.com/gpu.clique';
/** A kmaint.io/deadline one second after NOW: at risk, so its request ranks before any without one. */
const AT_RISK = '2026-01-01T00:00:01Z';

/** One request of gang `gang`; `size` sets kmaint.io/gang-size. */
const member = (name: string, node: string, day: number, gang: string, more: { size?: number; deadline?: string; requestorID?: string } = {}): NodeMaintenance =>
  pending(name, node, day, {
    labels: { [LABEL_GANG]: gang },
    requestorID: more.requestorID ?? 'attacker',
    annotations: { ...(more.size !== undefined ? { [ANNOTATION_GANG_SIZE]: String(more.size) } : {}), ...(more.deadline !== undefined ? { [ANNOTATION_DEADLINE]: more.deadline } : {}) },
  });
/** Issue 40's attack: a gang of one that declares two, with a deadline one second after its creation (at risk at once). */
const blocker = pending('blocker', 'node-01', 30, {
  requestorID: 'attacker',
  labels: { [LABEL_GANG]: 'never' },
  annotations: { [ANNOTATION_GANG_SIZE]: '2', [ANNOTATION_DEADLINE]: '2025-12-30T00:00:01Z' },
});
const admin = pending('admin', 'node-01', 31, { requestorID: 'admin' });
const neverStarts = 'gang never (1 requests) cannot start: 1 of its 2 requests missing (kmaint.io/gang-size 2, 1 found)';

const attacks: PlanRow[] = [
  {
    rule: 'a gang of one that declares two, with its own deadline, ranks first on its node: the administrator\'s request there starts',
    nodes: someNodes(2),
    maintenances: [blocker, admin],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/admin': 'admitted: slot 1 of 1' },
    waiting: { 'default/blocker': 'another request for node node-01 is in progress (default/admin)' },
    // Nothing waits on a limit: each waits on its node, freed when the request there finishes.
    blocked: false,
  },
  {
    rule: 'alone on its node it only waits, with its gang\'s reason',
    nodes: someNodes(2),
    maintenances: [blocker],
    limits: limits(1, 'unlimited'),
    admitted: {},
    waiting: { 'default/blocker': neverStarts },
    blocked: true,
  },
  {
    rule: 'the administrator\'s request waits only on the limits: the blocker keeps its gang reason, the admin the limit\'s',
    nodes: someNodes(2),
    maintenances: [blocker, admin, pending('busy', 'node-02', 1, { phase: 'Draining', requestorID: 'other' })],
    limits: limits(1, 'unlimited'),
    admitted: {},
    waiting: { 'default/admin': 'maxParallelOperations 1 reached (1 in progress)', 'default/blocker': neverStarts },
    blocked: true,
  },
  {
    rule: 'a request waiting on its own not-before, with a deadline, holds nothing (as before)',
    nodes: someNodes(2),
    maintenances: [pending('later', 'node-01', 30, { annotations: { [ANNOTATION_NOT_BEFORE]: '2026-02-01T00:00:00Z', [ANNOTATION_DEADLINE]: '2026-02-01T00:00:01Z' } }), admin],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/admin': 'admitted: slot 1 of 1' },
    waiting: { 'default/later': 'not before 2026-02-01T00:00:00Z (kmaint.io/not-before)' },
    blocked: true,
  },
];

const gangs: PlanRow[] = [
  {
    rule: 'a gang too large for maxParallelOperations never starts: its first member holds nothing, the single behind it starts',
    nodes: someNodes(4),
    maintenances: [member('w1', 'node-01', 1, 'wide', { deadline: AT_RISK }), member('w2', 'node-02', 2, 'wide'), member('w3', 'node-03', 3, 'wide'), pending('single', 'node-01', 9, { requestorID: 'admin' })],
    limits: withAdmission(limits(2, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/single': 'admitted: slot 1 of 2' },
    waiting: {
      'default/w1': 'another request for node node-01 is in progress (default/single)',
      'default/w2': 'gang wide (3 requests) cannot start: request default/w1 waits: another request for node node-01 is in progress (default/single)',
      'default/w3': 'gang wide (3 requests) cannot start: request default/w1 waits: another request for node node-01 is in progress (default/single)',
    },
    blocked: true,
  },
  {
    rule: 'a gang with a member on a node whose pool window is closed: its member elsewhere holds nothing, the single behind it starts',
    nodes: [aPoolNode('open-1', 'general', undefined), aPoolNode('shut-1', 'night', undefined)],
    maintenances: [member('m1', 'open-1', 1, 'split', { deadline: AT_RISK }), member('m2', 'shut-1', 2, 'split'), pending('single', 'open-1', 9, { requestorID: 'admin' })],
    limits: withAdmission(limits(4, 'unlimited'), {
      ...NEVER_RESERVE,
      pools: [
        { name: 'general', nodeSelector: { matchLabels: { [POOL]: 'general' } } },
        { name: 'night', nodeSelector: { matchLabels: { [POOL]: 'night' } }, windows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'UTC' }] },
      ],
    }),
    admitted: { 'default/single': 'admitted: slot 1 of 4' },
    waiting: {
      'default/m1': 'another request for node open-1 is in progress (default/single)',
      'default/m2': 'gang split (2 requests) cannot start: request default/m1 waits: another request for node open-1 is in progress (default/single)',
    },
    blocked: true,
  },
  {
    rule: 'a gang whose member loses its node to a single: its member that won the other node gives it up to the single behind it',
    nodes: someNodes(3),
    maintenances: [
      member('g1', 'node-01', 1, 'pair', { deadline: AT_RISK }),
      member('g2', 'node-02', 5, 'pair'),
      pending('first', 'node-02', 3, { requestorID: 'admin', annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T00:00:00Z' } }),
      pending('behind', 'node-01', 9, { requestorID: 'other' }),
    ],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/first': 'admitted: slot 1 of 4', 'default/behind': 'admitted: slot 2 of 4' },
    waiting: {
      'default/g1': 'another request for node node-01 is in progress (default/behind)',
      'default/g2': 'another request for node node-02 is in progress (default/first)',
    },
    // Nothing waits on a limit: each waits on its node, freed when the request there finishes.
    blocked: false,
  },
  {
    rule: 'a gang that cannot start (a member missing) loses its nodes first, so a whole gang it beat on a node starts',
    nodes: someNodes(3),
    maintenances: [
      member('h1', 'node-01', 1, 'half', { size: 2, deadline: '2025-12-01T00:00:01Z' }),
      member('g1', 'node-01', 2, 'whole', { requestorID: 'trainer' }),
      member('g2', 'node-02', 3, 'whole', { requestorID: 'trainer' }),
    ],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/g1': 'admitted: slot 1 of 4, with gang whole (2 requests)', 'default/g2': 'admitted: slot 2 of 4, with gang whole (2 requests)' },
    waiting: { 'default/h1': 'another request for node node-01 is in progress (default/g1)' },
    // Nothing waits on a limit: each waits on its node, freed when the request there finishes.
    blocked: false,
  },
];

const clique = [...['tray-1', 'tray-2', 'tray-3'].map((name) => aNode({ name, labels: { [CLIQUE]: 'uuid.1' } })), aNode({ name: 'cpu' })];
const firmware = (name: string, node: string, created: string): NodeMaintenance => pending(name, node, 1, { requestorID: 'firmware', created });
const incomplete = { gangNodeLabel: CLIQUE, gangIncompleteAdmitAfterSeconds: 3600, ...NEVER_RESERVE };

const timeout: PlanRow[] = [
  {
    rule: 'a clique gang incomplete for less than gangIncompleteAdmitAfterSeconds (from its oldest request) waits for its other nodes',
    nodes: clique,
    maintenances: [firmware('f1', 'tray-1', '2025-12-31T23:00:01Z'), firmware('f2', 'tray-2', '2025-12-31T23:30:00Z')],
    limits: withAdmission(limits(4, 'unlimited'), incomplete),
    admitted: {},
    waiting: {
      'default/f1': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
      'default/f2': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
    },
    blocked: true,
  },
  {
    rule: 'incomplete for exactly gangIncompleteAdmitAfterSeconds: it starts as the requests that exist',
    nodes: clique,
    maintenances: [firmware('f1', 'tray-1', '2025-12-31T23:00:00Z'), firmware('f2', 'tray-2', '2025-12-31T23:30:00Z')],
    limits: withAdmission(limits(4, 'unlimited'), incomplete),
    admitted: {
      'default/f1': 'admitted: slot 1 of 4, with gang nvidia.com/gpu.clique=uuid.1 (2 requests)',
      'default/f2': 'admitted: slot 2 of 4, with gang nvidia.com/gpu.clique=uuid.1 (2 requests)',
    },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'a lone request on a clique node, past the timeout, starts alone',
    nodes: clique,
    maintenances: [firmware('f3', 'tray-3', '2025-12-01T00:00:00Z')],
    limits: withAdmission(limits(4, 'unlimited'), incomplete),
    admitted: { 'default/f3': 'admitted: slot 1 of 4, with gang nvidia.com/gpu.clique=uuid.1 (1 requests)' },
    waiting: {},
    blocked: false,
  },
];

describe('a waiting request holds nothing (issue 40)', () => {
  describe('the attack: a request that can never start, ranked first', () => {
    itPlansEachRow(attacks);
  });
  describe('gangs that cannot start give up their nodes', () => {
    itPlansEachRow(gangs);
  });
  describe('node-label gangs incomplete longer than gangIncompleteAdmitAfterSeconds', () => {
    itPlansEachRow(timeout);
  });

  it('a gang admitted incomplete says so on each of its requests, in a Warning after its admission', () => {
    const plan = planChecked(clique, [firmware('f1', 'tray-1', '2025-12-31T23:00:00Z'), firmware('f2', 'tray-2', '2025-12-31T23:30:00Z')], withAdmission(limits(4, 'unlimited'), incomplete), NOW);
    const message =
      'gang nvidia.com/gpu.clique=uuid.1 admitted as its 2 requests: incomplete since 2025-12-31T23:00:00Z, longer than gangIncompleteAdmitAfterSeconds 3600; no request for node tray-3';
    expect(plan.actions.filter((a) => a.kind === 'emitEvent' && a.type === 'Warning')).toEqual(
      ['f1', 'f2'].map((name) => ({
        kind: 'emitEvent',
        target: { kind: 'NodeMaintenance', namespace: 'default', name, uid: `uid-${name}` },
        type: 'Warning',
        eventReason: 'GangAdmittedIncomplete',
        message,
        reason: 'gang admitted incomplete',
      })),
    );
  });
});
