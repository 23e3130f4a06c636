// The repair ladder's plan (issue 44 points 2-3), exact: the first rung filed with the Node's records written first in
// its unit, unhealthy-since kept while a condition's lastTransitionTime moves, the rung's timeout then the next rung,
// repeat offenders skipping the reboot, the per-pool cap, the release of a rebooted request, the records removed when
// the Node is healthy again, and the config's problems.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, NodeMaintenance } from '#api';
import { loadReaperConfig } from './config.ts';
import { planReaper, type ReaperPlan } from './plan.ts';
import { providerMap, type InstanceProvider } from './providers.ts';
import { HISTORY_MAX_ENTRIES, historyWith } from './repair-history.ts';
import { aReaperNode, aReapRequest, aRequest, instanceIdOf, NOW, reaperConfig, secondsBefore } from './test-builders.ts';

const aws: InstanceProvider = { prefix: 'aws', terminate: () => Promise.resolve('terminated') };
const SINCE = 'repair.kmaint.io/unhealthy-since';
const RUNG = 'repair.kmaint.io/rung';
const HISTORY = 'repair.kmaint.io/history';
const POOL = 'kmaint.io/pool';
const FAILED = "conditions[?'KmaintValidationFailed'].orValue('') == 'True'";
const REAPER = {
  unhealthyForSeconds: 300,
  newNodeGracePeriodSeconds: 0,
  maxNodesUnhealthy: 3,
  maxNodesUnhealthyInSameZone: 3,
  reapPredicate: `conditions[?'Ready'].orValue('Unknown') != 'True' || ${FAILED}`,
  repair: { ladder: [{ remedy: 'reboot', timeoutSeconds: 600 }, { remedy: 'replace' }], maxConcurrentPerPool: 1, repeatLimit: 2 },
};
const T = '2026-01-01T12:00:00Z';

function plan(nodes: V1Node[], maintenances: NodeMaintenance[] = [], reaper: Record<string, unknown> = {}): ReaperPlan {
  const input = { nodes, maintenances, namespace: 'kmaint', providers: providerMap([aws]) };
  const frozen = structuredClone({ nodes, maintenances });
  const result = planReaper(input, reaperConfig({ ...REAPER, ...reaper }), NOW);
  expect({ nodes, maintenances }).toEqual(frozen); // inputs are never mutated
  return result;
}

function sick(name: string, more: { readyForSeconds?: number; annotations?: Record<string, string>; pool?: string } = {}): V1Node {
  return aReaperNode({ name, zone: 'a', ready: 'False', readyForSeconds: more.readyForSeconds ?? 3600, labels: { [POOL]: more.pool ?? 'general' }, ...(more.annotations ? { annotations: more.annotations } : {}) });
}

const rung = (i: number, remedy: string, state: string, at: string): string => JSON.stringify({ rung: i, remedy, state, at });
const history = (...entries: Array<[string, number, string]>): string => JSON.stringify(entries.map(([at, r, remedy]) => ({ at, rung: r, remedy })));

function filed(node: string, records: Record<string, string | null>, remedy: string, i: number, extraEvents: Action[] = []): Action[] {
  const annotations: Record<string, string> = { 'kmaint.io/reaper-provider-id': `aws:///a/${instanceIdOf(node)}`, 'kmaint.io/reaper-force-retry-on-error': 'true' };
  if (remedy === 'reboot') annotations['kmaint.io/reboot'] = 'true';
  if (remedy === 'quarantine') annotations['maintenance.nvidia.com/garbage-collector.ignore'] = 'true';
  const what = { reboot: 'drains the node and reboots it (kmaint.io/reboot), then is released', replace: 'drains the node, then terminates its instance', quarantine: 'drains the node and keeps it cordoned' }[remedy];
  return [
    { kind: 'patchNodeAnnotations', node: { name: node, resourceVersion: '7' }, annotations: records, maintenance: { namespace: 'kmaint', name: `reap-${node}`, resourceVersion: '' }, reason: `record repair rung ${i} (${remedy}) before filing its request` },
    {
      kind: 'createMaintenance',
      target: { namespace: 'kmaint', name: `reap-${node}` },
      labels: { 'kmaint.io/reaper': 'true' },
      annotations,
      spec: { requestorID: 'reaper.kmaint.io', nodeName: node, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 310 } },
      reason: `repair node ${node} by rung ${i} (${remedy}): matches reapPredicate, unhealthy for at least 300 s, within the guards`,
    },
    ...extraEvents,
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node, uid: `uid-${node}` }, type: 'Normal', eventReason: 'Repair', message: `repair rung ${i} (${remedy}) requested: kmaint/reap-${node} ${what}`, reason: 'repair ladder' },
  ];
}

function warning(node: string, message: string): Action {
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node, uid: `uid-${node}` }, type: 'Warning', eventReason: 'RepairEscalated', message, reason: 'repair ladder' };
}

function held(node: string, why: string, records: Record<string, string> = {}): Action[] {
  return [
    { kind: 'patchNodeAnnotations', node: { name: node, resourceVersion: '7' }, annotations: { ...records, 'kmaint.io/reaper-decision': why }, reason: 'record the reaper decision, reported once' },
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node, uid: `uid-${node}` }, type: 'Normal', eventReason: 'ReapSkipped', message: `not reaped: ${why}`, reason: 'reaper decision' },
  ];
}

describe('repair ladder: the first rung', () => {
  it('a Node unhealthy for an hour gets rung 0 (reboot): unhealthy-since (from its condition), the rung and the history written first in the request\'s unit', () => {
    const p = plan([sick('c-1')]);
    expect(p.decisions).toEqual([{ node: 'c-1' }]);
    expect(p.terminations).toEqual([]);
    expect(p.actions).toEqual(filed('c-1', { [SINCE]: secondsBefore(3600), [RUNG]: rung(0, 'reboot', 'requested', T), [HISTORY]: history([T, 0, 'reboot']) }, 'reboot', 0));
  });

  it('a Node whose validation failed (KmaintValidationFailed True, reason TimedOut): the history entry says so, and so does the repeat-offender message', () => {
    const node = aReaperNode({ name: 'c-1', zone: 'a', conditions: { KmaintValidationFailed: ['True', 3600] }, labels: { [POOL]: 'general' } });
    for (const c of node.status?.conditions ?? []) if (c.type === 'KmaintValidationFailed') c.reason = 'TimedOut';
    const entry = JSON.stringify([{ at: T, rung: 0, remedy: 'reboot', validation: 'TimedOut' }]);
    expect(plan([node]).actions[0]).toMatchObject({ kind: 'patchNodeAnnotations', annotations: { [HISTORY]: entry } });
    const offender = aReaperNode({ name: 'c-2', zone: 'a', conditions: { KmaintValidationFailed: ['True', 3600] }, annotations: { [SINCE]: secondsBefore(3600), [HISTORY]: JSON.stringify([{ at: secondsBefore(7200), rung: 0, remedy: 'reboot', validation: 'Failed' }]) } });
    const warned = plan([offender], [], { repair: { ladder: [{ remedy: 'reboot' }, { remedy: 'quarantine' }], repeatLimit: 0 } }).actions.find((a) => a.kind === 'emitEvent' && a.type === 'Warning');
    expect(warned?.kind === 'emitEvent' ? warned.message : '').toBe(`repeat offender: repaired 1 times in the last 604800 s (reboot (rung 0) at ${secondsBefore(7200)} after validation Failed), more than repeatLimit 0: skips rung 0 (reboot) for rung 1 (quarantine)`);
  });

  it('rungs are chosen by CEL over the Node: a rung whose `when` does not match is passed over', () => {
    const ladder = [{ when: FAILED, remedy: 'reboot' }, { remedy: 'quarantine' }];
    const p = plan([sick('c-1')], [], { repair: { ladder } });
    expect(p.actions).toEqual(filed('c-1', { [SINCE]: secondsBefore(3600), [RUNG]: rung(1, 'quarantine', 'requested', T), [HISTORY]: history([T, 1, 'quarantine']) }, 'quarantine', 1));
  });
});

describe('repair ladder: unhealthy since (karpenter#2833)', () => {
  it('a condition whose lastTransitionTime moved 10 s ago: without kmaint\'s record it is held, and the record is written with the hold', () => {
    const why = `unhealthy since ${secondsBefore(10)}, not yet for unhealthyForSeconds 300 (due ${secondsBefore(-290)})`;
    expect(plan([sick('c-1', { readyForSeconds: 10 })]).actions).toEqual(held('c-1', why, { [SINCE]: secondsBefore(10) }));
  });

  it('the same condition with kmaint\'s record from 400 s ago reaches its rung: the moving transition time does not reset the clock', () => {
    const p = plan([sick('c-1', { readyForSeconds: 10, annotations: { [SINCE]: secondsBefore(400) } })]);
    expect(p.actions).toEqual(filed('c-1', { [RUNG]: rung(0, 'reboot', 'requested', T), [HISTORY]: history([T, 0, 'reboot']) }, 'reboot', 0));
  });

  it('healthy again: unhealthy-since and the rung record go in one patch, the history stays', () => {
    const node = aReaperNode({ name: 'c-1', zone: 'a', annotations: { [SINCE]: secondsBefore(900), [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(60)), [HISTORY]: history([secondsBefore(900), 0, 'reboot']) } });
    expect(plan([node]).actions).toEqual([{ kind: 'patchNodeAnnotations', node: { name: 'c-1', resourceVersion: '7' }, annotations: { [SINCE]: null, [RUNG]: null }, reason: "the repair ladder's records on the node" }]);
  });

  it('the history is pruned by time: an entry older than the window goes (the annotation with it when none is left), a healthy Node with only fresh entries is not written', () => {
    const old = aReaperNode({ name: 'c-1', zone: 'a', annotations: { [HISTORY]: history([secondsBefore(8 * 86400), 0, 'reboot'], [secondsBefore(86400), 0, 'reboot']) } });
    const gone = aReaperNode({ name: 'c-2', zone: 'a', annotations: { [HISTORY]: history([secondsBefore(8 * 86400), 0, 'reboot']) } });
    const fresh = aReaperNode({ name: 'c-3', zone: 'a', annotations: { [HISTORY]: history([secondsBefore(86400), 0, 'reboot']) } });
    expect(plan([old, gone, fresh]).actions).toEqual([
      { kind: 'patchNodeAnnotations', node: { name: 'c-1', resourceVersion: '7' }, annotations: { [HISTORY]: history([secondsBefore(86400), 0, 'reboot']) }, reason: "the repair ladder's records on the node" },
      { kind: 'patchNodeAnnotations', node: { name: 'c-2', resourceVersion: '7' }, annotations: { [HISTORY]: null }, reason: "the repair ladder's records on the node" },
    ]);
  });

  it('the ladder switched off: every repair.kmaint.io/ record goes, from a healthy Node and from one still reaped', () => {
    const records = { [SINCE]: secondsBefore(900), [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(60)), [HISTORY]: history([secondsBefore(900), 0, 'reboot']) };
    const off = { repair: undefined, maxNodesUnhealthy: 1 };
    const p = plan([aReaperNode({ name: 'c-1', zone: 'a', annotations: records }), sick('c-2', { annotations: records }), aReaperNode({ name: 'c-3', zone: 'a' })], [], off);
    const gone = { [SINCE]: null, [RUNG]: null, [HISTORY]: null };
    expect(p.actions.filter((a) => a.kind === 'patchNodeAnnotations').map((a) => (a.kind === 'patchNodeAnnotations' ? [a.node.name, a.annotations] : []))).toEqual([
      ['c-1', gone],
      ['c-2', gone],
    ]);
    expect(p.actions.filter((a) => a.kind === 'createMaintenance').map((a) => (a.kind === 'createMaintenance' ? a.annotations['kmaint.io/reboot'] : ''))).toEqual([undefined]);
  });

  it('the history is bounded: at most HISTORY_MAX_ENTRIES (20), the oldest dropped', () => {
    const many = Array.from({ length: 25 }, (_, i): [string, number, string] => [secondsBefore(1000 - i), 0, 'reboot']);
    const node = aReaperNode({ name: 'c-1', annotations: { [HISTORY]: history(...many) } });
    const value = JSON.parse(historyWith(node, { at: T, rung: 1, remedy: 'replace' }, NOW, 604800)) as Array<{ at: string }>;
    expect([HISTORY_MAX_ENTRIES, value.length, value[0]?.at, value.at(-1)?.at]).toEqual([20, 20, secondsBefore(1000 - 6), T]);
  });
});

describe('repair ladder: the next rung', () => {
  const rebooted = (secondsAgo: number): V1Node => sick('c-1', { annotations: { [SINCE]: secondsBefore(3600), [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(secondsAgo)), [HISTORY]: history([secondsBefore(3600), 0, 'reboot']) } });

  it('within the reboot rung\'s timeout after the reboot: held, saying until when', () => {
    const why = `rung 0 (reboot) rebooted the node at ${secondsBefore(100)}; waiting until ${secondsBefore(-500)} (timeoutSeconds 600) for it to be healthy before the next rung`;
    expect(plan([rebooted(100)]).actions).toEqual(held('c-1', why));
  });

  it('still unhealthy past the timeout: the next rung (replace), with a Warning naming the failed rung', () => {
    const p = plan([rebooted(601)]);
    const records = { [RUNG]: rung(1, 'replace', 'requested', T), [HISTORY]: history([secondsBefore(3600), 0, 'reboot'], [T, 1, 'replace']) };
    expect(p.actions).toEqual(filed('c-1', records, 'replace', 1, [warning('c-1', `rung 0 (reboot) did not make the node healthy within 600 s of its reboot at ${secondsBefore(601)}: next rung 1 (replace)`)]));
  });

  it('the ladder exhausted: held, the node left as it is', () => {
    const node = sick('c-1', { annotations: { [SINCE]: secondsBefore(3600), [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(601)) } });
    const why = 'no rung from 1 on matches the node: the ladder is exhausted, the node is left as it is (remove repair.kmaint.io/rung to start the ladder again)';
    expect(plan([node], [], { repair: { ladder: [{ remedy: 'reboot', timeoutSeconds: 600 }, { when: FAILED, remedy: 'replace' }] } }).actions).toEqual(held('c-1', why));
  });

  it('a rung whose request went missing before it finished is filed again, without a second history entry', () => {
    const node = sick('c-1', { annotations: { [SINCE]: secondsBefore(3600), [RUNG]: rung(0, 'reboot', 'requested', secondsBefore(120)), [HISTORY]: history([secondsBefore(120), 0, 'reboot']) } });
    expect(plan([node]).actions).toEqual(filed('c-1', { [RUNG]: rung(0, 'reboot', 'requested', T) }, 'reboot', 0));
  });
});

describe('repair ladder: a node validating (spec.validation) is not escalated until its validation ends', () => {
  const JOB = 'validation.kmaint.io/job';
  const FOR = 'validation.kmaint.io/for';
  const START = 'validation.kmaint.io/start-time';
  const OUTCOME = 'validation.kmaint.io/outcome';
  const deleting = { deletionTimestamp: secondsBefore(30), finalizers: ['maintenance.nvidia.com/finalizer'] };
  // Rebooted by rung 0 700 s ago (its timeoutSeconds 600 over): still KmaintValidationFailed, a validation running for `attempt`.
  const validating = (attempt: string, more: Record<string, string> = {}): V1Node =>
    aReaperNode({
      name: 'c-1',
      zone: 'a',
      conditions: { KmaintValidationFailed: ['True', 3600] },
      labels: { [POOL]: 'general' },
      annotations: { [SINCE]: secondsBefore(3600), [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(700)), [HISTORY]: history([secondsBefore(3600), 0, 'reboot']), [JOB]: 'kmaint/kmaint-validate-u1', [FOR]: attempt, [START]: secondsBefore(690), ...more },
    });
  const userRequest = aRequest('nm-1', 'c-1', 'team.example.com', 'Ready', { namespace: 'team', uid: 'u1', ...deleting });
  // The next rung as without validation; the history entry names the failed validation the Node shows.
  const replaced = filed('c-1', { [RUNG]: rung(1, 'replace', 'requested', T), [HISTORY]: JSON.stringify([{ at: secondsBefore(3600), rung: 0, remedy: 'reboot' }, { at: T, rung: 1, remedy: 'replace', validation: 'Failed' }]) }, 'replace', 1, [
    warning('c-1', `rung 0 (reboot) did not make the node healthy within 600 s of its reboot at ${secondsBefore(700)}: next rung 1 (replace)`),
  ]);

  it('its own reboot rung\'s request, deleted and held by cleanup while the validation after the reboot runs: nothing is filed, however long past timeoutSeconds', () => {
    const own = aReapRequest('c-1', 'Ready', { annotations: { 'kmaint.io/reboot': 'true' }, ...deleting });
    const p = plan([validating('kmaint/reap-c-1/uid-reap-c-1')], [own]);
    expect([p.actions, p.decisions, p.terminations]).toEqual([[], [], []]);
  });

  it('a validation of another request (deleted, its finalizer held by the validation step) running past the rung\'s timeout: held, naming the Job; never the next rung', () => {
    const why = `validation Job kmaint/kmaint-validate-u1 for team/nm-1 running on the node since ${secondsBefore(690)}: the repair ladder waits for its outcome`;
    const p = plan([validating('team/nm-1/u1')], [userRequest]);
    expect([p.actions, p.decisions]).toEqual([held('c-1', why), [{ node: 'c-1', skipped: why }]]);
  });

  it('the first rung waits too: a failed Node whose new validation runs is not rebooted under it', () => {
    const node = aReaperNode({ name: 'c-1', zone: 'a', conditions: { KmaintValidationFailed: ['True', 3600] }, labels: { [POOL]: 'general' }, annotations: { [SINCE]: secondsBefore(3600), [JOB]: 'kmaint/kmaint-validate-u1', [FOR]: 'team/nm-1/u1', [START]: secondsBefore(20) } });
    const why = `validation Job kmaint/kmaint-validate-u1 for team/nm-1 running on the node since ${secondsBefore(20)}: the repair ladder waits for its outcome`;
    expect(plan([node], [userRequest]).actions).toEqual(held('c-1', why));
  });

  it.each([
    ['its request is gone (a record left behind holds nothing)', {}, [] as NodeMaintenance[]],
    ['its request was recreated under the same name (another uid: another release)', {}, [aRequest('nm-1', 'c-1', 'team.example.com', 'Ready', { namespace: 'team', uid: 'u2', ...deleting })]],
    ['the validation ended Failed while its request is still there', { [OUTCOME]: 'Failed' }, [userRequest]],
  ])('not validating: %s -> the next rung (replace), as without validation', (_rule, more, maintenances) => {
    expect(plan([validating('team/nm-1/u1', more)], maintenances).actions).toEqual(replaced);
  });
});

describe('repair ladder: fault history', () => {
  it('repaired 3 times in the window (repeatLimit 2): skips the reboot rung for the last rung, with a Warning naming the history', () => {
    const past = [[secondsBefore(5 * 86400), 0, 'reboot'], [secondsBefore(2 * 86400), 0, 'reboot'], [secondsBefore(86400), 0, 'reboot']] as Array<[string, number, string]>;
    const node = sick('c-1', { annotations: { [SINCE]: secondsBefore(3600), [HISTORY]: history([secondsBefore(9 * 86400), 0, 'reboot'], ...past) } });
    const names = past.map(([at]) => `reboot (rung 0) at ${at}`).join(', ');
    const message = `repeat offender: repaired 3 times in the last 604800 s (${names}), more than repeatLimit 2: skips rung 0 (reboot) for rung 1 (replace)`;
    expect(plan([node]).actions).toEqual(filed('c-1', { [RUNG]: rung(1, 'replace', 'requested', T), [HISTORY]: history(...past, [T, 1, 'replace']) }, 'replace', 1, [warning('c-1', message)]));
  });

  it('the plan counts the repeat offenders for the metric: Nodes with more than repeatLimit repairs in the window, healthy or not', () => {
    const three = history([secondsBefore(3 * 86400), 0, 'reboot'], [secondsBefore(2 * 86400), 0, 'reboot'], [secondsBefore(86400), 0, 'reboot']);
    const twoAndOld = history([secondsBefore(9 * 86400), 0, 'reboot'], [secondsBefore(2 * 86400), 0, 'reboot'], [secondsBefore(86400), 0, 'reboot']);
    const nodes = [aReaperNode({ name: 'c-1', annotations: { [HISTORY]: three } }), aReaperNode({ name: 'c-2', annotations: { [HISTORY]: twoAndOld } }), sick('c-3', { annotations: { [SINCE]: secondsBefore(3600), [HISTORY]: three } })];
    expect([plan(nodes).repeatOffenders, planReaper({ nodes, maintenances: [], namespace: 'kmaint', providers: providerMap([aws]) }, reaperConfig({}), NOW).repeatOffenders]).toEqual([2, undefined]);
  });

  it('repaired exactly repeatLimit times: still the reboot', () => {
    const node = sick('c-1', { annotations: { [SINCE]: secondsBefore(3600), [HISTORY]: history([secondsBefore(86400), 0, 'reboot'], [secondsBefore(3 * 86400), 0, 'reboot']) } });
    expect(plan([node]).actions[1]).toMatchObject({ kind: 'createMaintenance', annotations: { 'kmaint.io/reboot': 'true' } });
  });
});

describe('repair ladder: budgets', () => {
  it('maxConcurrentPerPool 1: of two unhealthy Nodes in pool general one is filed, the other waits naming the pool; a Node of another pool is filed', () => {
    const p = plan([sick('c-1'), sick('c-2'), sick('d-1', { pool: 'gpu' })]);
    expect(p.decisions).toEqual([{ node: 'c-1' }, { node: 'c-2', skipped: 'pool kmaint.io/pool=general has 1 repair in progress, maxConcurrentPerPool 1' }, { node: 'd-1' }]);
  });

  it('a request of the reaper in progress counts against its pool', () => {
    const p = plan([sick('c-1'), sick('c-2')], [aReapRequest('c-1', 'Draining')]);
    expect(p.decisions).toEqual([{ node: 'c-2', skipped: 'pool kmaint.io/pool=general has 1 repair in progress, maxConcurrentPerPool 1' }]);
  });

  it('a request of the reaper being released (its node still validating before the uncordon) counts until it is gone', () => {
    const p = plan([sick('c-1'), sick('c-2')], [aReapRequest('c-1', 'Ready', { deletionTimestamp: secondsBefore(30) })]);
    expect(p.decisions).toEqual([{ node: 'c-2', skipped: 'pool kmaint.io/pool=general has 1 repair in progress, maxConcurrentPerPool 1' }]);
  });
});

describe('repair ladder: releasing a reboot rung', () => {
  const rebootRequest = (phase: string, more: Record<string, string> = {}): NodeMaintenance => aReapRequest('c-1', phase, { annotations: { 'kmaint.io/reboot': 'true', ...more } });
  const node = (state: string): V1Node => sick('c-1', { annotations: { [RUNG]: rung(0, 'reboot', state, secondsBefore(300)) } });

  it('Ready (rebooted): the rung record says rebooted now, then the request is deleted in its unit; never a termination', () => {
    const nm = rebootRequest('Ready');
    const p = plan([node('requested')], [nm]);
    const target = { namespace: 'kmaint', name: 'reap-c-1', uid: 'uid-reap-c-1', resourceVersion: '11' };
    expect([p.terminations, p.actions]).toEqual([
      [],
      [
        { kind: 'patchNodeAnnotations', node: { name: 'c-1', resourceVersion: '7' }, annotations: { [RUNG]: rung(0, 'reboot', 'rebooted', T) }, maintenance: target, reason: 'record that rung 0 (reboot) is done before releasing kmaint/reap-c-1' },
        { kind: 'deleteMaintenance', target, reason: 'rung 0 (reboot): the node rebooted' },
        { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'c-1', uid: 'uid-c-1' }, type: 'Normal', eventReason: 'Repair', message: 'repair rung 0 (reboot): the node rebooted, kmaint/reap-c-1 released; the next rung follows if the node is still unhealthy 600 s from now', reason: 'repair ladder' },
      ],
    ]);
  });

  it('the record already says rebooted (an earlier delete did not land): only the delete', () => {
    const p = plan([node('rebooted')], [rebootRequest('Ready')]);
    expect(p.actions.map((a) => a.kind)).toEqual(['deleteMaintenance']);
  });

  it('Rebooting past the rung\'s timeout since the reboot was issued: released, the rung counted from the reboot\'s start', () => {
    const p = plan([node('requested')], [rebootRequest('Rebooting', { 'kmaint.io/reboot-start-time': secondsBefore(601) })]);
    expect(p.actions.map((a) => (a.kind === 'patchNodeAnnotations' ? a.annotations : a.kind === 'emitEvent' ? a.message : a.kind))).toEqual([
      { [RUNG]: rung(0, 'reboot', 'rebooted', secondsBefore(601)) },
      'deleteMaintenance',
      `repair rung 0 (reboot): kmaint/reap-c-1 did not finish its reboot within 600 s of ${secondsBefore(601)}; released, the next rung follows`,
    ]);
  });

  it('Rebooting within the timeout: nothing', () => {
    expect(plan([node('requested')], [rebootRequest('Rebooting', { 'kmaint.io/reboot-start-time': secondsBefore(599) })]).actions).toEqual([]);
  });
});

describe('repair ladder: config', () => {
  const load = (repair: unknown): unknown => loadReaperConfig({ metadata: { name: 'default', namespace: 'kmaint' }, spec: { reaper: { enabled: true, repair } } });
  it.each([
    ['an empty ladder', { ladder: [] }, 'spec.reaper.repair.ladder: at least one rung is needed; the reaper is stopped until this is fixed'],
    ['a rung whose CEL does not type-check', { ladder: [{ when: 'conditions', remedy: 'reboot' }] }, 'spec.reaper.repair.ladder[0].when: the expression is of type map<string, string>, expected bool; the reaper is stopped until this is fixed'],
  ])('%s stops the reaper, naming the field', (_name, repair, problem) => {
    expect(load(repair)).toEqual({ kind: 'invalid', problems: [problem] });
  });

  it('defaults: maxConcurrentPerPool 1, poolLabel kmaint.io/pool, a 7-day window, repeatLimit 2, timeoutSeconds 600, when true', () => {
    const config = reaperConfig({ repair: { ladder: [{ remedy: 'reboot' }] } }).repair;
    expect([config?.maxConcurrentPerPool, config?.poolLabel, config?.historyWindowSeconds, config?.repeatLimit, config?.ladder[0]?.timeoutSeconds, config?.ladder[0]?.when.source]).toEqual([1, 'kmaint.io/pool', 604800, 2, 600, 'true']);
  });
});
