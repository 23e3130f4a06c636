import { describe, expect, it } from 'vitest';
import { SelectorOverrides, matchesPod, parsePodSelector } from './pod-selector.ts';

const pod = { namespace: 'web', name: 'frontend-abc', labels: { 'app.kubernetes.io/name': 'frontend', tier: 'web' } };

describe('matchesPod', () => {
  it.each([
    ['web/frontend-abc', true],
    ['web/other', false],
    ['tier=web', true],
    ['tier=web,app.kubernetes.io/name=frontend', true],
    ['tier=db', false],
    [{ namespace: 'web' }, true],
    [{ namespace: 'data', matchLabels: { tier: 'web' } }, false],
  ] as const)('%j matches: %s', (selector, expected) => {
    expect(matchesPod(parsePodSelector(selector), pod)).toBe(expected);
  });
});

describe('SelectorOverrides', () => {
  it('the last matching entry wins', () => {
    const o = new SelectorOverrides<number>();
    o.add(parsePodSelector({ namespace: 'web' }), 10);
    o.add(parsePodSelector('tier=web'), 20);
    o.add(parsePodSelector('tier=db'), 30);
    expect(o.lookup(pod)).toBe(20);
    expect(o.lookup({ ...pod, namespace: 'x', labels: {} })).toBeUndefined();
  });
});
