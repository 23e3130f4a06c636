import { describe, expect, it } from 'vitest';
import type { Action } from './actions.ts';
import { orderWrites, removalsBeforeUncordons, requestUnit, stopsUnit, sweepConditionsFirst, unitKey, writeUnits } from './write-order.ts';

// One row per write-order rule of write-order.ts: exact input, exact output order (actions named by their reason).
const ref = (name: string) => ({ namespace: 'ns', name, resourceVersion: '1' });
const node = (name: string) => ({ name, resourceVersion: '5' });
const meta = (nm: string): Action => ({ kind: 'patchMaintenanceMeta', target: ref(nm), addFinalizer: true, reason: `meta ${nm}` });
const status = (nm: string): Action => ({ kind: 'writeStatus', target: ref(nm), status: {}, reason: `status ${nm}` });
const cordon = (n: string, nm: string): Action => ({ kind: 'cordonNode', node: node(n), maintenance: ref(nm), reason: `cordon ${n}` });
const uncordon = (n: string, nm: string): Action => ({ kind: 'uncordonNode', node: node(n), maintenance: ref(nm), reason: `uncordon ${n}` });
const untaint = (n: string, nm: string): Action => ({ kind: 'setNodeTaints', node: node(n), taints: [], annotations: {}, maintenance: ref(nm), reason: `untaint ${n}` });
const evict = (pod: string, nm: string): Action => ({ kind: 'evictPod', pod: { namespace: 'w', name: pod, uid: pod }, maintenance: ref(nm), reason: `evict ${pod}` });
const event = (nm: string, text: string): Action => ({ kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: 'ns', name: nm }, type: 'Normal', eventReason: 'X', message: text, reason: `event ${text}` });
const nodeEvent = (n: string): Action => ({ kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: n }, type: 'Normal', eventReason: 'X', message: n, reason: `node event ${n}` });
const configStatus = (): Action => ({ kind: 'writeConfigStatus', target: { namespace: 'kmaint', name: 'default', resourceVersion: '1' }, conditions: [], reason: 'config status' });
const removal = (n: string, nm?: string): Action => ({ kind: 'patchNodeConditions', node: node(n), set: [], remove: ['Drained'], ...(nm ? { maintenance: ref(nm) } : {}), reason: `remove on ${n}` });
const setting = (n: string, nm: string): Action => ({
  kind: 'patchNodeConditions',
  node: node(n),
  set: [{ type: 'Drained', status: 'True', reason: 'DrainCompleted', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z', lastHeartbeatTime: '2026-01-01T00:00:00Z' }],
  remove: [],
  maintenance: ref(nm),
  reason: `set on ${n}`,
});
const finalizerOff = (nm: string): Action => ({ kind: 'patchMaintenanceMeta', target: ref(nm), removeFinalizer: true, reason: `release ${nm}` });
const reasons = (actions: readonly Action[]): string[] => actions.map((a) => a.reason);

describe('write order: one row per rule of shared/api/write-order.ts', () => {
  it.each([
    {
      rule: '1 units: a request\'s writes on its object, node and pods are one unit; a node write serving none is its node\'s unit; events follow their object, a node event naming a request its unit; the config report is its own unit',
      actions: [status('a'), cordon('n1', 'a'), evict('p', 'a'), removal('n2'), nodeEvent('n2'), event('a', 'e'), configStatus(), { ...nodeEvent('n1'), maintenance: ref('a') } as Action],
      expected: ['nm/ns/a', 'nm/ns/a', 'nm/ns/a', 'node/n2', 'node/n2', 'nm/ns/a', 'config/kmaint/default', 'nm/ns/a'],
    },
  ])('$rule', ({ actions, expected }) => {
    expect(actions.map(unitKey)).toEqual(expected);
  });

  it.each([
    {
      rule: '2 units in plan order: each unit keeps its actions in plan order; units listed by their first action',
      actions: [cordon('n2', 'b'), meta('a'), status('b'), cordon('n1', 'a'), removal('n3'), status('a')],
      expected: [
        ['nm/ns/b', ['cordon n2', 'status b']],
        ['nm/ns/a', ['meta a', 'cordon n1', 'status a']],
        ['node/n3', ['remove on n3']],
      ],
    },
  ])('$rule', ({ actions, expected }) => {
    expect([...writeUnits(actions)].map(([k, g]) => [k, reasons(g)])).toEqual(expected);
  });

  it.each([
    {
      rule: '3 what stops a unit: a failed eviction, pod deletion or event does not; every other write does',
      actions: [evict('p', 'a'), { kind: 'deletePod', pod: { namespace: 'w', name: 'q', uid: 'q' }, maintenance: ref('a'), reason: 'delete q' } as Action, event('a', 'e'), cordon('n1', 'a'), status('a'), removal('n1')],
      expected: [false, false, false, true, true, true],
    },
  ])('$rule', ({ actions, expected }) => {
    expect(actions.map(stopsUnit)).toEqual(expected);
  });

  it.each([
    {
      rule: '4 a request\'s unit: metadata patch, node writes, pod writes, status write, events — whatever order the parts come in',
      writes: { events: [event('a', 'Cordon'), event('a', 'warning')], status: status('a'), pods: [evict('p', 'a'), evict('q', 'a')], node: [cordon('n1', 'a')], meta: meta('a') },
      expected: ['meta a', 'cordon n1', 'evict p', 'evict q', 'status a', 'event Cordon', 'event warning'],
    },
    { rule: '4 a request\'s unit without a metadata patch or status write: the rest in the same order', writes: { node: [], pods: [evict('p', 'a')], events: [event('a', 'w')] }, expected: ['evict p', 'event w'] },
  ])('$rule', ({ writes, expected }) => {
    expect(reasons(requestUnit(writes))).toEqual(expected);
  });

  it.each([
    { rule: '5 a release\'s condition removal moves to just before its uncordon', actions: [uncordon('n1', 'a'), finalizerOff('a'), removal('n1', 'a')], expected: ['remove on n1', 'uncordon n1', 'release a'] },
    { rule: '5 not another request\'s uncordon of the node', actions: [uncordon('n1', 'a'), removal('n1', 'b')], expected: ['uncordon n1', 'remove on n1'] },
    { rule: '5 not a patch that sets conditions', actions: [uncordon('n1', 'a'), setting('n1', 'a')], expected: ['uncordon n1', 'set on n1'] },
  ])('$rule', ({ actions, expected }) => {
    expect(reasons(removalsBeforeUncordons(actions))).toEqual(expected);
  });

  it('6 a sweep\'s node conditions take the unit of its write on that node and go just before it', () => {
    const sweepUntaint = untaint('n1', 'gone');
    const sweepUncordon = uncordon('n1', 'gone');
    const actions = [finalizerOff('m'), sweepUntaint, sweepUncordon, removal('n2'), removal('n1')];
    const out = sweepConditionsFirst(actions, [sweepUntaint, sweepUncordon]);
    expect(reasons(out)).toEqual(['release m', 'remove on n1', 'untaint n1', 'uncordon n1', 'remove on n2']);
    // The moved patch names the swept request, so it is in that request's unit; n2's stays its node's own.
    expect(out.map(unitKey)).toEqual(['nm/ns/m', 'nm/ns/gone', 'nm/ns/gone', 'nm/ns/gone', 'node/n2']);
    // A patch already in a request's unit stays where it is; no sweep, nothing moves.
    expect(reasons(sweepConditionsFirst([sweepUncordon, removal('n1', 'a')], [sweepUncordon]))).toEqual(['uncordon n1', 'remove on n1']);
    expect(reasons(sweepConditionsFirst([sweepUncordon, removal('n1')], []))).toEqual(['uncordon n1', 'remove on n1']);
  });
});

describe('orderWrites: every rule applied to a plan, as runPass and the applier order it', () => {
  it('a release\'s removal before its uncordon (5), a sweep\'s conditions into its unit (6), units in plan order (1, 2), what stops each (3); a second call changes nothing', () => {
    const sweepUncordon = uncordon('n2', 'gone');
    const actions = [uncordon('n1', 'a'), finalizerOff('a'), event('b', 'e'), removal('n1', 'a'), sweepUncordon, removal('n2'), status('b')];
    const out = orderWrites(actions, { sweep: [sweepUncordon] });
    expect(reasons(out.actions)).toEqual(['remove on n1', 'uncordon n1', 'release a', 'event e', 'remove on n2', 'uncordon n2', 'status b']);
    expect(out.units.map((u) => [u.key, u.writes.map((w) => [w.action.reason, w.stopsUnit])])).toEqual([
      ['nm/ns/a', [['remove on n1', true], ['uncordon n1', true], ['release a', true]]],
      ['nm/ns/b', [['event e', false], ['status b', true]]],
      ['nm/ns/gone', [['remove on n2', true], ['uncordon n2', true]]],
    ]);
    expect(orderWrites(out.actions, { sweep: [sweepUncordon] })).toEqual(out);
  });
});
