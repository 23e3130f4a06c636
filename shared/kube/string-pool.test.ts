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
});
