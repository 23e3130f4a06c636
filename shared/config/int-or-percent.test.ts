// Table tests for resolveIntOrPercent: plain integers, percentages rounded both ways, and every kind of invalid value.
import { describe, expect, it } from 'vitest';
import { resolveIntOrPercent } from './int-or-percent.ts';

describe('resolveIntOrPercent', () => {
  it.each([
    { rule: 'an integer is taken as is', value: 3, total: 10, up: 3, down: 3 },
    { rule: 'an integer may exceed the total', value: 50, total: 10, up: 50, down: 50 },
    { rule: 'zero is zero', value: 0, total: 10, up: 0, down: 0 },
    { rule: '25% of 10 is 2.5', value: '25%', total: 10, up: 3, down: 2 },
    { rule: '1% of 10 is 0.1', value: '1%', total: 10, up: 1, down: 0 },
    { rule: '99% of 10 is 9.9', value: '99%', total: 10, up: 10, down: 9 },
    { rule: '50% of 3 is 1.5', value: '50%', total: 3, up: 2, down: 1 },
    { rule: 'an exact percentage needs no rounding', value: '20%', total: 10, up: 2, down: 2 },
    { rule: '0% is zero', value: '0%', total: 10, up: 0, down: 0 },
    { rule: '100% is the total', value: '100%', total: 7, up: 7, down: 7 },
    { rule: 'above 100% is allowed', value: '150%', total: 10, up: 15, down: 15 },
    { rule: 'a percentage of no nodes is zero', value: '50%', total: 0, up: 0, down: 0 },
    { rule: 'leading zeros are read as decimal', value: '07%', total: 100, up: 7, down: 7 },
    { rule: 'one node in a large cluster', value: '1%', total: 1001, up: 11, down: 10 },
  ])('$rule: $value of $total is $up rounded up, $down rounded down', ({ value, total, up, down }) => {
    expect(resolveIntOrPercent(value, total, 'up')).toEqual({ ok: true, value: up });
    expect(resolveIntOrPercent(value, total, 'down')).toEqual({ ok: true, value: down });
  });

  it.each([
    { value: 'abc%', total: 10, error: '"abc%" is not an integer or a percentage' },
    { value: 'abc', total: 10, error: '"abc" is not an integer or a percentage' },
    { value: '', total: 10, error: '"" is not an integer or a percentage' },
    { value: '%', total: 10, error: '"%" is not an integer or a percentage' },
    { value: '1.5%', total: 10, error: '"1.5%" is not an integer or a percentage' },
    { value: ' 5%', total: 10, error: '" 5%" is not an integer or a percentage' },
    { value: '-5%', total: 10, error: '"-5%" is a negative percentage; use 0% or more' },
    { value: '5', total: 10, error: '"5" is a string without a % sign; write 5 or "5%"' },
    { value: '-1', total: 10, error: '"-1" is not an integer or a percentage' },
    { value: -1, total: 10, error: '-1 is negative; use 0 or more' },
    { value: 1.5, total: 10, error: '1.5 is not a whole number' },
    { value: Number.NaN, total: 10, error: 'NaN is not a whole number' },
    { value: '99999999999999999%', total: 10, error: '"99999999999999999%" is too large' },
    { value: 1, total: -1, error: 'total -1 is not a count (a whole number >= 0)' },
  ])('$value of $total is refused: $error', ({ value, total, error }) => {
    expect(resolveIntOrPercent(value, total, 'up')).toEqual({ ok: false, error });
    expect(resolveIntOrPercent(value, total, 'down')).toEqual({ ok: false, error });
  });
});
