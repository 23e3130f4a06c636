import { describe, expect, it } from 'vitest';
import { errorMessage } from './message.ts';

class AccessDenied extends Error {
  override name = 'AccessDeniedException';
}

describe('errorMessage', () => {
  const failed = new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
  const denied = new AccessDenied('not allowed');
  denied.stack = 'AccessDeniedException: not allowed\n    at somewhere';
  it.each<[string, unknown, Parameters<typeof errorMessage>[1], string]>([
    ['an Error: its message', denied, undefined, 'not allowed'],
    ['a string thrown: itself', 'plain text', undefined, 'plain text'],
    ['an object thrown: String() of it', { code: 7 }, undefined, '[object Object]'],
    ['name: the name first', denied, { name: true }, 'AccessDeniedException: not allowed'],
    ['stack: the stack', denied, { stack: true }, 'AccessDeniedException: not allowed\n    at somewhere'],
    ['cause: the cause after the message', failed, { cause: true }, 'fetch failed: connect ECONNREFUSED 127.0.0.1:1'],
    ['cause without one: the message alone', denied, { cause: true }, 'not allowed'],
    ['options on a non-Error: String() of it', 42, { name: true, cause: true }, '42'],
  ])('%s', (_row, err, opts, expected) => {
    expect(errorMessage(err, opts)).toBe(expected);
  });
});
