import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['2', 2000],
    ['1.5s', 1500],
  ])('%s -> %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  it.each(['', 'abc', '-1s', '5d'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
  });
});
