import { describe, expect, it } from 'vitest';
import { parseScenario, podSelectorSchema } from './scenario.ts';

describe('parseScenario', () => {
  it('parses YAML, turns offsets into milliseconds and sorts by them', () => {
    const s = parseScenario(`
name: unhealthy-gpu-node
actions:
  - at: 2m
    action: deleteNode
    node: node-005
  - at: 30
    action: addCondition
    node: node-005
    condition: { type: GpuFault, status: "True", reason: XidError, message: xid 79 }
  - action: stopHeartbeats
    node: node-004
`);
    expect(s).toEqual({
      name: 'unhealthy-gpu-node',
      actions: [
        { at: 0, action: 'stopHeartbeats', node: 'node-004', freezePods: true },
        { at: 30_000, action: 'addCondition', node: 'node-005', condition: { type: 'GpuFault', status: 'True', reason: 'XidError', message: 'xid 79' } },
        { at: 120_000, action: 'deleteNode', node: 'node-005' },
      ],
    });
  });

  it('parses JSON', () => {
    const s = parseScenario('{"actions":[{"at":"1.5s","action":"makeNotReady","node":"node-001"},{"at":"500ms","action":"resumeHeartbeats","node":"node-001"}]}');
    expect(s.actions).toEqual([
      { at: 500, action: 'resumeHeartbeats', node: 'node-001' },
      { at: 1500, action: 'makeNotReady', node: 'node-001', stopHeartbeats: true },
    ]);
  });

  it.each([
    ['workload', 'workload: web/frontend', { namespace: 'web', matchLabels: { 'app.kubernetes.io/name': 'frontend' } }],
    ['pods by label', 'pods: "tier=db,app=x"', { matchLabels: { tier: 'db', app: 'x' } }],
    ['one pod', 'pods: web/frontend-abc', { namespace: 'web', name: 'frontend-abc' }],
  ])('neverReady by %s', (_name, line, pods) => {
    expect(parseScenario(`actions:\n  - action: neverReady\n    ${line}\n`).actions[0]).toEqual({ at: 0, action: 'neverReady', pods });
  });

  it('slowTermination takes a pod selector and seconds', () => {
    const s = parseScenario('actions:\n  - { at: 1m, action: slowTermination, pods: { namespace: data, matchLabels: { app: db } }, seconds: 90 }\n');
    expect(s.actions[0]).toEqual({ at: 60_000, action: 'slowTermination', pods: { namespace: 'data', matchLabels: { app: 'db' } }, seconds: 90 });
  });

  it.each([
    ['an unknown action', '- { action: reboot, node: n }'],
    ['an unknown key', '- { action: deleteNode, node: n, force: true }'],
    ['a bad duration', '- { at: 5 minutes, action: deleteNode, node: n }'],
    ['a negative offset', '- { at: -1, action: deleteNode, node: n }'],
    ['a bad condition status', '- { action: addCondition, node: n, condition: { type: X, status: yes, reason: R } }'],
    ['neverReady with both pods and workload', '- { action: neverReady, pods: a/b, workload: a/b }'],
    ['neverReady with neither', '- { action: neverReady }'],
    ['a pod reference without namespace', '- { action: slowTermination, pods: justname, seconds: 1 }'],
  ])('rejects %s', (_name, action) => {
    expect(() => parseScenario(`actions:\n  ${action}\n`)).toThrow();
  });
});

describe('podSelectorSchema', () => {
  it.each([
    ['ns/name', { namespace: 'ns', name: 'name' }],
    ['a=b', { matchLabels: { a: 'b' } }],
    [{ namespace: 'ns' }, { namespace: 'ns' }],
  ])('%j', (input, expected) => expect(podSelectorSchema.parse(input)).toEqual(expected));

  it('rejects an empty object selector', () => expect(() => podSelectorSchema.parse({})).toThrow(/every pod/));
});
