// EKS bearer tokens: a presigned STS GetCallerIdentity URL that names the cluster, cached and re-signed before it expires.
import { errorMessage } from '../errors/index.ts';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { EksAuthError } from './errors.ts';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header aws-iam-authenticator reads the cluster name from; it must be signed. */
export const EKS_CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** Seconds the presigned URL claims; EKS ignores it and accepts a token for 15 minutes after signing. */
export const EKS_PRESIGN_EXPIRES_SECONDS = 60;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When the credentials themselves expire; a token signed with them dies then too. */
  expiration?: Date;
}

export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

export interface EksToken {
  /** `k8s-aws-v1.` + base64url (no padding) of the presigned URL. Never log it. */
  token: string;
  signedAt: Date;
  /** After this the API server refuses it. */
  expiresAt: Date;
  /** From this time on a new token is signed. */
  refreshAt: Date;
}

export interface EksTokenSourceOptions {
  clusterName: string;
  region: string;
  credentials: AwsCredentialsProvider;
  /** @default () => new Date() */
  now?: () => Date;
  /** How long a token counts as valid after signing (EKS accepts 15 minutes; a minute is kept for clock skew). @default 840000 */
  lifetimeMs?: number;
  /** Age at which a new token is signed, well before it expires, so a long pass never carries a dying token. @default 600000 */
  refreshAfterMs?: number;
}

function stsHostname(region: string): string {
  return region.startsWith('cn-') ? `sts.${region}.amazonaws.com.cn` : `sts.${region}.amazonaws.com`;
}

/** Signs one token at `signingDate`. Pure apart from the hash. */
export async function signEksToken(opts: { clusterName: string; region: string; credentials: AwsCredentials; signingDate: Date }): Promise<string> {
  const hostname = stsHostname(opts.region);
  const signer = new SignatureV4({ credentials: opts.credentials, region: opts.region, service: 'sts', sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, [EKS_CLUSTER_ID_HEADER]: opts.clusterName },
  });
  const signed = await signer.presign(request, { expiresIn: EKS_PRESIGN_EXPIRES_SECONDS, signingDate: opts.signingDate });
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return EKS_TOKEN_PREFIX + Buffer.from(`https://${hostname}/?${query}`).toString('base64url');
}

/** Hands out a cached token, signing a new one once the cached one reaches its refresh age. */
export class EksTokenSource {
  private cached: EksToken | undefined;
  private signing: Promise<EksToken> | undefined;
  private readonly now: () => Date;
  private readonly lifetimeMs: number;
  private readonly refreshAfterMs: number;

  constructor(private readonly opts: EksTokenSourceOptions) {
    this.now = opts.now ?? (() => new Date());
    this.lifetimeMs = opts.lifetimeMs ?? 14 * 60_000;
    this.refreshAfterMs = Math.min(opts.refreshAfterMs ?? 10 * 60_000, this.lifetimeMs);
  }

  /** The bearer token to send now. */
  async token(): Promise<string> {
    return (await this.current()).token;
  }

  /** The token with its times (tests, diagnostics without the secret: read `expiresAt`/`refreshAt` only). */
  async current(): Promise<EksToken> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached;
    // Concurrent requests share one signing.
    this.signing ??= this.sign().finally(() => {
      this.signing = undefined;
    });
    this.cached = await this.signing;
    return this.cached;
  }

  private async sign(): Promise<EksToken> {
    const { clusterName, region } = this.opts;
    const signedAt = this.now();
    try {
      const credentials = await this.opts.credentials();
      const token = await signEksToken({ clusterName, region, credentials, signingDate: signedAt });
      let expiresAt = new Date(signedAt.getTime() + this.lifetimeMs);
      if (credentials.expiration && credentials.expiration < expiresAt) expiresAt = credentials.expiration;
      const refreshAt = new Date(Math.min(signedAt.getTime() + this.refreshAfterMs, expiresAt.getTime()));
      return { token, signedAt, expiresAt, refreshAt };
    } catch (err) {
      throw new EksAuthError(clusterName, `signing an EKS token for cluster ${clusterName} in ${region}: ${errorMessage(err)}`, { cause: err });
    }
  }
}
