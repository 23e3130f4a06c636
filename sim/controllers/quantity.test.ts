import { describe, expect, it } from 'vitest';
import { parseQuantity } from './quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['100m', 0.1],
    ['2', 2],
    ['1.5', 1.5],
    ['16Mi', 16 * 2 ** 20],
    ['1152Gi', 1152 * 2 ** 30],
    ['104857600Ki', 104857600 * 1024],
    ['1k', 1000],
    ['2e3', 2000],
    ['500u', 0.0005],
    ['110', 110],
  ])('%s is %d base units', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it.each(['', 'abc', '1Qi', '--1', '1 Mi'])('"%s" is not a quantity', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});
