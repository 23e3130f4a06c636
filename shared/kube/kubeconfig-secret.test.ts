// A kubeconfig read from AWS Secrets Manager (mocked at the SDK): the call made, both value encodings, and each
// refusal's message, none of which repeats what the secret holds.
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { KubeConfigError } from './kubeconfig.ts';
import { kubeConfigFromSecret, secretArnRegion } from './kubeconfig-secret.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kmaint/kubeconfig-AbCdEf';
const TOKEN = 'secret-held-token-9f8e7d6c';
const KUBECONFIG = `apiVersion: v1
clusters: [{name: c, cluster: {server: "https://k8s.example:6443"}}]
users: [{name: u, user: {token: ${TOKEN}}}]
contexts: [{name: c, context: {cluster: c, user: u}}, {name: d, context: {cluster: c, user: u, namespace: other}}]
current-context: c
`;
const sm = mockClient(SecretsManagerClient);

async function refusal(p: Promise<unknown>): Promise<KubeConfigError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof KubeConfigError)) throw new Error(`expected a KubeConfigError, got ${String(err)}`);
  return err;
}

/** Every message and stack along the cause chain, as a log line of the error could show them. */
function everythingSaid(err: unknown): string {
  const parts: string[] = [];
  for (let e = err; e instanceof Error; e = e.cause) parts.push(e.message, e.stack ?? '', JSON.stringify(e));
  return parts.join('\n');
}

beforeEach(() => sm.reset());

describe('secretArnRegion', () => {
  it.each([
    [ARN, 'eu-west-1'],
    ['arn:aws-us-gov:secretsmanager:us-gov-west-1:111122223333:secret:k-AbCdEf', 'us-gov-west-1'],
    ['kmaint/kubeconfig', undefined],
    ['arn:aws:ssm:eu-west-1:111122223333:parameter/kubeconfig', undefined],
    ['arn:aws:secretsmanager:eu-west-1:1111:secret:k', undefined],
  ])('%s -> %s', (arn, region) => {
    expect(secretArnRegion(arn)).toBe(region);
  });
});

describe('kubeConfigFromSecret', () => {
  it('reads SecretString once with the ARN as SecretId and returns its kubeconfig', async () => {
    sm.on(GetSecretValueCommand).resolves({ ARN, SecretString: KUBECONFIG });
    const kc = await kubeConfigFromSecret({ secretArn: ARN });
    expect([kc.getCurrentCluster()?.server, kc.getCurrentUser()?.token]).toEqual(['https://k8s.example:6443', TOKEN]);
    expect(sm).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
    expect(sm).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: ARN });
  });

  it('reads SecretBinary as UTF-8 and selects the context asked for', async () => {
    sm.on(GetSecretValueCommand).resolves({ ARN, SecretBinary: new TextEncoder().encode(KUBECONFIG) });
    const kc = await kubeConfigFromSecret({ secretArn: ARN, context: 'd' });
    expect([kc.getCurrentContext(), kc.getContextObject('d')?.namespace]).toEqual(['d', 'other']);
  });

  it('is refused before any call when the ARN is not a secret ARN', async () => {
    const err = await refusal(kubeConfigFromSecret({ secretArn: 'kmaint/kubeconfig' }));
    expect(err.message).toBe('"kmaint/kubeconfig" is not a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)');
    expect(sm).toHaveReceivedCommandTimes(GetSecretValueCommand, 0);
  });

  it.each<[string, () => void, string]>([
    [
      'the secret does not exist',
      () => sm.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret.", $metadata: {} })),
      `reading kubeconfig secret ${ARN}: ResourceNotFoundException: Secrets Manager can't find the specified secret.`,
    ],
    ['the secret has no value', () => sm.on(GetSecretValueCommand).resolves({ ARN }), `secret ${ARN} has no value`],
    [
      'the value is not YAML (it holds the token)',
      () => sm.on(GetSecretValueCommand).resolves({ ARN, SecretString: `users: [{name: u, user: {token: ${TOKEN}}]\n  : bad` }),
      `kubeconfig from secret ${ARN} is not valid YAML (line 1, column 60)`,
    ],
    [
      'the value is not a kubeconfig (it holds the token)',
      () => sm.on(GetSecretValueCommand).resolves({ ARN, SecretString: JSON.stringify({ token: TOKEN }) }),
      `kubeconfig from secret ${ARN} is not a kubeconfig (no clusters, no contexts)`,
    ],
  ])('fails with one message, without the secret, when %s', async (_rule, arrange, message) => {
    arrange();
    const err = await refusal(kubeConfigFromSecret({ secretArn: ARN }));
    expect(err.message).toBe(message);
    expect(everythingSaid(err)).not.toContain(TOKEN);
  });
});
