// Required node affinity as the NodeAffinity filter evaluates it: each operator, fields, and invalid terms.
import type { V1NodeSelectorTerm } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { matchesNodeSelectorAndAffinity } from './node-affinity.ts';

const NODE = { metadata: { name: 'gpu-1', labels: { pool: 'gpu', gpus: '8', zone: 'a' } } };
const withTerms = (...nodeSelectorTerms: V1NodeSelectorTerm[]) => ({ containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } } });
const expr = (key: string, operator: string, values?: string[]): V1NodeSelectorTerm => ({ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] });

describe('matchesNodeSelectorAndAffinity', () => {
  it.each<[string, V1NodeSelectorTerm[], boolean]>([
    ['In a listed value', [expr('pool', 'In', ['cpu', 'gpu'])], true],
    ['In no listed value', [expr('pool', 'In', ['cpu'])], false],
    ['NotIn on an absent label', [expr('rack', 'NotIn', ['r1'])], true],
    ['NotIn with no values is invalid and matches nothing', [expr('pool', 'NotIn', [])], false],
    ['Exists', [expr('gpus', 'Exists')], true],
    ['DoesNotExist', [expr('gpus', 'DoesNotExist')], false],
    ['Gt compares integers', [expr('gpus', 'Gt', ['4'])], true],
    ['Lt compares integers', [expr('gpus', 'Lt', ['4'])], false],
    ['Gt against a label that is no integer', [expr('zone', 'Gt', ['1'])], false],
    ['Gt with a bound that is no integer is invalid', [expr('gpus', 'Gt', ['x'])], false],
    ['an unknown operator is invalid', [expr('pool', 'Like', ['gpu'])], false],
    ['metadata.name field', [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['gpu-1'] }] }], true],
    ['another field is not supported', [{ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['x'] }] }], false],
    ['an empty term matches nothing', [{}], false],
    ['any term of several', [expr('pool', 'In', ['cpu']), expr('zone', 'In', ['a'])], true],
    ['every expression of a term', [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['gpu'] }, { key: 'zone', operator: 'In', values: ['b'] }] }], false],
  ])('%s', (_rule, terms, expected) => {
    expect(matchesNodeSelectorAndAffinity(withTerms(...terms), NODE)).toBe(expected);
  });

  it('needs every nodeSelector label before the terms', () => {
    expect([matchesNodeSelectorAndAffinity({ containers: [], nodeSelector: { pool: 'gpu' } }, NODE), matchesNodeSelectorAndAffinity({ ...withTerms(expr('zone', 'In', ['a'])), nodeSelector: { pool: 'cpu' } }, NODE)]).toEqual([true, false]);
  });
});
