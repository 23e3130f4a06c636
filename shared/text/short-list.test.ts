import { describe, expect, it } from 'vitest';
import { shortList } from './short-list.ts';

describe('shortList', () => {
  it.each<[string, string[], number, string | undefined, string]>([
    ['no items: empty', [], 3, undefined, ''],
    ['up to max: all, joined', ['a', 'b', 'c'], 3, undefined, 'a, b, c'],
    ['one over: the first max and 1 more', ['a', 'b', 'c', 'd'], 3, undefined, 'a, b, c and 1 more'],
    ['max 2 of 5', ['a', 'b', 'c', 'd', 'e'], 2, undefined, 'a, b and 3 more'],
    ['another separator also stands before "and"', ['x, y', 'z', 'w', 'v'], 3, '; ', 'x, y; z; w; and 1 more'],
    ['another separator, all shown', ['p', 'q'], 3, '; ', 'p; q'],
  ])('%s', (_row, items, max, separator, expected) => {
    expect(shortList(items, max, separator)).toBe(expected);
  });
});
