import { describe, expect, it } from 'vitest';
import type { V1LabelSelector } from '@kubernetes/client-node';
import { formatLabelSelector, matchesLabels } from './label-selector.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from './selector-object.ts';

describe('labelSelectorFromObject builds what LabelSelectorAsSelector builds', () => {
  it.each<[string, LabelSelectorObject, string]>([
    ['empty object selects everything', {}, ''],
    ['empty parts select everything', { matchLabels: {}, matchExpressions: [] }, ''],
    ['matchLabels become equality, sorted by key', { matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }, 'tier in (api,web)'],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, 'tier notin (db)'],
    ['Exists', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, 'gpu'],
    ['DoesNotExist with an empty values list', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist', values: [] }] }, '!gpu'],
    [
      'both parts together',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'example.com/zone', operator: 'In', values: ['a'] }] },
      'app=web,example.com/zone in (a)',
    ],
  ])('%s', (_rule, object, expected) => {
    const result = labelSelectorFromObject(object);
    expect(result.ok && formatLabelSelector(result.selector)).toBe(expected);
  });

  it.each<[string, LabelSelectorObject, string]>([
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      'matchExpressions[0]: "Gt" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)',
    ],
    [
      'operator names are case-sensitive',
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['1'] }] },
      'matchExpressions[0]: "in" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)',
    ],
    [
      'an Object.prototype member is not an operator',
      { matchExpressions: [{ key: 'a', operator: 'toString' }] },
      'matchExpressions[0]: "toString" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)',
    ],
    ['In needs values', { matchExpressions: [{ key: 'a', operator: 'In' }] }, 'matchExpressions[0]: key "a": operator in needs at least one value'],
    [
      'Exists takes no values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'matchExpressions[0]: key "a": operator Exists takes no values',
    ],
    [
      'DoesNotExist takes no values',
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      'matchExpressions[0]: key "a": operator DoesNotExist takes no values',
    ],
    [
      'bad key in matchLabels',
      { matchLabels: { 'a b': 'x' } },
      'matchLabels["a b"]: invalid label key "a b": name part "a b" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')',
    ],
    [
      'bad value in matchLabels',
      { matchLabels: { a: 'x y' } },
      'matchLabels["a"]: invalid value "x y" for label key "a": must be empty or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\', \'12345\')',
    ],
    [
      'index of the failing expression',
      { matchExpressions: [{ key: 'ok', operator: 'Exists' }, { key: 'b', operator: 'NotIn', values: ['-x'] }] },
      'matchExpressions[1]: invalid value "-x" for label key "b": must be empty or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\', \'12345\')',
    ],
  ])('rejects: %s', (_rule, object, detail) => {
    expect(labelSelectorFromObject(object)).toEqual({ ok: false, error: `invalid label selector: ${detail}` });
  });

  it('matches like the equivalent string selector', () => {
    const result = labelSelectorFromObject({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] });
    if (!result.ok) throw new Error(result.error);
    const labelSets: Array<Record<string, string>> = [{ app: 'web' }, { app: 'web', gpu: '1' }, { app: 'db' }];
    expect(labelSets.map((labels) => matchesLabels(result.selector, labels))).toEqual([true, false, false]);
  });

  it("accepts client-node's V1LabelSelector without a cast", () => {
    const pdbSelector: V1LabelSelector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] };
    const result = labelSelectorFromObject(pdbSelector);
    expect(result.ok && formatLabelSelector(result.selector)).toBe('app=web,tier notin (db)');
  });
});
