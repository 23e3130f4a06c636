// EKS tokens: the exact shape aws-iam-authenticator verifies, a signature recomputed by hand, expiry and refresh on a fixed clock.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EksAuthError } from './errors.ts';
import { EksTokenSource, signEksToken, type AwsCredentials } from './eks-token.ts';

const T0 = new Date('2026-01-02T03:04:05Z');
const CREDS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-1' };
const MIN = 60_000;

function decode(token: string): URL {
  return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
}

/** SigV4 query-string signing written out from the AWS documentation, independent of @smithy/signature-v4. */
function expectedSignature(url: URL, clusterName: string, creds: AwsCredentials, region: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature').sort(([a], [b]) => (a < b ? -1 : 1));
  const canonicalQuery = params.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const canonicalRequest = ['GET', '/', canonicalQuery, `host:${url.host}`, `x-k8s-aws-id:${clusterName}`, '', 'host;x-k8s-aws-id', createHash('sha256').update('').digest('hex')].join('\n');
  const scope = `${amzDate.slice(0, 8)}/${region}/sts/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${creds.secretAccessKey}`).update(amzDate.slice(0, 8)).digest();
  for (const part of [region, 'sts', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

describe('signEksToken', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity URL', async () => {
    const token = await signEksToken({ clusterName: 'prod', region: 'eu-west-1', credentials: CREDS, signingDate: T0 });
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token.slice('k8s-aws-v1.'.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    const url = decode(token);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('https://sts.eu-west-1.amazonaws.com/');
    expect(Object.fromEntries([...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature'))).toEqual({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260102/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20260102T030405Z',
      'X-Amz-Expires': '60',
      'X-Amz-Security-Token': 'session-token-1',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
    });
  });

  it('carries a signature that a by-hand SigV4 over host and x-k8s-aws-id reproduces', async () => {
    const token = await signEksToken({ clusterName: 'prod', region: 'eu-west-1', credentials: CREDS, signingDate: T0 });
    const url = decode(token);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, 'prod', CREDS, 'eu-west-1'));
    // A different cluster name changes the signature: the header is signed, not just sent.
    const other = decode(await signEksToken({ clusterName: 'staging', region: 'eu-west-1', credentials: CREDS, signingDate: T0 }));
    expect(other.searchParams.get('X-Amz-Signature')).not.toBe(url.searchParams.get('X-Amz-Signature'));
  });

  it.each([
    ['a commercial region uses its regional STS endpoint', 'us-east-2', 'sts.us-east-2.amazonaws.com'],
    ['a China region uses the amazonaws.com.cn endpoint', 'cn-north-1', 'sts.cn-north-1.amazonaws.com.cn'],
  ])('%s', async (_rule, region, host) => {
    const url = decode(await signEksToken({ clusterName: 'c', region, credentials: CREDS, signingDate: T0 }));
    expect(url.host).toBe(host);
  });
});

describe('EksTokenSource', () => {
  function source(opts: { credentials?: () => Promise<AwsCredentials> } = {}): { tokens: EksTokenSource; clock: { now: Date }; calls: () => number } {
    const clock = { now: T0 };
    let calls = 0;
    const tokens = new EksTokenSource({
      clusterName: 'prod',
      region: 'eu-west-1',
      now: () => clock.now,
      credentials: opts.credentials ?? (() => {
        calls++;
        return Promise.resolve(CREDS);
      }),
    });
    return { tokens, clock, calls: () => calls };
  }

  it('counts a token valid for 14 minutes and signs a new one at 10 minutes', async () => {
    const { tokens, clock, calls } = source();
    const first = await tokens.current();
    expect([first.signedAt, first.refreshAt, first.expiresAt]).toEqual([T0, new Date(T0.getTime() + 10 * MIN), new Date(T0.getTime() + 14 * MIN)]);
    clock.now = new Date(T0.getTime() + 10 * MIN - 1);
    expect(await tokens.token()).toBe(first.token);
    expect(calls()).toBe(1);
    clock.now = new Date(T0.getTime() + 10 * MIN);
    const second = await tokens.current();
    expect(second.token).not.toBe(first.token);
    expect(decode(second.token).searchParams.get('X-Amz-Date')).toBe('20260102T031405Z');
    expect(second.expiresAt).toEqual(new Date(T0.getTime() + 24 * MIN));
    expect(calls()).toBe(2);
  });

  it('signs once for concurrent callers', async () => {
    const { tokens, calls } = source();
    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(all).size).toBe(1);
    expect(calls()).toBe(1);
  });

  it('never outlives the credentials it was signed with', async () => {
    const expiration = new Date(T0.getTime() + 5 * MIN);
    const { tokens } = source({ credentials: () => Promise.resolve({ ...CREDS, expiration }) });
    const t = await tokens.current();
    expect([t.refreshAt, t.expiresAt]).toEqual([expiration, expiration]);
  });

  it('says what it was doing when credentials fail, keeping the cause', async () => {
    const cause = new Error('Could not load credentials from any providers');
    const { tokens } = source({ credentials: () => Promise.reject(cause) });
    const err = await tokens.token().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EksAuthError);
    expect((err as EksAuthError).message).toBe('signing an EKS token for cluster prod in eu-west-1: Could not load credentials from any providers');
    expect((err as EksAuthError).cause).toBe(cause);
    expect((err as EksAuthError).clusterName).toBe('prod');
  });
});
