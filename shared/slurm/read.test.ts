// A pass's read of Slurm: each token source (env, Secret, Secrets Manager mocked at the SDK) reaches slurmrestd as
// X-SLURM-USER-TOKEN, and each failure to get one is a message that never holds the token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig } from '../api/index.ts';
import { readSlurm } from './read.ts';
import { loadSlurmSettings, type SlurmSpec } from './settings.ts';

const TOKEN = 'jwt-from-somewhere-7c1d';
const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kmaint/slurm/jwt-AbCdEf';
const sm = mockClient(SecretsManagerClient);
let server: Server;
let url = '';
const tokens: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    tokens.push(String(req.headers['x-slurm-user-token'] ?? ''));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(req.url?.endsWith('/ping') ? { pings: [], errors: [] } : { nodes: [{ name: 'n1', state: ['IDLE'], reason: '' }], errors: [] }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  tokens.length = 0;
  sm.reset();
});

function config(slurm: Partial<SlurmSpec>): MaintenanceOperatorConfig {
  // The loopback server speaks plain http: allowed explicitly, as a config for an in-cluster slurmrestd would.
  return { metadata: { name: 'default', namespace: 'kmaint' }, spec: { slurm: { enabled: true, url, allowInsecureHttp: true, podSelector: 'app=slurmd', apiVersion: 'v0.0.41', ...slurm } } };
}

describe('readSlurm', () => {
  it('off: no request to Slurm and no context', async () => {
    expect(await readSlurm({ settings: loadSlurmSettings({ metadata: { name: 'default' }, spec: {} }), needed: true })).toEqual({ context: undefined });
    expect(tokens).toEqual([]);
  });

  it('enabled but no request needs Slurm this pass: nothing read', async () => {
    expect((await readSlurm({ settings: loadSlurmSettings(config({ tokenEnv: 'SLURM_JWT' })), needed: false, env: { SLURM_JWT: TOKEN } })).context).toBeUndefined();
    expect(tokens).toEqual([]);
  });

  it.each([
    { source: 'tokenEnv', slurm: { tokenEnv: 'SLURM_JWT' }, env: { SLURM_JWT: ` ${TOKEN}\n` } },
    { source: 'tokenSecret (read as kmaint, trimmed)', slurm: { tokenSecret: { name: 'slurm-token', key: 'auth-token' } }, env: {} },
    { source: 'tokenSecretArn (Secrets Manager)', slurm: { tokenSecretArn: ARN }, env: {} },
  ])('the token from $source goes to slurmrestd and the nodes come back', async ({ slurm, env }) => {
    sm.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: `${TOKEN}\n` });
    const read = await readSlurm({ settings: loadSlurmSettings(config(slurm)), needed: true, env, readSecretKey: (name, key) => Promise.resolve(name === 'slurm-token' && key === 'auth-token' ? `${TOKEN}\n` : undefined) });
    expect(read.context?.kind === 'on' ? read.context.view : undefined).toEqual({ kind: 'ok', nodes: new Map([['n1', { name: 'n1', state: ['IDLE'], reason: '' }]]) });
    expect(tokens).toEqual([TOKEN]);
  });

  it.each([
    { rule: 'env var not set', slurm: { tokenEnv: 'SLURM_JWT' }, message: "spec.slurm.tokenEnv: environment variable SLURM_JWT is not set in kmaint's process" },
    { rule: 'Secret without the key', slurm: { tokenSecret: { name: 'other', key: 'auth-token' } }, message: 'spec.slurm.tokenSecret: Secret other has no key auth-token' },
    { rule: 'Secrets Manager refuses', slurm: { tokenSecretArn: ARN }, message: `spec.slurm.tokenSecretArn: reading secret ${ARN}: AccessDeniedException: not allowed` },
  ])('$rule: a token problem on the view, and no request to Slurm', async ({ slurm, message }) => {
    const denied = Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' });
    sm.on(GetSecretValueCommand).rejects(denied);
    const read = await readSlurm({ settings: loadSlurmSettings(config(slurm)), needed: true, env: {}, readSecretKey: () => Promise.resolve(undefined) });
    expect(read.context?.kind === 'on' ? read.context.view : undefined).toEqual({ kind: 'problem', problem: { kind: 'token', message } });
    expect(tokens).toEqual([]);
  });

  it.each([
    { rule: "tokenEnv naming the Lambda role's secret key", slurm: { tokenEnv: 'AWS_SECRET_ACCESS_KEY' }, problem: 'spec.slurm.tokenEnv: "AWS_SECRET_ACCESS_KEY" is not a Slurm token variable' },
    { rule: 'http without allowInsecureHttp', slurm: { tokenEnv: 'SLURM_JWT', allowInsecureHttp: false }, problem: 'spec.slurm.url: "http://127.0.0.1:' },
    { rule: 'tokenSecretArn outside kmaint/slurm/', slurm: { tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kmaint-kubeconfig-AbCdEf' }, problem: 'spec.slurm.tokenSecretArn: secret "kmaint-kubeconfig-AbCdEf" is not under kmaint/slurm/' },
  ])('refused setting ($rule): Slurm stays off, no secret is read and nothing is sent', async ({ slurm, problem }) => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'kubeconfig-text' });
    const env = { AWS_SECRET_ACCESS_KEY: 'aws-secret-key', SLURM_JWT: TOKEN };
    const read = await readSlurm({ settings: loadSlurmSettings(config(slurm)), needed: true, env, readSecretKey: () => Promise.resolve(undefined) });
    expect([read.context?.kind, read.context?.kind === 'invalid' && read.context.problem.startsWith(problem), read.client]).toEqual(['invalid', true, undefined]);
    expect([tokens, sm.commandCalls(GetSecretValueCommand).length]).toEqual([[], 0]);
  });
});
