// The reaper's CEL predicates: the seed's defaults translated, lookups by label, annotation and condition type,
// missing fields, and invalid expressions with their messages; `matches` refused for RE2's re2Matches.
import { describe, expect, it } from 'vitest';
import { DEFAULT_REAP_PREDICATE, DEFAULT_UNHEALTHY_PREDICATE } from '#api';
import { compilePredicate, type Predicate } from './cel.ts';
import { nodeFacts } from './node-view.ts';
import { aReaperNode, NOW, type ReaperNodeOptions } from './test-builders.ts';

function compiled(source: string): Predicate {
  const c = compilePredicate(source);
  if (!c.ok) throw new Error(c.error);
  return c.predicate;
}

function evaluate(source: string, node: ReaperNodeOptions): unknown {
  return compiled(source).evaluate(nodeFacts(aReaperNode(node), NOW, 'topology.kubernetes.io/zone'));
}

describe('the seed defaults, translated to CEL', () => {
  it.each<[string, ReaperNodeOptions, boolean]>([
    ['a Ready node is not a candidate', { name: 'n' }, false],
    ['a NotReady node is a candidate', { name: 'n', ready: 'False' }, true],
    ['Ready Unknown (kubelet silent) is a candidate', { name: 'n', ready: 'Unknown' }, true],
    ['no Ready condition at all counts as Unknown: a candidate', { name: 'n', ready: 'absent' }, true],
    ['a cordoned NotReady node is left alone (someone is on it)', { name: 'n', ready: 'False', cordoned: true }, false],
    ['a NotReady master is never a candidate', { name: 'n', ready: 'False', labels: { 'kubernetes.io/role': 'master' } }, false],
    ['another role label does not protect it', { name: 'n', ready: 'False', labels: { 'kubernetes.io/role': 'worker' } }, true],
  ])('reapPredicate: %s', (_rule, node, expected) => {
    expect(evaluate(DEFAULT_REAP_PREDICATE, node)).toEqual({ ok: true, value: expected });
  });

  it.each<[string, ReaperNodeOptions, boolean]>([
    ['a Ready node without pressure is healthy', { name: 'n' }, false],
    ['explicit False pressure conditions are healthy', { name: 'n', conditions: { MemoryPressure: ['False', 60], DiskPressure: ['False', 60] } }, false],
    ['a cordoned node is unhealthy', { name: 'n', cordoned: true }, true],
    ['MemoryPressure True is unhealthy', { name: 'n', conditions: { MemoryPressure: ['True', 60] } }, true],
    ['DiskPressure Unknown is unhealthy', { name: 'n', conditions: { DiskPressure: ['Unknown', 60] } }, true],
    ['NotReady is unhealthy', { name: 'n', ready: 'False' }, true],
    ['OutOfDisk (gone since Kubernetes 1.13) is not consulted', { name: 'n', conditions: { OutOfDisk: ['True', 60] } }, false],
  ])('unhealthyPredicate: %s', (_rule, node, expected) => {
    expect(evaluate(DEFAULT_UNHEALTHY_PREDICATE, node)).toEqual({ ok: true, value: expected });
  });
});

describe('lookups over the Node', () => {
  const node: ReaperNodeOptions = {
    name: 'gpu-7',
    ready: 'False',
    zone: 'eu-west-1b',
    ageSeconds: 7200,
    labels: { 'kmaint.io/pool': 'gpu' },
    annotations: { 'example.com/owner': 'team-a' },
    conditions: { KernelDeadlock: ['True', 30] },
    providerID: 'aws:///eu-west-1b/i-0123456789abcdef0',
  };
  it.each<[string, unknown]>([
    ["labels['kmaint.io/pool'] == 'gpu'", { ok: true, value: true }],
    ["'kmaint.io/pool' in labels", { ok: true, value: true }],
    ["labels[?'missing'].orValue('none') == 'none'", { ok: true, value: true }],
    ["annotations['example.com/owner'] == 'team-a'", { ok: true, value: true }],
    ["conditions.KernelDeadlock == 'True' && conditions.Ready == 'False'", { ok: true, value: true }],
    ["has(conditions.MemoryPressure)", { ok: true, value: false }],
    ['ageSeconds == 7200', { ok: true, value: true }],
    ['ageSeconds > 3600 && !cordoned', { ok: true, value: true }],
    ["providerID.startsWith('aws://')", { ok: true, value: true }],
    ["providerID.re2Matches('^aws:///[a-z0-9-]+/i-[0-9a-f]+$')", { ok: true, value: true }],
    ["zone == 'eu-west-1b' && name == 'gpu-7'", { ok: true, value: true }],
    ["labels.exists(k, k.re2Matches('^kmaint\\\\.io/'))", { ok: true, value: true }],
    // Missing keys are evaluation errors (fail closed: the Node is not reaped, the guards count it unhealthy).
    ["labels['missing'] == 'x'", { ok: false, error: 'No such key: missing' }],
    ["conditions.MemoryPressure == 'True'", { ok: false, error: 'No such key: MemoryPressure' }],
  ])('%s', (source, expected) => {
    expect(evaluate(source, node)).toEqual(expected);
  });
});

describe('invalid expressions are refused when the config loads, with a one-line message', () => {
  it.each<[string, string, string]>([
    ['a syntax error', "conditions.Ready == 'False' &&", 'Unexpected token: EOF'],
    ['an unknown variable', "Cordoned == false", 'Unknown variable: Cordoned'],
    ['a type error', 'cordoned + 1', 'no such overload: bool + int'],
    ['a non-bool result', 'ageSeconds', 'the expression is of type int, expected bool'],
    ['an unknown function', "providerID.glob('aws*')", 'found no matching overload for \'string.glob(string)\''],
    [
      'matches (JavaScript regex engine, ReDoS)',
      "providerID.matches('^aws')",
      'matches() runs on the JavaScript regex engine, which user patterns can stall (ReDoS); use re2Matches() (RE2) instead (at column 1)',
    ],
    [
      'matches in its global form',
      "matches(name, 'x')",
      'matches() runs on the JavaScript regex engine, which user patterns can stall (ReDoS); use re2Matches() (RE2) instead (at column 1)',
    ],
    ['an RE2 pattern RE2 cannot compile (lookahead)', "name.re2Matches('(?=gpu)')", 're2Matches("(?=gpu)"): invalid RE2 pattern: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
  ])('%s', (_rule, source, error) => {
    expect(compilePredicate(source)).toEqual({ ok: false, error });
  });
});

describe('re2Matches on a catastrophic pattern', () => {
  // (a+)+$ makes a backtracking engine (V8's RegExp) try every split of the run of a's: seconds at 28 characters,
  // no answer at all at 50,000. RE2 scans the text once. How fast is a target of `npm run bench:unit-speed`
  // (issue 18), not an assertion here, so a loaded machine cannot fail this test.
  it.each([
    ['50,000 a\'s and a b: false', `${'a'.repeat(50_000)}b`, false],
    ['50,000 a\'s: true', 'a'.repeat(50_000), true],
  ])('(a+)+$ against %s', (_rule, name, expected) => {
    const p = compiled("name.re2Matches('(a+)+$')");
    const facts = nodeFacts(aReaperNode({ name: 'x' }), NOW, 'topology.kubernetes.io/zone');
    expect(p.evaluate({ ...facts, name })).toEqual({ ok: true, value: expected });
  });
});
