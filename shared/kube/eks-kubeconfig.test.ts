// An EKS KubeConfig on a loopback HTTPS API server (verified against the CA it was given): every request carries a current token; DescribeCluster fills endpoint and CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { eksKubeConfig, describeEksCluster } from './eks-kubeconfig.ts';
import { EksTokenSource } from './eks-token.ts';
import { EksAuthError } from './errors.ts';

const T0 = new Date('2026-01-02T03:04:05Z');
const CREDS = () => Promise.resolve({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-key' });

let server: Server;
let base = '';
/** Base64 of the loopback server's self-signed certificate, as DescribeCluster would return the cluster CA. */
let CA = '';
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-eks-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'));
  const key = readFileSync(join(dir, 'key.pem'));
  rmSync(dir, { recursive: true });
  CA = cert.toString('base64');
  server = createServer({ cert, key }, (req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const eks = mockClient(EKSClient);
afterEach(() => {
  eks.reset();
  seen.length = 0;
});

describe('eksKubeConfig', () => {
  it('sends a bearer EKS token on every request and a fresh one after the refresh age', async () => {
    const clock = { now: T0 };
    const tokens = new EksTokenSource({ clusterName: 'prod', region: 'eu-west-1', credentials: CREDS, now: () => clock.now });
    const kc = await eksKubeConfig({ clusterName: 'prod', region: 'eu-west-1', credentials: CREDS, tokens, endpoint: { server: base, caData: CA } });
    expect(JSON.stringify(kc.exportConfig())).not.toContain('k8s-aws-v1.');
    const client = new KubeClient(kc);
    await client.listNodes();
    await client.listNodes();
    clock.now = new Date(T0.getTime() + 10 * 60_000);
    await client.listNodes();
    const auth = seen.map((h) => h.authorization ?? '');
    expect(auth.every((a) => a.startsWith('Bearer k8s-aws-v1.'))).toBe(true);
    expect([auth[0] === auth[1], auth[1] === auth[2]]).toEqual([true, false]);
    expect(eks).toHaveReceivedCommandTimes(DescribeClusterCommand, 0);
  });

  it('reads endpoint and CA with eks:DescribeCluster when they are not given', async () => {
    eks.on(DescribeClusterCommand, { name: 'prod' }).resolves({ cluster: { name: 'prod', endpoint: base, certificateAuthority: { data: CA }, status: 'ACTIVE' } });
    const kc = await eksKubeConfig({ clusterName: 'prod', region: 'eu-west-1', credentials: CREDS });
    expect(eks).toHaveReceivedCommandExactlyOnceWith(DescribeClusterCommand, { name: 'prod' });
    expect([kc.getCurrentCluster()?.server, kc.getCurrentCluster()?.caData]).toEqual([base, CA]);
    await new KubeClient(kc).listNodes();
    expect(seen[0]?.authorization).toMatch(/^Bearer k8s-aws-v1\.[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['a cluster still being created has no endpoint', { name: 'prod', status: 'CREATING' as const }, 'describing EKS cluster prod in eu-west-1: cluster prod has no endpoint yet (status CREATING)'],
    ['a cluster without a CA is refused', { name: 'prod', endpoint: 'https://x', status: 'ACTIVE' as const }, 'describing EKS cluster prod in eu-west-1: cluster prod has no certificate authority yet (status ACTIVE)'],
  ])('%s', async (_rule, cluster, message) => {
    eks.on(DescribeClusterCommand).resolves({ cluster });
    const err = await describeEksCluster('prod', 'eu-west-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EksAuthError);
    expect((err as Error).message).toBe(message);
  });

  it('keeps the SDK error as the cause when DescribeCluster is denied', async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: eks:DescribeCluster'), { name: 'AccessDeniedException' });
    eks.on(DescribeClusterCommand).rejects(denied);
    const err = (await describeEksCluster('prod', 'eu-west-1').catch((e: unknown) => e)) as EksAuthError;
    expect([err.name, err.message, err.cause]).toEqual(['EksAuthError', 'describing EKS cluster prod in eu-west-1: User is not authorized to perform: eks:DescribeCluster', denied]);
  });
});
