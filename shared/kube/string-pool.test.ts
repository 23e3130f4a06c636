import { describe, expect, it } from 'vitest';
import { StringPool } from './string-pool.ts';

describe('StringPool', () => {
  it.each([
    { name: 'equal strings are one entry', input: ['True', 'True', 'False'], size: 2 },
    { name: 'strings of 256 characters are pooled', input: ['a'.repeat(256), 'a'.repeat(256)], size: 1 },
    { name: 'longer strings are passed through, not held', input: ['a'.repeat(257), 'a'.repeat(257)], size: 0 },
    { name: 'the empty string is a string like any other', input: ['', ''], size: 1 },
  ])('$name', ({ input, size }) => {
    const pool = new StringPool();
    expect(input.map((s) => pool.intern(s))).toEqual(input);
    expect(pool.size).toBe(size);
  });

  it('internValues keeps keys and values', () => {
    const pool = new StringPool();
    expect(pool.internValues({ a: 'x', b: 'x', c: 'y' })).toEqual({ a: 'x', b: 'x', c: 'y' });
    expect(pool.size).toBe(2);
  });

  it('internValues returns a copy in the same key order and leaves its input as it was', () => {
    const pool = new StringPool();
    const input = { z: 'v', a: 'w', m: 'v' };
    const out = pool.internValues(input);
    expect(Object.entries(out)).toEqual([['z', 'v'], ['a', 'w'], ['m', 'v']]);
    expect(out).not.toBe(input);
    out.z = 'changed';
    expect(input).toEqual({ z: 'v', a: 'w', m: 'v' });
  });

  it.each([
    { name: 'the same text is one Date', input: ['2026-11-22T08:00:00Z', '2026-11-22T08:00:00Z'], distinct: 1, same: true },
    { name: 'two instants are two Dates', input: ['2026-11-22T08:00:00Z', '2026-11-22T08:00:01Z'], distinct: 2, same: false },
    // Keyed by text, not by instant: the API server always writes one form, and a second Date costs only memory.
    { name: 'two texts of one instant are two Dates of equal time', input: ['2026-11-22T08:00:00Z', '2026-11-22T08:00:00.000Z'], distinct: 2, same: false },
  ])('instant: $name', ({ input, distinct, same }) => {
    const pool = new StringPool();
    const [a, b] = input.map((s) => pool.instant(s));
    expect([a?.toISOString(), b?.toISOString()]).toEqual(input.map((s) => new Date(s).toISOString()));
    expect(a === b).toBe(same);
    expect(pool.instantCount).toBe(distinct);
    expect(pool.size).toBe(0);
  });

  it('instantAt: one Date an instant, counted with the instants of text', () => {
    const pool = new StringPool();
    const a = pool.instantAt(Date.parse('2026-11-22T08:00:00Z'));
    expect(pool.instantAt(Date.parse('2026-11-22T08:00:00Z'))).toBe(a);
    expect(pool.instantAt(0)).toStrictEqual(new Date(0));
    expect(a.toISOString()).toBe('2026-11-22T08:00:00.000Z');
    expect(pool.instantCount).toBe(2);
  });

  it('internRecord: a copy with the pool\'s values in the same key order, whatever order the keys came in', () => {
    const pool = new StringPool();
    const first: Record<string, string> = {};
    for (const [k, v] of [['z', 'v'], ['a', 'w'], ['m', 'v']] as const) first[k] = v;
    const out = pool.internRecord(first);
    const again = pool.internRecord({ z: 'x', a: 'w', m: 'v' });
    const reordered = pool.internRecord({ a: 'w', z: 'v' });
    expect(Object.entries(out)).toEqual([['z', 'v'], ['a', 'w'], ['m', 'v']]);
    expect(Object.entries(again)).toEqual([['z', 'x'], ['a', 'w'], ['m', 'v']]);
    expect(Object.entries(reordered)).toEqual([['a', 'w'], ['z', 'v']]);
    expect(out).not.toBe(first);
    out['z'] = 'changed';
    expect(again['z']).toBe('x');
    expect(first).toStrictEqual({ z: 'v', a: 'w', m: 'v' });
    expect(pool.size).toBe(3);
  });
});
