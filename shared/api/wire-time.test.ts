import { describe, expect, it } from 'vitest';
import { microTime, rfc3339Seconds } from './wire-time.ts';

describe('wire times', () => {
  it.each<[string, Date | number, string]>([
    ['a Date with milliseconds: the fraction dropped', new Date('2026-01-01T10:00:05.987Z'), '2026-01-01T10:00:05Z'],
    ['epoch ms: the same', Date.parse('2026-01-01T10:00:05.987Z'), '2026-01-01T10:00:05Z'],
    ['whole seconds', 0, '1970-01-01T00:00:00Z'],
    ['Slurm unix seconds × 1000', 1_767_225_600 * 1000, '2026-01-01T00:00:00Z'],
  ])('rfc3339Seconds: %s', (_row, at, expected) => {
    expect(rfc3339Seconds(at)).toBe(expected);
  });

  it('microTime pads the milliseconds to microseconds', () => {
    expect(microTime(new Date('2026-01-01T10:00:05.987Z'))).toBe('2026-01-01T10:00:05.987000Z');
    expect(microTime(new Date('2026-01-01T10:00:05Z'))).toBe('2026-01-01T10:00:05.000000Z');
  });
});
