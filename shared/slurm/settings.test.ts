// spec.slurm resolved once: defaults filled in, and every value that cannot work named by its field.
import { describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig } from '../api/index.ts';
import { loadSlurmSettings, slurmConfigNotes, slurmConfigProblems, WORKER_NAMESPACES_UNSET_NOTE, type LoadedSlurm, type SlurmSpec } from './settings.ts';

function config(slurm: SlurmSpec | undefined): MaintenanceOperatorConfig {
  return { metadata: { name: 'default', namespace: 'kmaint' }, spec: slurm ? { slurm } : {} };
}

interface Row {
  rule: string;
  slurm: SlurmSpec | undefined;
  expected: LoadedSlurm | { kind: 'on'; settings: Record<string, unknown> };
}

const ROWS: Row[] = [
  { rule: 'absent is off', slurm: undefined, expected: { kind: 'off' } },
  { rule: 'present but not enabled is off', slurm: { url: 'http://slurm:6820' }, expected: { kind: 'off' } },
  { rule: 'a token without url names the field', slurm: { enabled: true, tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd' }, expected: { kind: 'invalid', problem: 'spec.slurm.url: required when spec.slurm.enabled is true' } },
  {
    rule: 'neither url nor token: the token-free mode, reading Slinky\'s pod conditions',
    slurm: { enabled: true, podSelector: 'nodeset.slinky.slurm.net/pod-hostname', nameFrom: 'label', nameKey: 'nodeset.slinky.slurm.net/pod-hostname' },
    expected: {
      kind: 'on',
      settings: {
        source: 'pod-conditions',
        url: '',
        apiVersion: 'auto',
        reasonPrefix: 'kmaint:',
        mode: 'pod',
        podSelector: expect.any(Object) as unknown,
        nameFrom: 'label',
        nameKey: 'nodeset.slinky.slurm.net/pod-hostname',
        workerNamespaces: ['slurm'],
        drainTimeoutSeconds: 0,
        whenUnreachable: 'wait',
      },
    },
  },
  { rule: 'the token-free mode needs pod mode', slurm: { enabled: true, mode: 'node' }, expected: { kind: 'invalid', problem: "spec.slurm.url: required in node mode (the token-free mode reads Slinky's pod conditions, so it needs pod mode)" } },
  { rule: 'a url that is not http(s)', slurm: { enabled: true, url: 'slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd' }, expected: { kind: 'invalid', problem: 'spec.slurm.url: must be an https:// URL, got "slurm:6820"' } },
  { rule: 'no token source', slurm: { enabled: true, url: 'https://slurm:6820', podSelector: 'app=slurmd' }, expected: { kind: 'invalid', problem: 'spec.slurm.tokenEnv, spec.slurm.tokenSecret or spec.slurm.tokenSecretArn: one is required with url (drop url as well for the token-free mode)' } },
  {
    rule: 'a tokenSecretArn that is not a secret ARN',
    slurm: { enabled: true, url: 'https://slurm:6820', tokenSecretArn: 'slurm-token', podSelector: 'app=slurmd' },
    expected: { kind: 'invalid', problem: 'spec.slurm.tokenSecretArn: "slurm-token" is not a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)' },
  },
  { rule: 'pod mode needs a selector (empty would take every pod for a worker)', slurm: { enabled: true, url: 'https://slurm:6820', tokenEnv: 'SLURM_JWT' }, expected: { kind: 'invalid', problem: 'spec.slurm.podSelector: required in pod mode (an empty selector would take every pod for a Slurm worker)' } },
  {
    rule: 'an unreadable selector says where it broke',
    slurm: { enabled: true, url: 'https://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=,' },
    expected: { kind: 'invalid', problem: expect.stringMatching(/^spec\.slurm\.podSelector: invalid label selector "app=,"/) as unknown as string },
  },
  { rule: 'nameFrom label needs nameKey', slurm: { enabled: true, url: 'https://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd', nameFrom: 'label' }, expected: { kind: 'invalid', problem: 'spec.slurm.nameKey: required when nameFrom is label' } },
  {
    rule: 'Slinky defaults: pod mode, hostname, workers in namespace slurm, kmaint: prefix, wait when unreachable, no timeout; trailing slash dropped; http with allowInsecureHttp',
    slurm: { enabled: true, url: 'http://slurm-restapi.slurm:6820/', allowInsecureHttp: true, tokenSecret: { name: 'slurm-token' }, podSelector: 'app.kubernetes.io/name=slurmd' },
    expected: {
      kind: 'on',
      settings: {
        source: 'slurmrestd',
        url: 'http://slurm-restapi.slurm:6820',
        apiVersion: 'auto',
        tokenSecret: { name: 'slurm-token', key: 'auth-token' },
        reasonPrefix: 'kmaint:',
        mode: 'pod',
        podSelector: expect.any(Object) as unknown,
        workerNamespaces: ['slurm'],
        nameFrom: 'hostname',
        drainTimeoutSeconds: 0,
        whenUnreachable: 'wait',
      },
    },
  },
  {
    rule: "node mode: the CRD's default nameFrom (hostname) reads as the Node's name",
    slurm: { enabled: true, url: 'https://slurm:6820', tokenEnv: 'SLURM_JWT', mode: 'node', nameFrom: 'hostname' },
    expected: { kind: 'on', settings: { source: 'slurmrestd', url: 'https://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'node', nameFrom: 'name', drainTimeoutSeconds: 0, whenUnreachable: 'wait' } },
  },
];

/** Issue 31: whoever edits the config must not have the token sent in clear text, nor another credential sent as the token. */
const NODE_MODE = { enabled: true, mode: 'node', url: 'https://slurm:6820' } as const;
const onWith = (extra: Record<string, unknown>): LoadedSlurm | { kind: 'on'; settings: Record<string, unknown> } => ({
  kind: 'on',
  settings: { source: 'slurmrestd', url: 'https://slurm:6820', apiVersion: 'auto', reasonPrefix: 'kmaint:', mode: 'node', nameFrom: 'name', drainTimeoutSeconds: 0, whenUnreachable: 'wait', ...extra },
});
const ENV_RULE = "the name must match ^SLURM_[A-Z0-9_]+$ (e.g. SLURM_JWT), so that no other variable of kmaint's process is sent as the token";
const SECRET_RULE = "the Slurm token's secret name must start with kmaint/slurm/ (the only secrets kmaint's Slurm roles may read)";
const HARDENING_ROWS: Row[] = [
  {
    rule: 'http without allowInsecureHttp is refused: the token would travel in clear text',
    slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd' },
    expected: { kind: 'invalid', problem: 'spec.slurm.url: "http://slurm:6820" would send the Slurm token unencrypted: use https://, or set spec.slurm.allowInsecureHttp: true for a slurmrestd reached only over a trusted network' },
  },
  { rule: 'allowInsecureHttp: false is the same as absent', slurm: { ...NODE_MODE, url: 'http://slurm:6820', allowInsecureHttp: false, tokenEnv: 'SLURM_JWT' }, expected: { kind: 'invalid', problem: expect.stringMatching(/^spec\.slurm\.url: "http:\/\/slurm:6820" would send the Slurm token unencrypted/) as unknown as string } },
  { rule: 'a url with no host', slurm: { ...NODE_MODE, url: 'https://', tokenEnv: 'SLURM_JWT' }, expected: { kind: 'invalid', problem: 'spec.slurm.url: must be an https:// URL, got "https://"' } },
  { rule: 'another scheme', slurm: { ...NODE_MODE, url: 'file:///etc/passwd', tokenEnv: 'SLURM_JWT' }, expected: { kind: 'invalid', problem: 'spec.slurm.url: must be an https:// URL, got "file:///etc/passwd"' } },
  { rule: 'tokenEnv AWS_SECRET_ACCESS_KEY (the Lambda role\'s key) is refused', slurm: { ...NODE_MODE, tokenEnv: 'AWS_SECRET_ACCESS_KEY' }, expected: { kind: 'invalid', problem: `spec.slurm.tokenEnv: "AWS_SECRET_ACCESS_KEY" is not a Slurm token variable: ${ENV_RULE}` } },
  { rule: 'tokenEnv AWS_SESSION_TOKEN is refused', slurm: { ...NODE_MODE, tokenEnv: 'AWS_SESSION_TOKEN' }, expected: { kind: 'invalid', problem: `spec.slurm.tokenEnv: "AWS_SESSION_TOKEN" is not a Slurm token variable: ${ENV_RULE}` } },
  { rule: "tokenEnv naming kmaint's own variable is refused", slurm: { ...NODE_MODE, tokenEnv: 'KMAINT_KUBECONFIG' }, expected: { kind: 'invalid', problem: `spec.slurm.tokenEnv: "KMAINT_KUBECONFIG" is not a Slurm token variable: ${ENV_RULE}` } },
  { rule: 'tokenEnv SLURM_ alone is refused (nothing after the prefix)', slurm: { ...NODE_MODE, tokenEnv: 'SLURM_' }, expected: { kind: 'invalid', problem: `spec.slurm.tokenEnv: "SLURM_" is not a Slurm token variable: ${ENV_RULE}` } },
  { rule: 'tokenEnv in lower case is refused', slurm: { ...NODE_MODE, tokenEnv: 'slurm_jwt' }, expected: { kind: 'invalid', problem: `spec.slurm.tokenEnv: "slurm_jwt" is not a Slurm token variable: ${ENV_RULE}` } },
  { rule: 'tokenEnv SLURM_REST_TOKEN is taken', slurm: { ...NODE_MODE, tokenEnv: 'SLURM_REST_TOKEN' }, expected: onWith({ tokenEnv: 'SLURM_REST_TOKEN' }) },
  {
    rule: "tokenSecretArn naming kmaint's kubeconfig secret is refused",
    slurm: { ...NODE_MODE, tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kmaint-kubeconfig-AbCdEf' },
    expected: { kind: 'invalid', problem: `spec.slurm.tokenSecretArn: secret "kmaint-kubeconfig-AbCdEf" is not under kmaint/slurm/: ${SECRET_RULE}` },
  },
  {
    rule: 'tokenSecretArn: the prefix is matched on the name, not anywhere in the ARN',
    slurm: { ...NODE_MODE, tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:other/kmaint/slurm/jwt-AbCdEf' },
    expected: { kind: 'invalid', problem: `spec.slurm.tokenSecretArn: secret "other/kmaint/slurm/jwt-AbCdEf" is not under kmaint/slurm/: ${SECRET_RULE}` },
  },
  {
    rule: 'tokenSecretArn: kmaint/slurm/ alone names no secret',
    slurm: { ...NODE_MODE, tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kmaint/slurm/' },
    expected: { kind: 'invalid', problem: `spec.slurm.tokenSecretArn: secret "kmaint/slurm/" is not under kmaint/slurm/: ${SECRET_RULE}` },
  },
  {
    rule: 'tokenSecretArn under kmaint/slurm/, any region and account, is taken',
    slurm: { ...NODE_MODE, tokenSecretArn: 'arn:aws-us-gov:secretsmanager:us-gov-west-1:210987654321:secret:kmaint/slurm/jwt-XyZ123' },
    expected: onWith({ tokenSecretArn: 'arn:aws-us-gov:secretsmanager:us-gov-west-1:210987654321:secret:kmaint/slurm/jwt-XyZ123' }),
  },
];

/** Issue 31: which pods may name the Slurm node kmaint drains. */
const POD_MODE = { enabled: true, url: 'https://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd' } as const;
const podOnWith = (extra: Record<string, unknown>): { kind: 'on'; settings: Record<string, unknown> } => ({
  kind: 'on',
  settings: { source: 'slurmrestd', url: 'https://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: { requirements: [{ key: 'app', operator: '=', values: ['slurmd'] }] }, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait', ...extra },
});
const WORKER_NAMESPACE_ROWS: Row[] = [
  { rule: 'workerNamespaces is kept as given (pod mode)', slurm: { ...POD_MODE, workerNamespaces: ['slurm', 'slurm-b'] }, expected: podOnWith({ workerNamespaces: ['slurm', 'slurm-b'] }) },
  { rule: "workerNamespaces unset: Slurm stays on, workers only from namespace slurm (Slinky's; issue 31: before, any namespace)", slurm: POD_MODE, expected: podOnWith({ workerNamespaces: ['slurm'] }) },
  {
    rule: 'workerNamespaces empty is refused: it would take no pod for a worker and gate nothing, silently',
    slurm: { ...POD_MODE, workerNamespaces: [] },
    expected: { kind: 'invalid', problem: 'spec.slurm.workerNamespaces: an empty list takes no pod for a Slurm worker; name the namespaces of the Slurm worker pods (Slinky: slurm) or leave it unset' },
  },
  { rule: 'node mode has no worker pods: workerNamespaces is dropped', slurm: { ...NODE_MODE, tokenEnv: 'SLURM_JWT', workerNamespaces: ['slurm'] }, expected: onWith({ tokenEnv: 'SLURM_JWT' }) },
];

describe('loadSlurmSettings', () => {
  it.each(WORKER_NAMESPACE_ROWS)('$rule', (row) => {
    expect(loadSlurmSettings(config(row.slurm))).toEqual(row.expected);
  });

  it.each(ROWS)('$rule', (row) => {
    expect(loadSlurmSettings(config(row.slurm))).toEqual(row.expected);
  });

  it.each(HARDENING_ROWS)('$rule', (row) => {
    expect(loadSlurmSettings(config(row.slurm))).toEqual(row.expected);
  });
});

describe('slurmConfigProblems (for the config\'s Valid condition)', () => {
  it.each([
    { rule: 'off: none', slurm: undefined, expected: [] },
    { rule: 'usable: none', slurm: { ...NODE_MODE, tokenEnv: 'SLURM_JWT' }, expected: [] },
    { rule: 'refused: the one problem, naming its field', slurm: { ...NODE_MODE, tokenEnv: 'AWS_SESSION_TOKEN' }, expected: [`spec.slurm.tokenEnv: "AWS_SESSION_TOKEN" is not a Slurm token variable: ${ENV_RULE}`] },
  ] as Array<{ rule: string; slurm: SlurmSpec | undefined; expected: string[] }>)('$rule', ({ slurm, expected }) => {
    expect(slurmConfigProblems(config(slurm))).toEqual(expected);
  });
});

describe("slurmConfigNotes (said on the config's Valid condition, leaving it valid)", () => {
  it.each([
    { rule: 'off: none', slurm: undefined, expected: [] },
    { rule: 'pod mode without workerNamespaces: the note', slurm: POD_MODE, expected: [WORKER_NAMESPACES_UNSET_NOTE] },
    { rule: 'pod mode with workerNamespaces: none', slurm: { ...POD_MODE, workerNamespaces: ['slurm'] }, expected: [] },
    { rule: 'node mode: none (no worker pods)', slurm: { ...NODE_MODE, tokenEnv: 'SLURM_JWT' }, expected: [] },
    { rule: 'refused config: none (the problem is said instead)', slurm: { ...POD_MODE, tokenEnv: 'AWS_SESSION_TOKEN' }, expected: [] },
  ] as Array<{ rule: string; slurm: SlurmSpec | undefined; expected: string[] }>)('$rule', ({ slurm, expected }) => {
    expect(slurmConfigNotes(config(slurm))).toEqual(expected);
  });

  it('the note names the field, the namespace taken instead, and why not to name a tenant namespace', () => {
    expect(WORKER_NAMESPACES_UNSET_NOTE).toBe(
      "spec.slurm.workerNamespaces: unset, so only pods in namespace slurm (Slinky's) are taken for Slurm workers; if your Slurm worker pods run elsewhere, name their namespaces (never one where tenants create pods: a worker pod names the Slurm node kmaint drains)",
    );
  });

  it('an unset workerNamespaces is no problem: Slurm is not turned off and the config stays valid', () => {
    expect(slurmConfigProblems(config(POD_MODE))).toEqual([]);
  });
});
