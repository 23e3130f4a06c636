// A kubeconfig kept in AWS Secrets Manager: read once by GetSecretValue, parsed without its text ever reaching an
// error message or a log line.
import { errorMessage } from '../errors/index.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError, kubeConfigFromText } from './kubeconfig.ts';

/** arn:<partition>:secretsmanager:<region>:<account>:secret:<name> — the region is read from it. */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z]{2}(?:-[a-z]+)+-\d+):\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;

/** The region of a Secrets Manager secret ARN, or undefined when `arn` is not one. */
export function secretArnRegion(arn: string): string | undefined {
  return SECRET_ARN.exec(arn)?.[1];
}

export interface SecretKubeConfigOptions {
  /** Full ARN of the secret; its SecretString (or SecretBinary, UTF-8) is the kubeconfig YAML or JSON. */
  secretArn: string;
  context?: string;
}

/**
 * Reads the secret and parses it. The SDK is loaded only here, so nothing else pays for it. A failure says
 * which secret and what went wrong (AccessDenied, not found, not a kubeconfig), never what the secret holds.
 */
export async function kubeConfigFromSecret(opts: SecretKubeConfigOptions): Promise<KubeConfig> {
  const region = secretArnRegion(opts.secretArn);
  if (!region) throw new KubeConfigError(`"${opts.secretArn}" is not a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)`);
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region });
  let text: string;
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: opts.secretArn }));
    if (out.SecretString !== undefined) text = out.SecretString;
    else if (out.SecretBinary !== undefined) text = new TextDecoder().decode(out.SecretBinary);
    else throw new KubeConfigError(`secret ${opts.secretArn} has no value`);
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    const name = err instanceof Error ? err.name : 'Error';
    throw new KubeConfigError(`reading kubeconfig secret ${opts.secretArn}: ${name}: ${errorMessage(err)}`, { cause: err });
  } finally {
    client.destroy();
  }
  return kubeConfigFromText(text, { source: `from secret ${opts.secretArn}`, ...(opts.context ? { context: opts.context } : {}) });
}
