import { describe, expect, it } from 'vitest';
import { UPSTREAM_OWN_POD_SELECTOR } from '#api';
import { EVERYTHING, and, formatLabelSelector, matchesLabels, type LabelSelector } from './label-selector.ts';
import { parseLabelSelector } from './parse-label-selector.ts';

function parsed(text: string): LabelSelector {
  const result = parseLabelSelector(text);
  if (!result.ok) throw new Error(result.error);
  return result.selector;
}

describe('matchesLabels follows Requirement.Matches', () => {
  it.each<[string, string, Record<string, string> | undefined, boolean]>([
    ['empty selector matches no labels', '', undefined, true],
    ['empty selector matches any labels', '', { a: '1' }, true],
    ['= matches the value', 'app=web', { app: 'web' }, true],
    ['= rejects another value', 'app=web', { app: 'api' }, false],
    ['= rejects a missing key', 'app=web', {}, false],
    ['== behaves like =', 'app==web', { app: 'web' }, true],
    ['!= rejects the value', 'app!=web', { app: 'web' }, false],
    ['!= accepts another value', 'app!=web', { app: 'api' }, true],
    ['!= accepts a missing key', 'app!=web', {}, true],
    ['= with empty value matches an empty label', 'app=', { app: '' }, true],
    ['= with empty value rejects a missing key', 'app=', {}, false],
    ['in matches a member', 'tier in (a,b)', { tier: 'b' }, true],
    ['in rejects a non-member', 'tier in (a,b)', { tier: 'c' }, false],
    ['in rejects a missing key', 'tier in (a,b)', {}, false],
    ['notin rejects a member', 'tier notin (a,b)', { tier: 'a' }, false],
    ['notin accepts a non-member', 'tier notin (a,b)', { tier: 'c' }, true],
    ['notin accepts a missing key', 'tier notin (a,b)', {}, true],
    ['exists with an empty value', 'gpu', { gpu: '' }, true],
    ['exists rejects a missing key', 'gpu', { cpu: '1' }, false],
    ['!key accepts a missing key', '!gpu', { cpu: '1' }, true],
    ['!key rejects a present key', '!gpu', { gpu: '' }, false],
    ['gt compares as integers, not strings', 'rank>9', { rank: '10' }, true],
    ['gt is strict', 'rank>10', { rank: '10' }, false],
    ['lt compares as integers', 'rank<10', { rank: '9' }, true],
    ['gt rejects a non-integer label', 'rank>1', { rank: 'high' }, false],
    ['gt rejects a missing key', 'rank>1', {}, false],
    ['gt beyond 2^53 keeps precision', 'big>9007199254740992', { big: '9007199254740993' }, true],
    ['all requirements must hold', 'a=1,b=2', { a: '1', b: '3' }, false],
    ['all requirements hold', 'a=1,b=2', { a: '1', b: '2', c: '3' }, true],
    ['a key named like an Object.prototype member is absent', 'constructor', {}, false],
    ['!constructor on empty labels', '!constructor', {}, true],
    ['prefixed keys compare whole', 'example.com/a=1', { a: '1' }, false],
    ['upstream implicit selector keeps ordinary pods', UPSTREAM_OWN_POD_SELECTOR, { app: 'web' }, true],
    [
      'upstream implicit selector drops the operator pod',
      UPSTREAM_OWN_POD_SELECTOR,
      { 'app.kubernetes.io/component': 'maintenance-operator-controller-manager' },
      false,
    ],
    ['upstream implicit selector keeps other components', UPSTREAM_OWN_POD_SELECTOR, { 'app.kubernetes.io/component': 'webhook' }, true],
  ])('%s', (_rule, text, labels, expected) => {
    expect(matchesLabels(parsed(text), labels)).toBe(expected);
  });
});

describe('and combines selectors', () => {
  it('with no argument matches everything', () => {
    expect(and()).toEqual(EVERYTHING);
  });

  it('keeps every requirement, sorted by key', () => {
    expect(formatLabelSelector(and(parsed('z=1'), parsed(UPSTREAM_OWN_POD_SELECTOR), parsed('a in (x)')))).toBe(
      `a in (x),${UPSTREAM_OWN_POD_SELECTOR},z=1`,
    );
  });

  it.each<[Record<string, string>, boolean]>([
    [{ app: 'web' }, true],
    [{ app: 'web', 'app.kubernetes.io/component': 'maintenance-operator-controller-manager' }, false],
    [{ app: 'db' }, false],
  ])('upstream implicit AND app=web on %j -> %s', (labels, expected) => {
    expect(matchesLabels(and(parsed(UPSTREAM_OWN_POD_SELECTOR), parsed('app=web')), labels)).toBe(expected);
  });
});
