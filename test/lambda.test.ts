// The Lambda handlers on the real control plane: each called with its event and a fake context, the chain they
// start (Lambda API mocked), a dry run, the EKS token path against the real API server, and logs without secrets.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PassFunction } from '../shared/pass/index.ts';
import { abortableSleep, type BudgetRunSummary } from '../shared/runtime/index.ts';
import { createPassHandler, type PassHandlerDeps } from '../functions/adapter/pass-handler.ts';
import { aLambdaContext, aScheduledEvent, captureLines, realBudget } from '../functions/adapter/test-context.ts';
import { auditLog, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, createNM, deleteNM, generalNodes, getNM, installCrds, isUnschedulable, phaseOf, podsOn, removeAllNMs, setUnschedulable } from './support/kmaint.ts';

const ns = `lambda-${randomBytes(3).toString('hex')}`;
const lambda = mockClient(LambdaClient);
/** Every log line and EMF line of every handler in this file, searched for secrets at the end. */
const logs = captureLines();
const metrics: string[] = [];
const answers: unknown[] = [];

function env(): Record<string, string> {
  return {
    KMAINT_KUBECONFIG: testbed().kmaintKubeconfigPath,
    KMAINT_NAMESPACE: KMAINT_NS,
    KMAINT_FN_SCHEDULER: 'kmaint-test-scheduler',
    KMAINT_FN_DRAINER: 'kmaint-test-drainer',
    KMAINT_FN_CLEANUP: 'kmaint-test-cleanup',
    AWS_REGION: 'eu-west-1',
    KMAINT_LOG_LEVEL: 'debug',
  };
}

async function invoke(fn: PassFunction, event: unknown, deps: Partial<PassHandlerDeps> = {}, requestId = `req-${fn}`): Promise<BudgetRunSummary> {
  const handler = createPassHandler(fn, { env: env(), logDestination: logs.destination, writeMetrics: (l) => metrics.push(l), ...deps });
  const answer = await handler(event, aLambdaContext({ remainingMs: realBudget(90_000), requestId, functionName: `kmaint-test-${fn}` }));
  answers.push(answer);
  return answer as BudgetRunSummary;
}

function invocations(): Array<{ FunctionName?: string; InvocationType?: string; Payload: unknown }> {
  return lambda.commandCalls(InvokeCommand).map((c) => ({ FunctionName: c.args[0].input.FunctionName, InvocationType: c.args[0].input.InvocationType, Payload: JSON.parse(new TextDecoder().decode(c.args[0].input.Payload as Uint8Array)) as unknown }));
}

describe('Lambda handlers against the testbed', () => {
  let node = '';
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    node = (await generalNodes())[1] as string;
  });
  beforeEach(() => {
    lambda.reset();
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await setUnschedulable(node, false);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('the scheduler handler, on its schedule, admits a new request and starts the drainer', async () => {
    await createNM(ns, 'by-lambda', { requestorID: 'lambda.example.com', nodeName: node });
    const r = await invoke('scheduler', aScheduledEvent());
    expect([r.fn, r.stopped, r.admitted, r.errors, r.passes[0]?.outcome]).toEqual(['scheduler', 'idle', 1, 0, 'applied']);
    expect(r.chain).toEqual({ kind: 'invoke', target: 'drainer', depth: 1, reason: 'scheduler admitted 1' });
    expect(phaseOf(await getNM(ns, 'by-lambda'))).toBe('Scheduled');
    expect(invocations()).toEqual([{ FunctionName: 'kmaint-test-drainer', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 1, from: 'scheduler' } }]);
  });

  it('the drainer handler, started by that chain event, takes the request to Ready in one invocation and starts cleanup', async () => {
    const r = await invoke('drainer', { source: 'kmaint', chainDepth: 1, from: 'scheduler' });
    expect([r.stopped, r.becameReady, r.errors]).toEqual(['idle', 1, 0]);
    expect(r.passes.length).toBeGreaterThan(1);
    expect(r.actions['cordonNode']).toBe(1);
    expect(phaseOf(await getNM(ns, 'by-lambda'))).toBe('Ready');
    expect(await isUnschedulable(node)).toBe(true);
    expect(r.chain).toEqual({ kind: 'invoke', target: 'cleanup', depth: 2, reason: 'drainer made 1 Ready' });
    expect(invocations()).toEqual([{ FunctionName: 'kmaint-test-cleanup', InvocationType: 'Event', Payload: { source: 'kmaint', chainDepth: 2, from: 'drainer' } }]);
  });

  it('the cleanup handler, on its schedule, releases the deleted request and uncordons the node', async () => {
    await deleteNM(ns, 'by-lambda');
    const r = await invoke('cleanup', aScheduledEvent());
    expect([r.stopped, r.released, r.errors, r.chain]).toEqual(['idle', 1, 0, { kind: 'none', reason: 'nothing for the next function to do after cleanup' }]);
    expect(await getNM(ns, 'by-lambda')).toBeUndefined();
    expect(await isUnschedulable(node)).toBe(false);
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 0);
  });

  it('a manual dry run of one pass plans the admission and writes nothing', async () => {
    await createNM(ns, 'dry', { requestorID: 'lambda.example.com', nodeName: node });
    const r = await invoke('scheduler', { dryRun: true, maxPasses: 1 });
    expect([r.passes.length, r.passes[0]?.outcome, r.admitted, r.chain.kind]).toEqual([1, 'dry-run', 1, 'none']);
    expect(r.passes[0]?.plan.some((line) => line.includes(`${ns}/dry`))).toBe(true);
    expect(phaseOf(await getNM(ns, 'dry'))).not.toBe('Scheduled');
    await deleteNM(ns, 'dry');
  });

  it('a drainer invocation of several passes takes its lease once and gives it back once; one beside it finds it held and writes nothing', async () => {
    const other = (await generalNodes())[2] as string;
    // A pod the request waits for: the first invocation's first pass cordons and then waits for it.
    await bindPod(ns, 'job', other, { labels: { app: 'job' } });
    await createNM(ns, 'held', { requestorID: 'lambda.example.com', nodeName: other, waitForPodCompletion: { podSelector: 'app=job', timeoutSeconds: 0 } });
    try {
      expect((await invoke('scheduler', aScheduledEvent())).admitted).toBe(1);
      // The take is a create: no lease left by earlier tests.
      await kubectl(['delete', 'lease', 'kmaint-drainer', '-n', KMAINT_NS, '--ignore-not-found']);
      const audit = auditLog();
      await audit.sync();
      const mark = audit.mark();
      // The first invocation stops at its first wait, holding the lease, until the second one has run.
      let atFirstWait: () => void = () => undefined;
      const waiting = new Promise<void>((resolve) => (atFirstWait = resolve));
      let resume: () => void = () => undefined;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      let waits = 0;
      const sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
        if (++waits === 1) {
          atFirstWait();
          await resumed;
        }
        await abortableSleep(ms, signal);
      };
      const running = invoke('drainer', { source: 'kmaint', chainDepth: 1, from: 'scheduler' }, { sleep }, 'req-first');
      await waiting;
      expect(phaseOf(await getNM(ns, 'held'))).toBe('WaitForPodCompletion');
      // The pod finishes: there is work again, for whoever holds the lease.
      await admin().core.deleteNamespacedPod({ namespace: ns, name: 'job', gracePeriodSeconds: 0 });
      await waitFor('the pod gone', async () => ((await podsOn(other)).some((p) => p.metadata?.name === 'job') ? undefined : true));
      const beside = await invoke('drainer', { maxPasses: 1 }, {}, 'req-second');
      resume();
      const first = await running;
      await audit.sync();
      const leaseRequests = audit.entries({ since: mark, user: testbed().kmaintUser, resource: 'leases' }).map((e) => `${e.verb} ${e.name ?? ''} ${e.code}`);
      expect([first.stopped, first.becameReady, first.errors, first.passes.map((p) => p.outcome)]).toEqual(['idle', 1, 0, first.passes.map(() => 'applied')]);
      expect(first.passes.length).toBeGreaterThan(1);
      expect(phaseOf(await getNM(ns, 'held'))).toBe('Ready');
      // The second invocation found the lease held and wrote nothing: only reads, the lease's GET among them.
      expect(beside.passes.map((p) => [p.outcome, p.leaseHolder, Object.keys(p.requests).filter((k) => !k.startsWith('get ') && !k.startsWith('list '))])).toEqual([['lease-held', 'kmaint-test-drainer/req-first', []]]);
      // For all the passes of the first: one GET and one create to take the lease, one update to give it back.
      expect(leaseRequests).toEqual(['get kmaint-drainer 404', 'create kmaint-drainer 201', 'get kmaint-drainer 200', 'update kmaint-drainer 200']);
      const lease = JSON.parse((await kubectl(['get', 'lease', 'kmaint-drainer', '-n', KMAINT_NS, '-o', 'json'])).stdout) as { spec: Record<string, unknown> };
      expect([lease.spec['holderIdentity'] ?? '', lease.spec['leaseDurationSeconds']]).toEqual(['', 1]);
    } finally {
      await deleteNM(ns, 'held');
      await invoke('cleanup', aScheduledEvent());
    }
    expect(await isUnschedulable(other)).toBe(false);
  });

  it('an EKS-configured handler signs a token, reaches the real API server over TLS, and fails cleanly when refused', async () => {
    const eksEnv = {
      KMAINT_CLUSTER_NAME: 'kmaint-testbed',
      AWS_REGION: 'eu-west-1',
      KMAINT_CLUSTER_ENDPOINT: testbed().server,
      KMAINT_CLUSTER_CA: readFileSync(testbed().caFile).toString('base64'),
      KMAINT_CHAIN: 'off',
      KMAINT_LOG_LEVEL: 'debug',
    };
    const handler = createPassHandler('scheduler', {
      env: eksEnv,
      logDestination: logs.destination,
      writeMetrics: (l) => metrics.push(l),
      credentials: () => Promise.resolve({ accessKeyId: 'AKIDKMAINTTEST', secretAccessKey: 'kmaint-test-secret-key', sessionToken: 'kmaint-test-session-token' }),
    });
    const err = (await handler(aScheduledEvent(), aLambdaContext({ remainingMs: realBudget(60_000), requestId: 'req-eks' })).catch((e: unknown) => e)) as Error;
    // The testbed does not run aws-iam-authenticator, so a well-formed EKS token is a 401 from the real server.
    expect(err.message).toMatch(/HTTP 401/);
    expect(logs.records().filter((r) => r['requestId'] === 'req-eks').map((r) => r['msg'])).toEqual(['run failed']);
  });

  it('no bearer token, kubeconfig token, AWS secret or presigned URL appears in the logs, metrics or answers', () => {
    const kubeconfigToken = /token: (\S+)/.exec(readFileSync(testbed().kmaintKubeconfigPath, 'utf8'))?.[1] ?? '';
    expect(kubeconfigToken.length).toBeGreaterThan(8);
    const everything = [...logs.lines, ...metrics, ...answers.map((a) => JSON.stringify(a))].join('\n');
    // The capture holds the whole run: every pass summary, at debug level.
    expect(logs.records().filter((r) => typeof r['msg'] === 'string' && / pass (applied|dry-run)$/.test(r['msg'])).length).toBeGreaterThan(4);
    expect(logs.records().every((r) => typeof r['requestId'] === 'string')).toBe(true);
    for (const secret of [kubeconfigToken, 'k8s-aws-v1.', 'X-Amz-Signature', 'X-Amz-Credential', 'kmaint-test-secret-key', 'kmaint-test-session-token', 'Bearer ']) {
      expect(everything, secret).not.toContain(secret);
    }
  });
});
