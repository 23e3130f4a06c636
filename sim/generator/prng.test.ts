import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed } from './prng.ts';

describe('createRng', () => {
  it('repeats for a seed and differs across seeds', () => {
    const draw = (seed: number) => {
      const r = createRng(seed);
      return Array.from({ length: 8 }, () => r.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('int stays in its closed range and reaches both ends', () => {
    const r = createRng(1);
    const seen = new Set(Array.from({ length: 500 }, () => r.int(2, 5)));
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
  });

  it('hex gives the asked length of hex digits', () => {
    expect(createRng(9).hex(17)).toMatch(/^[0-9a-f]{17}$/);
  });

  it('pick refuses an empty array', () => expect(() => createRng(1).pick([])).toThrow(RangeError));

  it('deriveSeed separates purposes and seeds', () => {
    expect(deriveSeed(1, 'nodes')).not.toBe(deriveSeed(1, 'workloads'));
    expect(deriveSeed(1, 'nodes')).not.toBe(deriveSeed(2, 'nodes'));
    expect(deriveSeed(1, 'nodes')).toBe(deriveSeed(1, 'nodes'));
  });
});
