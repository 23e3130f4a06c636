// Issue 40: one kmaint reservation per node, for the request it serves next, and a cap per namespace; the planner's
// exact actions and Slurm writes, pass after pass, for the attack that made 2,100 reservation writes on one node.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FINALIZER, type Action, type NodeMaintenance } from '../api/index.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmReservationInfo } from './client.ts';
import { ANNOTATION_SLURM_RESERVATION, reservationName } from './reservation-rules.ts';
import { planSlurmReservations } from './reservation.ts';
import { chooseReservations, nodesToReserve } from './reservation-choice.ts';
import type { SlurmSettings } from './settings.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const HOUR = 3600_000;
const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const SETTINGS: SlurmSettings = { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

interface RequestOptions {
  namespace?: string;
  node?: string;
  /** Hours after NOW; undefined: no not-before. */
  notBeforeHours?: number;
  phase?: string;
  annotations?: Record<string, string>;
  created?: string;
  requestor?: string;
}

function aRequest(name: string, opts: RequestOptions = {}): NodeMaintenance {
  const namespace = opts.namespace ?? 'ns1';
  return {
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      resourceVersion: '1',
      creationTimestamp: opts.created ?? '2025-12-31T00:00:00Z',
      annotations: { ...(opts.notBeforeHours !== undefined ? { 'kmaint.io/not-before': iso(NOW.getTime() + opts.notBeforeHours * HOUR) } : {}), ...opts.annotations },
    },
    spec: { requestorID: opts.requestor ?? 'upgrade.acme.com', nodeName: opts.node ?? 'w1' },
    status: { conditions: [{ type: 'Ready', status: 'False', reason: opts.phase ?? 'Pending', message: '', lastTransitionTime: '2025-12-31T00:00:00Z' }] },
  };
}

const nodesNamed = (...names: string[]): Map<string, V1Node> => new Map(names.map((n) => [n, { metadata: { name: n } }]));
/** One Slurm worker pod per node: node wN runs Slurm node nN. */
const podsOf = (nodes: ReadonlyMap<string, V1Node>): Map<string, V1Pod[]> =>
  new Map([...nodes.keys()].map((n) => [n, [{ metadata: { name: `slurm-${n}`, namespace: 'slurm', labels: { 'app.kubernetes.io/name': 'slurmd' } }, spec: { containers: [], hostname: n.replace('w', 'n') }, status: { phase: 'Running' } }]]));

function slurm(reservations: SlurmReservationInfo[], settings: SlurmSettings = SETTINGS): SlurmContext {
  return { kind: 'on', settings, view: { kind: 'ok', nodes: new Map(), reservations: { kind: 'ok', byName: new Map(reservations.map((r) => [r.name, r])) } } };
}
const inSlurm = (nm: NodeMaintenance, node: string): SlurmReservationInfo => {
  const start = Math.floor(Date.parse(nm.metadata.annotations?.['kmaint.io/not-before'] ?? '') / 1000);
  return { name: reservationName(nm), startTime: start, endTime: start + 4 * 3600, nodeList: node, flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] };
};
const recorded = (nm: NodeMaintenance): NodeMaintenance => ({ ...nm, metadata: { ...nm.metadata, annotations: { ...nm.metadata.annotations, [ANNOTATION_SLURM_RESERVATION]: reservationName(nm) }, finalizers: [FINALIZER] } });

/** What a pass's apply does to the requests and to Slurm: record annotations land; reservations are made and deleted. */
function applyPass(requests: NodeMaintenance[], reservations: Map<string, SlurmReservationInfo>, actions: Action[], writes: SlurmWrite[]): NodeMaintenance[] {
  for (const w of writes) {
    if (w.kind === 'slurmReserve') reservations.set(w.reservation, { name: w.reservation, startTime: w.startTime, endTime: w.endTime, nodeList: w.nodes.join(','), flags: ['MAINT'] });
    if (w.kind === 'slurmUnreserve') reservations.delete(w.reservation);
  }
  return requests.map((nm) => {
    const a = actions.find((x) => x.kind === 'patchMaintenanceMeta' && x.target.name === nm.metadata.name && x.target.namespace === nm.metadata.namespace);
    return a?.kind === 'patchMaintenanceMeta' && a.annotations?.[ANNOTATION_SLURM_RESERVATION] !== undefined ? recorded(nm) : nm;
  });
}

describe('issue 40: 42 requests on one node, not-before 4 h apart', () => {
  const nodes = nodesNamed('w1');
  const fortyTwo = Array.from({ length: 42 }, (_, i) => aRequest(`req-${String(i).padStart(2, '0')}`, { notBeforeHours: 1 + 4 * i }));

  it('make exactly one reservation write over three passes, for the earliest not-before (req-00); the third pass writes nothing', () => {
    let requests = fortyTwo;
    const reservations = new Map<string, SlurmReservationInfo>();
    const perPass: Array<{ actions: string[]; writes: SlurmWrite[] }> = [];
    for (let pass = 0; pass < 3; pass++) {
      const plan = planSlurmReservations({ maintenances: requests, nodes, podsByNode: podsOf(nodes), slurm: slurm([...reservations.values()]) }, NOW);
      perPass.push({ actions: plan.actions.map((a) => `${a.kind} ${a.kind === 'patchMaintenanceMeta' || a.kind === 'emitEvent' ? a.target.name : ''}`), writes: plan.writes });
      requests = applyPass(requests, reservations, plan.actions, plan.writes);
    }
    expect(perPass).toEqual([
      { actions: ['patchMaintenanceMeta req-00', 'emitEvent req-00'], writes: [] },
      {
        actions: [],
        writes: [{ kind: 'slurmReserve', reservation: 'kmaint_ns1_req-00', nodes: ['n1'], startTime: 1767229200, endTime: 1767229200 + 4 * 3600, users: ['root'], comment: 'kmaint: upgrade.acme.com ns1/req-00', maintenance: { namespace: 'ns1', name: 'req-00' }, why: 'kmaint.io/not-before 2026-01-01T01:00:00Z' }],
      },
      { actions: [], writes: [] },
    ]);
    expect([...reservations.keys()]).toEqual(['kmaint_ns1_req-00']);
  });

  it('left over from before (all 42 recorded and in Slurm): the 41 that are not next are deleted, once, and nothing is created', () => {
    const requests = fortyTwo.map(recorded);
    const plan = planSlurmReservations({ maintenances: requests, nodes, podsByNode: podsOf(nodes), slurm: slurm(requests.map((nm) => inSlurm(nm, 'n1'))) }, NOW);
    expect(plan.actions).toEqual([]);
    expect(plan.writes.map((w) => `${w.kind} ${w.kind === 'slurmUnreserve' ? w.reservation : ''}`)).toEqual(requests.slice(1).map((nm) => `slurmUnreserve ${reservationName(nm)}`));
    expect(plan.writes[0]).toEqual({ kind: 'slurmUnreserve', reservation: 'kmaint_ns1_req-01', maintenance: { namespace: 'ns1', name: 'req-01' }, why: 'no longer reserved for: node w1 serves ns1/req-00 first, which holds its kmaint reservation' });
  });

  it('the pods of one node are read, not of 42 requests', () => {
    expect(nodesToReserve(fortyTwo, nodes, slurm([]), NOW)).toEqual(['w1']);
  });
});

interface ChoiceRow {
  rule: string;
  requests: NodeMaintenance[];
  nodes?: string[];
  reservations?: Array<[NodeMaintenance, string]>;
  settings?: Partial<SlurmSettings>;
  holders: string[];
  refused: Record<string, string>;
}

const A_SOON = aRequest('a', { notBeforeHours: 2 });
const B_LATER = aRequest('b', { notBeforeHours: 5, namespace: 'ns2', requestor: 'firmware.example.com' });
const ADMITTED = recorded(aRequest('admitted', { notBeforeHours: -1, phase: 'Draining' }));
const STARTED = recorded(aRequest('started', { notBeforeHours: -1 }));
const TAKEN = (by: string): string => `node w1 serves ${by} first, which holds its kmaint reservation`;
const CAPPED = (ns: string, n: number, cap: number): string => `namespace ${ns} already holds ${n} kmaint reservation${n === 1 ? '' : 's'}, its cap (spec.slurm.reservationsPerNamespace: ${cap})`;

const CHOICE_ROWS: ChoiceRow[] = [
  { rule: 'the earliest not-before on a node gets it, whoever filed first', requests: [B_LATER, A_SOON], holders: ['ns1/a'], refused: { 'ns2/b': TAKEN('ns1/a') } },
  {
    rule: "equal not-before: the scheduler's rank order (a nearer kmaint.io/deadline first), not the name",
    requests: [aRequest('a', { notBeforeHours: 2 }), aRequest('z', { notBeforeHours: 2, annotations: { 'kmaint.io/deadline': iso(NOW.getTime() + 9 * HOUR) } })],
    holders: ['ns1/z'],
    refused: { 'ns1/a': TAKEN('ns1/z') },
  },
  { rule: 'an admitted request whose reservation Slurm has keeps the node: the next one waits without', requests: [ADMITTED, A_SOON], reservations: [[ADMITTED, 'n1']], holders: ['ns1/admitted'], refused: { 'ns1/a': TAKEN('ns1/admitted') } },
  { rule: 'a waiting request past not-before with its reservation in place keeps it until its window ends', requests: [STARTED, A_SOON], reservations: [[STARTED, 'n1']], holders: ['ns1/started'], refused: { 'ns1/a': TAKEN('ns1/started') } },
  { rule: 'a recorded reservation Slurm does not have (a forged record) holds nothing', requests: [ADMITTED, STARTED, A_SOON], holders: ['ns1/a'], refused: {} },
  { rule: 'not-before beyond the 7-day horizon, none, or unreadable: no claim', requests: [aRequest('far', { notBeforeHours: 24 * 8 }), aRequest('none'), aRequest('bad', { annotations: { 'kmaint.io/not-before': 'soon' } })], holders: [], refused: {} },
  {
    rule: 'a deleted request and one whose Node is gone claim nothing',
    requests: [{ ...A_SOON, metadata: { ...A_SOON.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, aRequest('gone', { notBeforeHours: 1, node: 'w9' })],
    holders: [],
    refused: {},
  },
  {
    rule: 'the cap: 12 requests of one namespace on 12 nodes get 10 reservations by default, the earliest ten',
    nodes: Array.from({ length: 12 }, (_, i) => `w${i + 1}`),
    requests: Array.from({ length: 12 }, (_, i) => aRequest(`r${i + 1}`, { node: `w${i + 1}`, notBeforeHours: i + 1 })),
    holders: Array.from({ length: 10 }, (_, i) => `ns1/r${i + 1}`),
    refused: { 'ns1/r11': CAPPED('ns1', 10, 10), 'ns1/r12': CAPPED('ns1', 10, 10) },
  },
  {
    rule: 'the cap counts reservations already kept; another namespace has its own',
    nodes: ['w1', 'w2', 'w3'],
    settings: { reservationsPerNamespace: 1 },
    requests: [ADMITTED, aRequest('x', { node: 'w2', notBeforeHours: 1 }), aRequest('y', { node: 'w3', notBeforeHours: 1, namespace: 'ns2' })],
    reservations: [[ADMITTED, 'n1']],
    holders: ['ns1/admitted', 'ns2/y'],
    refused: { 'ns1/x': CAPPED('ns1', 1, 1) },
  },
  {
    rule: "a namespace at its cap leaves the node to the next request in another: it never keeps another's request unreserved",
    nodes: ['w1', 'w2'],
    settings: { reservationsPerNamespace: 1 },
    requests: [aRequest('first', { node: 'w2', notBeforeHours: 1 }), A_SOON, B_LATER],
    holders: ['ns1/first', 'ns2/b'],
    refused: { 'ns1/a': CAPPED('ns1', 1, 1) },
  },
  { rule: 'reservationsPerNamespace 0: none', settings: { reservationsPerNamespace: 0 }, requests: [A_SOON], holders: [], refused: { 'ns1/a': CAPPED('ns1', 0, 0) } },
];

describe('chooseReservations', () => {
  it.each(CHOICE_ROWS)('$rule', (row) => {
    const ctx = slurm((row.reservations ?? []).map(([nm, node]) => inSlurm(nm, node)), { ...SETTINGS, ...row.settings });
    const choice = chooseReservations(row.requests, nodesNamed(...(row.nodes ?? ['w1'])), ctx, NOW);
    expect({ holders: [...choice.holders].sort(), refused: Object.fromEntries(choice.refused) }).toEqual({ holders: [...row.holders].sort(), refused: row.refused });
  });
});
