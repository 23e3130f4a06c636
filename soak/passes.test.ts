// Which thrown passes the soak counts as having given up (a request failed transiently on every attempt) rather than as
// violations: decided on what a real pass throws against the simulated API server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass } from '../shared/pass/index.ts';
import { startSimApiServer, type SimApiServer } from '../sim/apiserver/index.ts';
import { exhaustedRetries } from './passes.ts';

let server: SimApiServer;
beforeAll(async () => {
  server = await startSimApiServer({});
});
afterAll(async () => {
  await server.stop();
});

/** What one scheduler pass throws when every lease request meets `kind` (two attempts, no wait between them). */
async function thrownBy(kind: 429 | 500 | 409): Promise<unknown> {
  server.faults.set([{ resource: 'leases', rate: 1, kind, retryAfterSeconds: 0 }]);
  try {
    const client = new KubeClient(server.kubeConfig({ user: 'kmaint' }), { retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 } });
    await runPass('scheduler', { client, namespace: 'kmaint', now: () => new Date('2026-01-01T00:00:00Z') });
    return undefined;
  } catch (err) {
    return err;
  } finally {
    server.faults.clear();
  }
}

describe('exhaustedRetries', () => {
  it('a pass whose lease request met 429 or 500 on every attempt gave up; a 409 there, or any other error, did not', async () => {
    const [tooMany, internal, conflict] = [await thrownBy(429), await thrownBy(500), await thrownBy(409)];
    expect([tooMany, internal, conflict].map(String)).toEqual([
      'KubeRequestError: reading lease kmaint/kmaint-scheduler: HTTP 429: the server has received too many requests and has asked us to try again later (injected fault)',
      'KubeRequestError: reading lease kmaint/kmaint-scheduler: HTTP 500: Internal error occurred: injected fault',
      'KubeRequestError: reading lease kmaint/kmaint-scheduler: HTTP 409: Operation cannot be fulfilled on leases "kmaint-scheduler": the object has been modified; please apply your changes to the latest version and try again',
    ]);
    expect([exhaustedRetries(tooMany), exhaustedRetries(internal), exhaustedRetries(conflict)]).toEqual([true, true, false]);
    expect(exhaustedRetries(new Error('pass failed', { cause: tooMany }))).toBe(true);
    expect([exhaustedRetries(new TypeError('x is undefined')), exhaustedRetries('a string'), exhaustedRetries(undefined)]).toEqual([false, false, false]);
  });
});
