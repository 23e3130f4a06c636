// A function reaching its cluster with a kubeconfig from Secrets Manager (SDK mocked) or inline in KMAINT_KUBECONFIG:
// the handler runs a real dry-run pass against a loopback API server that records each request's credentials, the
// secret is read once per container, and neither the secret's token nor its text reaches a log line or an answer.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BudgetRunSummary } from '#runtime';
import { createPassHandler } from './pass-handler.ts';
import { aLambdaContext, captureLines } from './test-context.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kmaint/kubeconfig-AbCdEf';
const TOKEN = 'kubeconfig-secret-token-5a4b3c2d1e';
const sm = mockClient(SecretsManagerClient);
const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
let server: Server;
let kubeconfig = '';

/** Just enough of an API server for a scheduler dry run: no nodes, no requests, no config. */
function answer(path: string): [number, unknown] {
  if (path.startsWith('/api/v1/nodes?')) return [200, { kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] }];
  if (path.startsWith('/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances?')) return [200, { kind: 'NodeMaintenanceList', apiVersion: 'maintenance.nvidia.com/v1alpha1', metadata: {}, items: [] }];
  return [404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    seen.push({ path, headers: req.headers });
    const [code, body] = answer(path);
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const server_ = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server_}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: ${TOKEN}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  sm.reset();
  seen.length = 0;
});

function handlerWith(env: Record<string, string>, logs: ReturnType<typeof captureLines>) {
  const handler = createPassHandler('scheduler', { env: { KMAINT_CHAIN: 'off', KMAINT_LOG_LEVEL: 'debug', ...env }, logDestination: logs.destination, writeMetrics: () => undefined });
  return (requestId: string) => handler({ dryRun: true, maxPasses: 1 }, aLambdaContext({ remainingMs: () => 60_000, requestId }));
}

/** Every line written and every answer given, searched for the secret. */
function expectNoSecret(logs: ReturnType<typeof captureLines>, answers: unknown[]): void {
  const everything = [...logs.lines, ...answers.map((a) => (a instanceof Error ? `${a.message}\n${a.stack ?? ''}` : JSON.stringify(a)))].join('\n');
  expect(logs.lines.length).toBeGreaterThan(0);
  for (const secret of [TOKEN, 'insecure-skip-tls-verify', 'current-context']) expect(everything, secret).not.toContain(secret);
}

describe('a kubeconfig from KMAINT_KUBECONFIG_SECRET_ARN', () => {
  it('authenticates every request with the secret kubeconfig, reads the secret once per container, and logs none of it', async () => {
    sm.on(GetSecretValueCommand).resolves({ ARN, SecretString: kubeconfig });
    const logs = captureLines();
    const call = handlerWith({ KMAINT_KUBECONFIG_SECRET_ARN: ARN }, logs);
    const first = (await call('req-1')) as BudgetRunSummary;
    const second = (await call('req-2')) as BudgetRunSummary;
    for (const r of [first, second]) expect([r.stopped, r.passes[0]?.outcome, r.errors, r.passes[0]?.requests]).toEqual(['idle', 'dry-run', 0, { 'list nodes': 1, 'list nodemaintenances': 1, 'get maintenanceoperatorconfigs': 1, 'get customresourcedefinitions': 1 }]);
    expect(sm).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
    expect(sm).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: ARN });
    expect(seen.map((s) => s.headers.authorization)).toEqual(Array.from({ length: 8 }, () => `Bearer ${TOKEN}`));
    expectNoSecret(logs, [first, second]);
  });

  it('fails the invocation with the secret named and its content withheld when it is not valid YAML', async () => {
    sm.on(GetSecretValueCommand).resolves({ ARN, SecretString: `${kubeconfig}users: [{name: v, user: {token: ${TOKEN}}\n` });
    const logs = captureLines();
    const err = (await handlerWith({ KMAINT_KUBECONFIG_SECRET_ARN: ARN }, logs)('req-3').catch((e: unknown) => e)) as Error;
    expect([err.name, err.message]).toEqual(['KubeConfigError', `kubeconfig from secret ${ARN} is not valid YAML (line 8, column 1)`]);
    expect(logs.records().map((r) => [r['msg'], (r['error'] as { message?: string } | undefined)?.message])).toEqual([['run failed', err.message]]);
    expect(seen).toEqual([]);
    expectNoSecret(logs, [err]);
  });
});

describe('a kubeconfig inline in KMAINT_KUBECONFIG', () => {
  it('is used as the kubeconfig itself (not a path) and logged nowhere', async () => {
    const logs = captureLines();
    const r = (await handlerWith({ KMAINT_KUBECONFIG: kubeconfig }, logs)('req-4')) as BudgetRunSummary;
    expect([r.passes[0]?.outcome, r.errors]).toEqual(['dry-run', 0]);
    expect(seen.map((s) => s.headers.authorization)).toEqual(Array.from({ length: 4 }, () => `Bearer ${TOKEN}`));
    expect(sm).toHaveReceivedCommandTimes(GetSecretValueCommand, 0);
    expectNoSecret(logs, [r]);
  });
});
