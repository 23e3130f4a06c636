// KMAINT_LIST_PAGE_SIZE and the page size a KubeClient is built with: an integer from 1 to 10,000, anything else
// refused with one line naming the setting, at the client's build.
import { describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { listPageSizeFrom, parseListPageSize } from './list-page-size.ts';
import type { KubeTransport, ListQuery } from './transport.ts';

describe('listPageSizeFrom', () => {
  it.each([
    { rule: 'unset is 500', env: {}, expected: 500 },
    { rule: 'empty is 500 (serverless.yml passes an unset parameter as "")', env: { KMAINT_LIST_PAGE_SIZE: '' }, expected: 500 },
    { rule: 'a valid size', env: { KMAINT_LIST_PAGE_SIZE: '2000' }, expected: 2000 },
    { rule: 'the smallest', env: { KMAINT_LIST_PAGE_SIZE: '1' }, expected: 1 },
    { rule: 'the largest', env: { KMAINT_LIST_PAGE_SIZE: '10000' }, expected: 10_000 },
    { rule: 'blanks around it do not matter', env: { KMAINT_LIST_PAGE_SIZE: ' 750 ' }, expected: 750 },
  ])('$rule', ({ env, expected }) => {
    expect(listPageSizeFrom(env)).toBe(expected);
  });

  it.each([
    { rule: 'zero', raw: '0' },
    { rule: 'negative', raw: '-1' },
    { rule: 'not a number', raw: 'abc' },
    { rule: 'over 10,000', raw: '10001' },
    { rule: 'a fraction', raw: '2.5' },
    { rule: 'an exponent', raw: '1e3' },
  ])('refuses $rule with one line naming the variable', ({ raw }) => {
    expect(() => listPageSizeFrom({ KMAINT_LIST_PAGE_SIZE: raw })).toThrow(`KMAINT_LIST_PAGE_SIZE must be an integer from 1 to 10000, got "${raw}"`);
  });

  it('names the flag it parses for', () => {
    expect(() => parseListPageSize('0', '--page-size')).toThrow('--page-size must be an integer from 1 to 10000, got "0"');
  });
});

describe('KubeClient page size', () => {
  const limits: number[] = [];
  const transport = { listPage: (_r: unknown, q: ListQuery) => (limits.push(q.limit), Promise.resolve({ items: [] })) } as unknown as KubeTransport;

  it('asks each LIST page with the size it was built with', async () => {
    limits.length = 0;
    await new KubeClient(transport, { pageSize: 2000 }).listNodes();
    expect(limits).toEqual([2000]);
  });

  it('refuses a size out of range when it is built', () => {
    expect(() => new KubeClient(transport, { pageSize: 0 })).toThrow('pageSize must be an integer from 1 to 10000, got "0"');
    expect(() => new KubeClient(transport, { pageSize: 10_001 })).toThrow('pageSize must be an integer from 1 to 10000, got "10001"');
  });
});
