// HS256 JWTs for slurmrestd signed with the cluster's jwt key, as `scontrol token` makes them (tests and the runner only).
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** A token for Slurm user `user`, valid `lifespanSeconds` from `now`. */
export function mintSlurmJwt(keyPath: string, opts: { user?: string; lifespanSeconds?: number; now?: Date } = {}): string {
  const key = readFileSync(keyPath);
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = base64url(JSON.stringify({ sun: opts.user ?? 'root', iat, exp: iat + (opts.lifespanSeconds ?? 3600) }));
  const signature = createHmac('sha256', key).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}
