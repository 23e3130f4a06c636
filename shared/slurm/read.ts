// A pass's read of Slurm: the token (env var or Secret, never logged), the API version, and one GET of every node.
import { errorMessage } from '../errors/index.ts';
import { secretArnRegion } from '../kube/index.ts';
import { SlurmRestClient } from './client.ts';
import type { LoadedSlurm, SlurmSettings } from './settings.ts';
import type { SlurmContext, SlurmView } from './view.ts';

/** Reads one key of a Secret in kmaint's namespace; undefined when the Secret or key is absent. */
export type SecretKeyReader = (name: string, key: string) => Promise<string | undefined>;

export interface SlurmReadOptions {
  /** spec.slurm as the pass's config parsed it (shared/pass/config.ts). */
  settings: LoadedSlurm;
  /** Read Slurm at all (some request needs it this pass). */
  needed: boolean;
  /** Also list the reservations (some request's maintenance reservation is to be made or deleted). */
  reservations?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  readSecretKey?: SecretKeyReader;
  signal?: AbortSignal;
}

export interface SlurmRead {
  context: SlurmContext | undefined;
  /** The client for this pass's writes (absent when off, invalid or without a token). */
  client?: SlurmRestClient;
}

async function tokenFor(s: SlurmSettings, opts: SlurmReadOptions): Promise<{ ok: true; token: string } | { ok: false; message: string }> {
  if (s.tokenEnv) {
    const v = (opts.env ?? process.env)[s.tokenEnv];
    if (v !== undefined && v.trim() !== '') return { ok: true, token: v.trim() };
    if (!s.tokenSecret && !s.tokenSecretArn) return { ok: false, message: `spec.slurm.tokenEnv: environment variable ${s.tokenEnv} is not set in kmaint's process` };
  }
  if (s.tokenSecret) {
    if (!opts.readSecretKey) return { ok: false, message: 'spec.slurm.tokenSecret: this runtime cannot read Secrets' };
    try {
      const v = await opts.readSecretKey(s.tokenSecret.name, s.tokenSecret.key);
      if (v !== undefined && v.trim() !== '') return { ok: true, token: v.trim() };
      return { ok: false, message: `spec.slurm.tokenSecret: Secret ${s.tokenSecret.name} has no key ${s.tokenSecret.key}` };
    } catch (err) {
      return { ok: false, message: `spec.slurm.tokenSecret: reading Secret ${s.tokenSecret.name}: ${errorMessage(err)}` };
    }
  }
  if (s.tokenSecretArn) return tokenFromSecretsManager(s.tokenSecretArn);
  return { ok: false, message: 'spec.slurm: no token source' };
}

/** GetSecretValue of the ARN (the SDK loaded only here); a failure names the secret and the error, never the value. */
async function tokenFromSecretsManager(arn: string): Promise<{ ok: true; token: string } | { ok: false; message: string }> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region: secretArnRegion(arn) ?? '' });
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    const text = out.SecretString ?? (out.SecretBinary !== undefined ? new TextDecoder().decode(out.SecretBinary) : '');
    if (text.trim() === '') return { ok: false, message: `spec.slurm.tokenSecretArn: secret ${arn} has no value` };
    return { ok: true, token: text.trim() };
  } catch (err) {
    return { ok: false, message: `spec.slurm.tokenSecretArn: reading secret ${arn}: ${errorMessage(err, { name: true })}` };
  } finally {
    client.destroy();
  }
}

/** Undefined context when spec.slurm is off or no request needs Slurm; problems come back inside the view. */
export async function readSlurm(opts: SlurmReadOptions): Promise<SlurmRead> {
  const loaded = opts.settings;
  if (loaded.kind === 'off') return { context: undefined };
  if (loaded.kind === 'invalid') return { context: { kind: 'invalid', problem: loaded.problem } };
  if (!opts.needed) return { context: undefined };
  const settings = loaded.settings;
  if (settings.source === 'pod-conditions') return { context: { kind: 'on', settings, view: { kind: 'pod-conditions' } } };
  const token = await tokenFor(settings, opts);
  if (!token.ok) return { context: { kind: 'on', settings, view: { kind: 'problem', problem: { kind: 'token', message: token.message } } } };
  const client = new SlurmRestClient({ url: settings.url, token: token.token, apiVersion: settings.apiVersion, ...(opts.signal ? { signal: opts.signal } : {}) });
  const listed = await client.listNodes();
  let view: SlurmView = listed.ok ? { kind: 'ok', nodes: new Map(listed.value.map((n) => [n.name, n])) } : { kind: 'problem', problem: listed.problem };
  if (view.kind === 'ok' && opts.reservations === true) {
    const r = await client.listReservations();
    view = { ...view, reservations: r.ok ? { kind: 'ok', byName: new Map(r.value.map((x) => [x.name, x])) } : { kind: 'problem', problem: r.problem } };
  }
  return { context: { kind: 'on', settings, view }, client };
}
