// The KEP-5683 node conditions: which a node shows at each phase, that kmaint touches only its own, and that a node
// already showing what it should gets no write.
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_NOT_BEFORE, type Action } from '#api';
import { aMaintenance, aNode } from '../scheduling/test-builders.ts';
import { desiredNodeConditions, nodesCordoned, phasesAfter, planNodeConditions, removalsBeforeUncordons } from './node-conditions.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const EARLIER = '2026-01-01T11:00:00Z';
const MSG = 'kmaint: NodeMaintenance default/nm (requestor requestor-a)';

/** "Type=Status/Reason" rows, compact enough for a table. */
const short = (cs: readonly { type: string; status: string; reason?: string }[]): string[] => cs.map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`);

describe('desiredNodeConditions: the table by phase', () => {
  it.each([
    { phase: '', expected: [] },
    { phase: 'Pending', expected: [] },
    { phase: 'Scheduled', expected: ['MaintenancePlanned=True/MaintenanceScheduled', 'MaintenanceInProgress=False/MaintenanceScheduled', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'] },
    { phase: 'Cordon', expected: ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'] },
    { phase: 'WaitForPodCompletion', expected: ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'] },
    { phase: 'Draining', expected: ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=True/EvictingPods', 'Drained=False/EvictingPods'] },
    { phase: 'Ready', expected: ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=False/DrainCompleted', 'Drained=True/DrainCompleted'] },
    { phase: 'RequestorFailed', expected: ['MaintenancePlanned=False/MaintenanceStarted', 'MaintenanceInProgress=True/MaintenanceStarted', 'DrainInProgress=False/DrainCompleted', 'Drained=True/DrainCompleted'] },
  ])('$phase', ({ phase, expected }) => {
    expect(short(desiredNodeConditions(phase))).toEqual(expected);
  });
});

/** node-01 with `extra` conditions besides its Ready one. */
function nodeWith(extra: V1NodeCondition[]): V1Node {
  const node = aNode({ name: 'node-01' });
  node.metadata = { ...node.metadata, resourceVersion: '5' };
  node.status?.conditions?.push(...extra);
  return node;
}

const own = (type: string, status: string, reason: string): V1NodeCondition => ({ type, status, reason, message: MSG, lastTransitionTime: new Date(EARLIER) });
const scheduledOwn = [own('MaintenancePlanned', 'True', 'MaintenanceScheduled'), own('MaintenanceInProgress', 'False', 'MaintenanceScheduled'), own('DrainInProgress', 'False', 'DrainNotStarted'), own('Drained', 'False', 'DrainNotStarted')];

function plan(node: V1Node, opts: { phase?: string; deleting?: boolean; phaseAfter?: Array<[string, string]>; enabled?: boolean; none?: boolean }): Action[] {
  const maintenances = opts.none ? [] : [aMaintenance({ name: 'nm', nodeName: 'node-01', phase: opts.phase ?? 'Scheduled', deleting: opts.deleting ?? false })];
  const input = { nodes: [node], maintenances, phaseAfter: new Map(opts.phaseAfter ?? []), enabled: opts.enabled ?? true, now: NOW };
  const frozen = structuredClone(input.nodes);
  const actions = planNodeConditions(input);
  expect(input.nodes).toEqual(frozen);
  return actions;
}

/** "set Type=Status/Reason since <time>" and "-Type" rows of the one patch, or [] for none. */
function patchRows(actions: Action[]): string[] {
  expect(actions.length).toBeLessThanOrEqual(1);
  const a = actions[0];
  if (a === undefined) return [];
  if (a.kind !== 'patchNodeConditions') throw new Error(`unexpected ${a.kind}`);
  return [...a.set.map((c) => `${c.type}=${c.status}/${c.reason} since ${c.lastTransitionTime} msg ${c.message === MSG ? 'ours' : c.message}`), ...a.remove.map((t) => `-${t}`)];
}

describe('planNodeConditions', () => {
  it.each([
    {
      rule: 'admitted this pass (Pending -> Scheduled): the four conditions, planned True, all transitioning now',
      node: nodeWith([]),
      opts: { phase: 'Pending', phaseAfter: [['default/nm', 'Scheduled']] as Array<[string, string]> },
      expected: [
        'MaintenancePlanned=True/MaintenanceScheduled since 2026-01-01T12:00:00Z msg ours',
        'MaintenanceInProgress=False/MaintenanceScheduled since 2026-01-01T12:00:00Z msg ours',
        'DrainInProgress=False/DrainNotStarted since 2026-01-01T12:00:00Z msg ours',
        'Drained=False/DrainNotStarted since 2026-01-01T12:00:00Z msg ours',
      ],
    },
    { rule: 'a Pending request shows nothing', node: nodeWith([]), opts: { phase: 'Pending' }, expected: [] },
    { rule: 'the node already shows the phase: no write', node: nodeWith(scheduledOwn), opts: { phase: 'Scheduled' }, expected: [] },
    {
      rule: 'Scheduled -> Draining in one pass: only the changed conditions, an unchanged status keeps its transition time',
      node: nodeWith(scheduledOwn),
      opts: { phase: 'Scheduled', phaseAfter: [['default/nm', 'Draining']] as Array<[string, string]> },
      expected: [
        'MaintenancePlanned=False/MaintenanceStarted since 2026-01-01T12:00:00Z msg ours',
        'MaintenanceInProgress=True/MaintenanceStarted since 2026-01-01T12:00:00Z msg ours',
        'DrainInProgress=True/EvictingPods since 2026-01-01T12:00:00Z msg ours',
        'Drained=False/EvictingPods since 2026-01-01T11:00:00Z msg ours',
      ],
    },
    { rule: 'released this pass (finalizer removed): kmaint removes its four', node: nodeWith(scheduledOwn), opts: { phase: 'Ready', deleting: true, phaseAfter: [['default/nm', '']] as Array<[string, string]> }, expected: ['-MaintenancePlanned', '-MaintenanceInProgress', '-DrainInProgress', '-Drained'] },
    { rule: 'a request being deleted shows nothing', node: nodeWith(scheduledOwn), opts: { phase: 'Ready', deleting: true }, expected: ['-MaintenancePlanned', '-MaintenanceInProgress', '-DrainInProgress', '-Drained'] },
    { rule: 'leftovers of a crashed pass on a node without requests are removed', node: nodeWith(scheduledOwn), opts: { none: true }, expected: ['-MaintenancePlanned', '-MaintenanceInProgress', '-DrainInProgress', '-Drained'] },
    { rule: 'spec.nodeConditions false: kmaint removes its own and sets none', node: nodeWith(scheduledOwn), opts: { phase: 'Draining', enabled: false }, expected: ['-MaintenancePlanned', '-MaintenanceInProgress', '-DrainInProgress', '-Drained'] },
    { rule: 'spec.nodeConditions false and none of its own: no write', node: nodeWith([]), opts: { phase: 'Draining', enabled: false }, expected: [] },
    {
      rule: "another writer's condition of a type is neither overwritten nor removed",
      node: nodeWith([{ type: 'MaintenancePlanned', status: 'True', reason: 'MaintenanceWindow', message: 'firmware team, Tuesday' }]),
      opts: { phase: 'Pending', phaseAfter: [['default/nm', 'Scheduled']] as Array<[string, string]> },
      expected: [
        'MaintenanceInProgress=False/MaintenanceScheduled since 2026-01-01T12:00:00Z msg ours',
        'DrainInProgress=False/DrainNotStarted since 2026-01-01T12:00:00Z msg ours',
        'Drained=False/DrainNotStarted since 2026-01-01T12:00:00Z msg ours',
      ],
    },
    { rule: "another writer's conditions on a node without requests stay", node: nodeWith([{ type: 'Drained', status: 'True', reason: 'DrainCompleted', message: 'kubectl drain' }]), opts: { none: true }, expected: [] },
  ])('$rule', ({ node, opts, expected }) => {
    expect(patchRows(plan(node, opts))).toEqual(expected);
  });

  it('the patch is preconditioned on the node as read and joins the request unit', () => {
    const [a] = plan(nodeWith([]), { phase: 'Ready' });
    expect(a).toMatchObject({ kind: 'patchNodeConditions', node: { name: 'node-01', resourceVersion: '5' }, maintenance: { namespace: 'default', name: 'nm' }, reason: 'node shows default/nm at Ready' });
  });

  it('two requests on one node: the node shows the one furthest on', () => {
    const maintenances = [aMaintenance({ name: 'a', nodeName: 'node-01', phase: 'Scheduled' }), aMaintenance({ name: 'b', nodeName: 'node-01', phase: 'Draining' })];
    const [a] = planNodeConditions({ nodes: [nodeWith([])], maintenances, phaseAfter: new Map(), enabled: true, now: NOW });
    expect(a?.kind === 'patchNodeConditions' ? [a.set.map((c) => c.message), a.maintenance?.name] : []).toEqual([Array(4).fill('kmaint: NodeMaintenance default/b (requestor requestor-a)'), 'b']);
  });
});

describe("nodesCordoned: a cordon's pass leaves the node's conditions to the next pass (the controller's taint would refuse the patch)", () => {
  const ref = { namespace: 'ns', name: 'nm', resourceVersion: '1' };
  const actions: Action[] = [
    { kind: 'cordonNode', node: { name: 'node-01', resourceVersion: '5' }, maintenance: ref, reason: '' },
    { kind: 'uncordonNode', node: { name: 'node-02', resourceVersion: '5' }, maintenance: ref, reason: '' },
    { kind: 'writeStatus', target: ref, status: {}, phaseFrom: 'Scheduled', phaseTo: 'Draining', reason: '' },
  ];

  it('reads the cordons of a plan, not its uncordons', () => {
    expect([...nodesCordoned(actions)]).toEqual(['node-01']);
  });

  it.each([
    { rule: 'the node cordoned this pass: no patch, though its request moved to Draining', later: ['node-01'], expected: [] },
    { rule: 'another node cordoned this pass: this one gets its patch', later: ['node-02'], expected: ['MaintenancePlanned', 'MaintenanceInProgress', 'DrainInProgress', 'Drained'] },
  ])('$rule', ({ later, expected }) => {
    const maintenances = [aMaintenance({ name: 'nm', nodeName: 'node-01', phase: 'Scheduled' })];
    const out = planNodeConditions({ nodes: [nodeWith([])], maintenances, phaseAfter: new Map([['default/nm', 'Draining']]), enabled: true, later: new Set(later), now: NOW });
    expect(out.flatMap((a) => (a.kind === 'patchNodeConditions' ? a.set.map((c) => c.type) : []))).toEqual(expected);
  });
});

describe('removalsBeforeUncordons: a release removes the conditions before its uncordon (the controller answers the uncordon at once)', () => {
  const ref = (name: string) => ({ namespace: 'ns', name, resourceVersion: '1' });
  const node = (name: string) => ({ name, resourceVersion: '5' });
  const uncordon = (n: string, nm: string): Action => ({ kind: 'uncordonNode', node: node(n), maintenance: ref(nm), reason: `uncordon ${n}` });
  const finalizer = (nm: string): Action => ({ kind: 'patchMaintenanceMeta', target: ref(nm), removeFinalizer: true, reason: `release ${nm}` });
  const removal = (n: string, nm: string): Action => ({ kind: 'patchNodeConditions', node: node(n), set: [], remove: ['Drained'], maintenance: ref(nm), reason: `remove on ${n}` });
  const setting = (n: string, nm: string): Action => ({ kind: 'patchNodeConditions', node: node(n), set: [{ type: 'Drained', status: 'True', reason: 'DrainCompleted', message: MSG, lastTransitionTime: EARLIER, lastHeartbeatTime: EARLIER }], remove: [], maintenance: ref(nm), reason: `set on ${n}` });

  it.each([
    { rule: 'the removal of a released request moves to just before its uncordon', actions: [uncordon('n1', 'a'), finalizer('a'), removal('n1', 'a')], expected: ['remove on n1', 'uncordon n1', 'release a'] },
    { rule: 'two releases: each removal before its own uncordon', actions: [uncordon('n1', 'a'), finalizer('a'), uncordon('n2', 'b'), finalizer('b'), removal('n1', 'a'), removal('n2', 'b')], expected: ['remove on n1', 'uncordon n1', 'release a', 'remove on n2', 'uncordon n2', 'release b'] },
    { rule: "another request's uncordon of the node: the removal stays where it is", actions: [uncordon('n1', 'a'), removal('n1', 'b')], expected: ['uncordon n1', 'remove on n1'] },
    { rule: 'a patch that sets conditions stays after the uncordon', actions: [uncordon('n1', 'a'), setting('n1', 'a')], expected: ['uncordon n1', 'set on n1'] },
    { rule: 'no uncordon: nothing moves', actions: [finalizer('a'), removal('n1', 'a')], expected: ['release a', 'remove on n1'] },
  ])('$rule', ({ actions, expected }) => {
    expect(removalsBeforeUncordons(actions).map((a) => a.reason)).toEqual(expected);
  });
});

describe('phasesAfter', () => {
  it('reads the phase writes, deletions and released finalizers of a plan', () => {
    const ref = (name: string) => ({ namespace: 'ns', name, resourceVersion: '1' });
    const actions: Action[] = [
      { kind: 'writeStatus', target: ref('moved'), status: {}, phaseFrom: 'Cordon', phaseTo: 'Draining', reason: '' },
      { kind: 'writeStatus', target: ref('same'), status: {}, reason: 'message only' },
      { kind: 'deleteMaintenance', target: ref('gc'), reason: '' },
      { kind: 'patchMaintenanceMeta', target: ref('released'), removeFinalizer: true, reason: '' },
    ];
    expect(Object.fromEntries(phasesAfter(actions))).toEqual({ 'ns/moved': 'Draining', 'ns/gc': '', 'ns/released': '' });
  });
});

describe('planNodeConditions: advance notice from kmaint.io/not-before (issue 21)', () => {
  // NOW is 2026-01-01T12:00:00Z; the lead time 3600 s unless the row says otherwise.
  const planned = (at: string): string => `kmaint: NodeMaintenance default/nm (requestor requestor-a, not before ${at})`;
  it.each<{ rule: string; phase: string; notBefore: string; lead?: number; expected: string[] }>([
    { rule: 'more than the lead time ahead: nothing yet', phase: 'Pending', notBefore: '2026-01-01T13:00:01Z', expected: [] },
    {
      rule: 'exactly the lead time ahead: planned, named with its not-before',
      phase: 'Pending',
      notBefore: '2026-01-01T13:00:00Z',
      expected: ['MaintenancePlanned=True/MaintenanceScheduled', 'MaintenanceInProgress=False/MaintenanceScheduled', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'],
    },
    { rule: 'a request no pass has seen yet counts too', phase: '', notBefore: '2026-01-01T12:30:00+00:00', expected: ['MaintenancePlanned=True/MaintenanceScheduled', 'MaintenanceInProgress=False/MaintenanceScheduled', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'] },
    { rule: 'a longer lead time reaches further ahead', phase: 'Pending', notBefore: '2026-01-02T12:00:00Z', lead: 86400, expected: ['MaintenancePlanned=True/MaintenanceScheduled', 'MaintenanceInProgress=False/MaintenanceScheduled', 'DrainInProgress=False/DrainNotStarted', 'Drained=False/DrainNotStarted'] },
    { rule: 'lead time 0: only from the time itself', phase: 'Pending', notBefore: '2026-01-01T12:00:01Z', lead: 0, expected: [] },
    { rule: 'an unreadable not-before is never guessed: nothing', phase: 'Pending', notBefore: 'soon', expected: [] },
  ])('$rule', ({ phase, notBefore, lead, expected }) => {
    const nm = aMaintenance({ name: 'nm', nodeName: 'node-01', phase, annotations: { [ANNOTATION_NOT_BEFORE]: notBefore } });
    const actions = planNodeConditions({ nodes: [nodeWith([])], maintenances: [nm], phaseAfter: new Map(), enabled: true, ...(lead !== undefined ? { plannedLeadSeconds: lead } : {}), now: NOW });
    const a = actions[0];
    const set = a?.kind === 'patchNodeConditions' ? a.set : [];
    expect(set.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual(expected);
    if (expected.length > 0) expect(new Set(set.map((c) => c.message))).toEqual(new Set([planned(new Date(notBefore).toISOString().replace('.000', ''))]));
  });

  it('once admitted the node keeps the same message: no rewrite between planned and Scheduled', () => {
    const annotations = { [ANNOTATION_NOT_BEFORE]: '2026-01-01T12:30:00Z' };
    const pendingPlan = planNodeConditions({ nodes: [nodeWith([])], maintenances: [aMaintenance({ name: 'nm', nodeName: 'node-01', phase: 'Pending', annotations })], phaseAfter: new Map(), enabled: true, now: NOW });
    const written = pendingPlan[0]?.kind === 'patchNodeConditions' ? pendingPlan[0].set.map((c) => ({ ...c, lastTransitionTime: new Date(c.lastTransitionTime), lastHeartbeatTime: new Date(c.lastHeartbeatTime) })) : [];
    const node = nodeWith(written);
    const scheduled = aMaintenance({ name: 'nm', nodeName: 'node-01', phase: 'Scheduled', annotations });
    expect(planNodeConditions({ nodes: [node], maintenances: [scheduled], phaseAfter: new Map(), enabled: true, now: NOW })).toEqual([]);
  });
});
