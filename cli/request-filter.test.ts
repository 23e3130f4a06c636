// -n, -A, -l and --node as kubectl reads them: which requests each keeps, and each refusal with its one line.
import { describe, expect, it } from 'vitest';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { exitCodeOf } from './errors.ts';
import { requestFilter, requestMatches, type RequestFilterFlags } from './request-filter.ts';
import { filterText } from './status.ts';

const REQUESTS = [
  aMaintenance({ name: 'fw', namespace: 'team-a', nodeName: 'n1', labels: { kind: 'firmware', tier: 'gpu' } }),
  aMaintenance({ name: 'os', namespace: 'team-a', nodeName: 'n2', labels: { kind: 'os' } }),
  aMaintenance({ name: 'fw', namespace: 'team-b', nodeName: 'n1', labels: { kind: 'firmware' } }),
  aMaintenance({ name: 'bare', namespace: 'team-b', nodeName: 'n3' }),
];

describe('requestFilter + requestMatches', () => {
  it.each<[string, RequestFilterFlags, string[], string]>([
    ['no flags: every namespace (the default)', {}, ['team-a/fw', 'team-a/os', 'team-b/fw', 'team-b/bare'], ''],
    ['-A: every namespace', { allNamespaces: true }, ['team-a/fw', 'team-a/os', 'team-b/fw', 'team-b/bare'], ''],
    ['-n: one namespace', { namespace: 'team-b' }, ['team-b/fw', 'team-b/bare'], ' in namespace team-b'],
    ['-l equality on the request labels', { selector: 'kind=firmware' }, ['team-a/fw', 'team-b/fw'], ' with labels kind=firmware'],
    ['-l set-based and negation: a request without the label matches !=', { selector: 'kind notin (os),tier!=gpu' }, ['team-b/fw', 'team-b/bare'], ' with labels kind notin (os),tier!=gpu'],
    ['-l existence', { selector: 'tier' }, ['team-a/fw'], ' with labels tier'],
    ['--node', { node: 'n1' }, ['team-a/fw', 'team-b/fw'], ' on node n1'],
    ['all of them at once', { namespace: 'team-a', node: 'n1', selector: 'kind=firmware' }, ['team-a/fw'], ' in namespace team-a, on node n1, with labels kind=firmware'],
    ['a namespace with no requests', { namespace: 'nobody' }, [], ' in namespace nobody'],
  ])('%s', (_rule, flags, kept, text) => {
    const filter = requestFilter(flags);
    expect(REQUESTS.filter((nm) => requestMatches(filter, nm)).map((nm) => `${nm.metadata.namespace}/${nm.metadata.name}`)).toEqual(kept);
    expect(filterText(filter)).toBe(text);
  });

  it.each<[RequestFilterFlags, string]>([
    [{ namespace: 'a', allNamespaces: true }, '-n/--namespace and -A/--all-namespaces exclude each other'],
    [{ namespace: '' }, '-n/--namespace needs a namespace'],
    [{ node: '' }, '--node needs a node name'],
    [{ selector: 'a in' }, `-l/--selector: invalid label selector "a in": found end of string at column 5, expected '('`],
  ])('refuses %j with exit 2', (flags, message) => {
    let err: unknown;
    try {
      requestFilter(flags);
    } catch (e) {
      err = e;
    }
    expect([(err as Error).message, exitCodeOf(err)]).toEqual([message, 2]);
  });
});
