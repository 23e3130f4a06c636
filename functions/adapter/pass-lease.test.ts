// The pass lease of a Lambda invocation, through the handler's own runner (runPass, HeldLeases, KubeClient) against a
// loopback API server: taken once by the first pass with something to write, kept across the passes, and given back
// once when they end — idle, on the time budget, after max passes, when every write failed or a pass threw — before
// the chain starts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient, kubeConfigFromText } from '#kube';
import { runPass } from '#pass';
import type { BudgetRunSummary } from '#runtime';
import { aMaintenance, aNode } from '../../shared/scheduling/test-builders.ts';
import { fakeTime } from '../../shared/runtime/test-builders.ts';
import { createPassHandler } from './pass-handler.ts';
import { aLambdaContext, aScheduledEvent, captureLines } from './test-context.ts';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kmaint/leases';
const notFound = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' };
const forbidden = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'forbidden by the test' };

/**
 * Just enough of an API server for scheduler passes that always find the same Pending request on a Ready node and
 * admit it (writes are answered, not kept): every pass has something to write and leaves work, as long as the test
 * lets it. Leases are kept, with resourceVersion preconditions, as the API server keeps them.
 */
class LoopbackCluster {
  /** "VERB path" of every request, in order (lease writes name the holder they wrote). */
  readonly seen: string[] = [];
  /** Answered 403 from now on: "GET /api/v1/nodes" (a read: the pass throws), "PATCH" (every write fails). */
  readonly refuse = new Set<string>();
  readonly leases = new Map<string, Record<string, unknown>>();
  private rv = 1;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
        const [code, answer] = this.answer(req.method ?? 'GET', (req.url ?? '').split('?')[0] ?? '', body);
        res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return `{"apiVersion":"v1","kind":"Config","clusters":[{"name":"c","cluster":{"server":"${url}","insecure-skip-tls-verify":true}}],"users":[{"name":"u","user":{"token":"t"}}],"contexts":[{"name":"c","context":{"cluster":"c","user":"u"}}],"current-context":"c"}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  reset(): void {
    this.seen.length = 0;
    this.refuse.clear();
    this.leases.clear();
  }

  /** The lease requests seen: "GET", "POST holder", "PUT holder" ('' = given back). */
  leaseRequests(): string[] {
    return this.seen.filter((s) => s.includes(LEASES)).map((s) => s.replace(/ \/\S+/, ''));
  }

  private answer(method: string, path: string, body: Record<string, unknown>): [number, unknown] {
    const leaseWrite = method === 'POST' || method === 'PUT' ? ` ${String((body['spec'] as { holderIdentity?: string } | undefined)?.holderIdentity)}` : '';
    this.seen.push(`${method} ${path}${path.startsWith(LEASES) ? leaseWrite : ''}`);
    if ([...this.refuse].some((r) => `${method} ${path}`.startsWith(r))) return [403, forbidden];
    if (path.startsWith(LEASES)) return this.lease(method, path, body);
    if (method === 'GET' && path === '/api/v1/nodes') return [200, { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [{ ...aNode({ name: 'node-1' }), metadata: { name: 'node-1', resourceVersion: '1' } }] }];
    if (method === 'GET' && path === '/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances') {
      const nm = { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', ...aMaintenance({ name: 'nm-1', nodeName: 'node-1', namespace: 'team' }) };
      return [200, { kind: 'NodeMaintenanceList', apiVersion: 'maintenance.nvidia.com/v1alpha1', metadata: { resourceVersion: '1' }, items: [nm] }];
    }
    if (method === 'PATCH' || method === 'POST') return [method === 'POST' ? 201 : 200, { ...body, metadata: { ...(body['metadata'] as object | undefined), resourceVersion: String(++this.rv) } }];
    return [404, notFound];
  }

  private lease(method: string, path: string, body: Record<string, unknown>): [number, unknown] {
    const name = method === 'POST' ? String((body['metadata'] as { name?: string } | undefined)?.name) : (path.split('/').at(-1) ?? '');
    const current = this.leases.get(name);
    const meta = (o: Record<string, unknown> | undefined) => (o?.['metadata'] ?? {}) as { resourceVersion?: string };
    if (method === 'GET') return current ? [200, current] : [404, notFound];
    if (method === 'POST' && current) return [409, { ...notFound, reason: 'AlreadyExists', code: 409, message: 'already exists' }];
    if (method === 'PUT' && (!current || meta(current).resourceVersion !== meta(body).resourceVersion)) return [409, { ...notFound, reason: 'Conflict', code: 409, message: 'the object has been modified' }];
    const stored = { ...body, metadata: { ...meta(body), name, namespace: 'kmaint', resourceVersion: String(++this.rv) } };
    this.leases.set(name, stored);
    return [method === 'POST' ? 201 : 200, stored];
  }
}

const cluster = new LoopbackCluster();
const lambda = mockClient(LambdaClient);
let kubeconfig = '';
const HOLDER = 'kmaint-test-scheduler/req-lease';

beforeAll(async () => {
  kubeconfig = await cluster.start();
});
afterAll(() => cluster.stop());
beforeEach(() => {
  cluster.reset();
  lambda.reset();
  // The chain start, in the same order as the API requests.
  lambda.on(InvokeCommand).callsFake(() => {
    cluster.seen.push('INVOKE drainer');
    return { StatusCode: 202 };
  });
});

/** One scheduler invocation on a fake clock (passes take no time on it) with `budgetMs` left at its start. */
async function invoke(event: unknown, budgetMs = 120_000): Promise<{ run: BudgetRunSummary; slept: number[] }> {
  const time = fakeTime(budgetMs);
  const handler = createPassHandler('scheduler', {
    env: { KMAINT_KUBECONFIG: kubeconfig, KMAINT_FN_DRAINER: 'kmaint-test-drainer', KMAINT_FN_CLEANUP: 'kmaint-test-cleanup', AWS_REGION: 'eu-west-1' },
    logDestination: captureLines().destination,
    writeMetrics: () => undefined,
    sleep: time.sleep,
    clock: time.now,
  });
  const run = (await handler(event, aLambdaContext({ remainingMs: time.remaining, requestId: 'req-lease', functionName: 'kmaint-test-scheduler' }))) as BudgetRunSummary;
  return { run, slept: time.slept };
}

const outcomes = (r: BudgetRunSummary) => r.passes.map((p) => `${p.outcome} ${JSON.stringify(p.actions)}`);
// An admission: the request's status, its event, and its node's KEP-5683 conditions (MaintenancePlanned=True).
// The admission's record on its Node (kmaint.io/admitted, issue 40), then its status.
const ADMITTED = 'applied {"patchNodeAnnotations":1,"writeStatus":1,"emitEvent":1,"patchNodeConditions":1}';

describe('a Lambda invocation holds its pass lease across its passes', () => {
  it('takes the lease once for 4 passes with work remaining and gives it back once, before the chain starts', async () => {
    const { run } = await invoke({ maxPasses: 4 });
    expect([run.stopped, outcomes(run), run.admitted]).toEqual(['max-passes', [ADMITTED, ADMITTED, ADMITTED, ADMITTED], 4]);
    // Pass 1 reads, finds a write, takes the lease (GET, POST) and reads again under it; passes 2-4 hold it.
    expect(cluster.leaseRequests()).toEqual(['GET', `POST ${HOLDER}`, 'PUT ']);
    expect(cluster.seen.slice(-2)).toEqual([`PUT ${LEASES}/kmaint-scheduler `, 'INVOKE drainer']);
    expect((cluster.leases.get('kmaint-scheduler')?.['spec'] as { holderIdentity?: string; leaseDurationSeconds?: number })).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    // Lease requests by pass: the take in the first, the release (after the passes) counted in the last, so that the
    // invocation's figures add up to what the API server saw.
    expect(run.passes.map((p) => [p.requests['get leases'] ?? 0, p.requests['create leases'] ?? 0, p.requests['update leases'] ?? 0])).toEqual([[1, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1]]);
  });

  it('gives the lease back when the time budget stops the passes, keeping the margin and 2 s for the release free', async () => {
    // 13 s left, margin 10 s + 2 s for the release, passes take no time: passes at 13, 12.5 and 12 s left; the next
    // wait (0.5 s) would leave 11.5 s < 12 s.
    const { run, slept } = await invoke(aScheduledEvent(), 13_000);
    expect([run.stopped, run.passes.length, slept, run.remainingMs]).toEqual(['time-budget', 3, [500, 500], 12_000]);
    expect(cluster.leaseRequests()).toEqual(['GET', `POST ${HOLDER}`, 'PUT ']);
    expect(cluster.seen.slice(-2)).toEqual([`PUT ${LEASES}/kmaint-scheduler `, 'INVOKE drainer']);
  });

  it('starts no pass when only the margin and not the release time is left', async () => {
    const { run } = await invoke(aScheduledEvent(), 11_999);
    expect([run.stopped, run.passes.length, cluster.seen]).toEqual(['time-budget', 0, []]);
  });

  it('gives the lease back when every write of a pass failed', async () => {
    cluster.refuse.add('PATCH');
    const { run } = await invoke(aScheduledEvent());
    expect([run.stopped, run.passes.length, run.errors]).toEqual(['failed', 1, 1]);
    expect(cluster.leaseRequests()).toEqual(['GET', `POST ${HOLDER}`, 'PUT ']);
  });

  it('gives the lease back when a pass throws, and the invocation fails with the pass error', async () => {
    // The first pass takes the lease and admits; the second cannot list nodes.
    let waits = 0;
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const time = fakeTime(120_000);
    const handler = createPassHandler('scheduler', {
      env: { KMAINT_KUBECONFIG: kubeconfig, KMAINT_FN_DRAINER: 'kmaint-test-drainer', KMAINT_FN_CLEANUP: 'kmaint-test-cleanup', AWS_REGION: 'eu-west-1' },
      logDestination: captureLines().destination,
      writeMetrics: () => undefined,
      sleep: (ms) => {
        waits += 1;
        cluster.refuse.add('GET /api/v1/nodes');
        return time.sleep(ms);
      },
      clock: time.now,
    });
    const err = (await handler(aScheduledEvent(), aLambdaContext({ remainingMs: time.remaining, requestId: 'req-lease', functionName: 'kmaint-test-scheduler' })).catch((e: unknown) => e)) as Error;
    expect([waits, err.name, err.message]).toEqual([1, 'KubeRequestError', 'listing nodes: HTTP 403: forbidden by the test']);
    expect(cluster.leaseRequests()).toEqual(['GET', `POST ${HOLDER}`, 'PUT ']);
    expect(cluster.seen.at(-1)).toBe(`PUT ${LEASES}/kmaint-scheduler `);
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 0);
  });

  it('a second invocation while the first holds the lease finds it held and writes nothing', async () => {
    cluster.leases.set('kmaint-scheduler', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kmaint-scheduler', namespace: 'kmaint', resourceVersion: '1' }, spec: { holderIdentity: 'kmaint-test-scheduler/req-first', leaseDurationSeconds: 120, renewTime: new Date().toISOString().replace('Z', '000Z') } });
    const { run } = await invoke({ maxPasses: 1 });
    expect([run.stopped, run.passes.map((p) => [p.outcome, p.leaseHolder, p.requests])]).toEqual([
      'max-passes',
      [['lease-held', 'kmaint-test-scheduler/req-first', { 'list nodes': 1, 'list nodemaintenances': 1, 'get maintenanceoperatorconfigs': 1, 'get customresourcedefinitions': 1, 'get leases': 1 }]],
    ]);
    expect(cluster.seen.filter((s) => !s.startsWith('GET '))).toEqual([]);
  });

  it('for comparison: a runner that leases each pass itself (every invocation before) writes the lease twice a pass', async () => {
    const time = fakeTime(120_000);
    const handler = createPassHandler('scheduler', {
      env: { KMAINT_KUBECONFIG: kubeconfig, KMAINT_FN_DRAINER: 'kmaint-test-drainer', KMAINT_FN_CLEANUP: 'kmaint-test-cleanup', AWS_REGION: 'eu-west-1' },
      logDestination: captureLines().destination,
      writeMetrics: () => undefined,
      // The handler's runner as it was: a client per pass, runPass without a round.
      runPass: (f, o) => runPass(f, { client: new KubeClient(kubeConfigFromText(kubeconfig, { source: 'test' })), namespace: 'kmaint', now: () => new Date(), logger: o.logger, dryRun: o.dryRun, holder: `pass-${time.now()}` }),
      sleep: time.sleep,
      clock: time.now,
    });
    const run = (await handler({ maxPasses: 4 }, aLambdaContext({ remainingMs: time.remaining, requestId: 'req-lease' }))) as BudgetRunSummary;
    expect(outcomes(run)).toEqual([ADMITTED, ADMITTED, ADMITTED, ADMITTED]);
    expect(cluster.leaseRequests()).toEqual(['GET', 'POST pass-0', 'PUT ', 'GET', 'PUT pass-500', 'PUT ', 'GET', 'PUT pass-1000', 'PUT ', 'GET', 'PUT pass-1500', 'PUT ']);
  });

  it('a dry run takes no lease', async () => {
    const { run } = await invoke({ dryRun: true, maxPasses: 2 });
    expect([run.stopped, outcomes(run)]).toEqual(['max-passes', ['dry-run {}', 'dry-run {}']]);
    expect(cluster.leaseRequests()).toEqual([]);
  });
});
