// podEvictionFilters are requestors' regexes run against every pod's resource names: invalid ones are named, and a
// catastrophic one is answered by RE2 (linear), so no request can stall a pass.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { compileEvictionFilters, passesEvictionFilters } from './eviction-filters.ts';

const podRequesting = (resource: string): V1Pod => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', resources: { requests: { [resource]: '1' } } }] } });

describe('compileEvictionFilters', () => {
  it.each([
    ['an unclosed group', 'nvidia.com/gpu-(', 'drainSpec.podEvictionFilters[0].byResourceNameRegex "nvidia.com/gpu-(" is not a valid RE2 expression (error parsing regexp: missing closing ): `nvidia.com/gpu-(`); the entry matches no pod'],
    ['a backreference (not RE2)', '(a)\\1', 'drainSpec.podEvictionFilters[0].byResourceNameRegex "(a)\\\\1" is not a valid RE2 expression (error parsing regexp: invalid escape sequence: `\\1`); the entry matches no pod'],
    ['a lookahead (not RE2)', 'gpu(?=x)', 'drainSpec.podEvictionFilters[0].byResourceNameRegex "gpu(?=x)" is not a valid RE2 expression (error parsing regexp: invalid or unsupported Perl syntax: `(?=`); the entry matches no pod'],
  ])('%s is named and matches nothing', (_name, regex, problem) => {
    const filters = compileEvictionFilters([{ byResourceNameRegex: regex }]);
    expect(filters.problems).toEqual([problem]);
    expect(passesEvictionFilters(podRequesting('nvidia.com/gpu-('), filters)).toBe(false);
  });
});

describe('a catastrophic regex against a 50,000-character resource name', () => {
  // (a+)+$ on "aaa…a!" makes a backtracking engine (V8's RegExp, PCRE) try every way to split the run of a's: 2^n
  // paths, already seconds at n = 30, so it would not answer at all here. RE2 scans the text once. How fast is a
  // target of `npm run bench:unit-speed` (issue 18), not an assertion here, so a loaded machine cannot fail this test.
  const filters = compileEvictionFilters([{ byResourceNameRegex: '(a+)+$' }]);

  it.each([
    ['does not match', `example.com/${'a'.repeat(50_000)}!`, false],
    ['matches', `example.com/${'a'.repeat(50_000)}`, true],
  ])('%s', (_name, resource, expected) => {
    expect(filters.problems).toEqual([]);
    expect(passesEvictionFilters(podRequesting(resource), filters)).toBe(expected);
  });
});
