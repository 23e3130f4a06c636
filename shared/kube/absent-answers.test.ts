// A 404 that answers the question asked is not an API error (issue 42): a GET of an object that may be absent (the
// medik8s-leases namespace on a cluster without medik8s, the config, a lease) and a LIST of a resource.k8s.io version
// the API server does not serve. Each is counted as a request, not in counts.errors (the summary's apiErrors and
// kmaint_last_run_api_errors); every other failure still is. On a loopback server answering as the API server does.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient, RequestCounts } from './client.ts';
import { aLoopbackClient } from './test-builders.ts';

/** The API server's Status for a missing object. */
const notFound = (what: string): string => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${what} not found` });

describe('KubeClient counts a 404 that answers "absent" as a request, not an API error', () => {
  let server: Server;
  /** path → [status, body] the server answers; anything else is a 404 page, as for an unserved group version. */
  let answers: Record<string, [number, string]> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const [status, body] = answers[path] ?? [404, '404 page not found\n'];
      res.writeHead(status, { 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain; charset=utf-8' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const forbidden = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'forbidden' });

  it.each<{ rule: string; serve: Record<string, [number, string]>; ask: (c: KubeClient) => Promise<unknown>; answer: unknown; counts: RequestCounts }>([
    {
      rule: 'no medik8s: GET namespaces/medik8s-leases answers 404, the namespace is absent',
      serve: { '/api/v1/namespaces/medik8s-leases': [404, notFound('namespaces "medik8s-leases"')] },
      ask: (c) => c.namespaceExists('medik8s-leases'),
      answer: false,
      counts: { byVerb: { 'get namespaces': 1 }, errors: 0, errorsByVerb: {}, retries: 0 },
    },
    {
      rule: 'no config: GET maintenanceoperatorconfigs/default answers 404, undefined',
      serve: {},
      ask: (c) => c.getConfig('kmaint'),
      answer: undefined,
      counts: { byVerb: { 'get maintenanceoperatorconfigs': 1 }, errors: 0, errorsByVerb: {}, retries: 0 },
    },
    {
      rule: 'DRA off: every resource.k8s.io version answers 404, no claims',
      serve: {},
      ask: (c) => c.listResourceClaims(),
      answer: [],
      counts: { byVerb: { 'list resourceclaims': 3 }, errors: 0, errorsByVerb: {}, retries: 0 },
    },
    {
      rule: 'a 403 on a GET is still an API error (and thrown)',
      serve: { '/api/v1/namespaces/medik8s-leases': [403, forbidden] },
      ask: (c) => c.namespaceExists('medik8s-leases').catch((err: unknown) => (err as Error).name),
      answer: 'KubeRequestError',
      counts: { byVerb: { 'get namespaces': 1 }, errors: 1, errorsByVerb: { 'get namespaces': 1 }, retries: 0 },
    },
    {
      rule: 'a 404 on a LIST kmaint needs (nodes) is still an API error (and thrown)',
      serve: {},
      ask: (c) => c.listNodes().catch((err: unknown) => (err as Error).name),
      answer: 'KubeRequestError',
      counts: { byVerb: { 'list nodes': 1 }, errors: 1, errorsByVerb: { 'list nodes': 1 }, retries: 0 },
    },
  ])('$rule', async ({ serve, ask, answer, counts }) => {
    answers = serve;
    const c = aLoopbackClient(server, { pageSize: 500 });
    expect(await ask(c)).toEqual(answer);
    expect(c.counts).toEqual(counts);
  });
});
