// Where spec.slurm may send kmaint's Slurm token and which of kmaint's secrets it may name as that token: whoever
// can edit the config must not be able to have another credential of kmaint's process (its AWS keys, its kubeconfig
// secret) sent as X-SLURM-USER-TOKEN, nor the token sent in clear text.

/**
 * Names spec.slurm.tokenEnv may take: SLURM_ and upper-case letters, digits or underscores (SLURM_JWT is what
 * `scontrol token` prints). Never AWS_* (the Lambda runtime's credentials), KMAINT_* (kmaint's own settings) or any
 * other variable of the process.
 */
export const SLURM_TOKEN_ENV_PATTERN = /^SLURM_[A-Z0-9_]+$/;

/** The Secrets Manager secret names spec.slurm.tokenSecretArn may take start so; kmaint's Lambda roles may read only these. */
export const SLURM_TOKEN_SECRET_PREFIX = 'kmaint/slurm/';

/** arn:<partition>:secretsmanager:<region>:<account>:secret:<name>, any region and account: the name is what is judged. */
const SECRET_ARN_NAME = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:(.+)$/;

/** Why `url` may not carry the token (the field name first, without `spec.slurm.`), or undefined when it may. */
export function slurmUrlProblem(url: string, allowInsecureHttp: boolean): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.hostname === '') {
    return `url: must be an https:// URL, got "${url}"`;
  }
  if (parsed.protocol === 'http:' && !allowInsecureHttp) {
    return `url: "${url}" would send the Slurm token unencrypted: use https://, or set spec.slurm.allowInsecureHttp: true for a slurmrestd reached only over a trusted network`;
  }
  return undefined;
}

/** Why `name` may not be read as the token (the field name first), or undefined when it may. */
export function slurmTokenEnvProblem(name: string): string | undefined {
  if (SLURM_TOKEN_ENV_PATTERN.test(name)) return undefined;
  return `tokenEnv: "${name}" is not a Slurm token variable: the name must match ${SLURM_TOKEN_ENV_PATTERN.source} (e.g. SLURM_JWT), so that no other variable of kmaint's process is sent as the token`;
}

/** Why the secret of `arn` may not be read as the token (the field name first), or undefined when it may. */
export function slurmTokenSecretProblem(arn: string): string | undefined {
  const name = SECRET_ARN_NAME.exec(arn)?.[1];
  if (name !== undefined && name.startsWith(SLURM_TOKEN_SECRET_PREFIX) && name.length > SLURM_TOKEN_SECRET_PREFIX.length) return undefined;
  return `tokenSecretArn: secret "${name ?? arn}" is not under ${SLURM_TOKEN_SECRET_PREFIX}: the Slurm token's secret name must start with ${SLURM_TOKEN_SECRET_PREFIX} (the only secrets kmaint's Slurm roles may read)`;
}
