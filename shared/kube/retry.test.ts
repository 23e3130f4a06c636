import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, isRetryable, retryDelayMs } from './retry.ts';

describe('retryDelayMs', () => {
  it.each([
    { name: 'first retry, no jitter', attempt: 1, retryAfter: undefined, jitter: 0, expected: 100 },
    { name: 'first retry, full jitter', attempt: 1, retryAfter: undefined, jitter: 0.999999, expected: 200 },
    { name: 'third retry doubles twice', attempt: 3, retryAfter: undefined, jitter: 0.999999, expected: 800 },
    { name: 'capped at maxDelayMs', attempt: 10, retryAfter: undefined, jitter: 0.999999, expected: 5000 },
    { name: 'Retry-After wins', attempt: 1, retryAfter: '2', jitter: 0, expected: 2000 },
    { name: 'Retry-After capped', attempt: 1, retryAfter: '60', jitter: 0, expected: 5000 },
    { name: 'bad Retry-After falls back to backoff', attempt: 2, retryAfter: 'soon', jitter: 0, expected: 200 },
  ])('$name', ({ attempt, retryAfter, jitter, expected }) => {
    expect(retryDelayMs(attempt, DEFAULT_RETRY, retryAfter, jitter)).toBe(expected);
  });
});

describe('isRetryable', () => {
  it.each([
    [0, true],
    [429, true],
    [500, true],
    [503, true],
    [409, false],
    [404, false],
    [422, false],
    [403, false],
  ])('status %i -> %s', (status, expected) => {
    expect(isRetryable(status)).toBe(expected);
  });
});
