// spec.slurm resolved once: defaults filled in, and every value that cannot work named by its field.
import { describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig } from '../api/index.ts';
import { loadSlurmSettings, type LoadedSlurm, type SlurmSpec } from './settings.ts';

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
        drainTimeoutSeconds: 0,
        whenUnreachable: 'wait',
      },
    },
  },
  { rule: 'the token-free mode needs pod mode', slurm: { enabled: true, mode: 'node' }, expected: { kind: 'invalid', problem: "spec.slurm.url: required in node mode (the token-free mode reads Slinky's pod conditions, so it needs pod mode)" } },
  { rule: 'a url that is not http(s)', slurm: { enabled: true, url: 'slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd' }, expected: { kind: 'invalid', problem: 'spec.slurm.url: must start with http:// or https://, got "slurm:6820"' } },
  { rule: 'no token source', slurm: { enabled: true, url: 'http://slurm:6820', podSelector: 'app=slurmd' }, expected: { kind: 'invalid', problem: 'spec.slurm.tokenEnv, spec.slurm.tokenSecret or spec.slurm.tokenSecretArn: one is required with url (drop url as well for the token-free mode)' } },
  {
    rule: 'a tokenSecretArn that is not a secret ARN',
    slurm: { enabled: true, url: 'http://slurm:6820', tokenSecretArn: 'slurm-token', podSelector: 'app=slurmd' },
    expected: { kind: 'invalid', problem: 'spec.slurm.tokenSecretArn: "slurm-token" is not a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)' },
  },
  { rule: 'pod mode needs a selector (empty would take every pod for a worker)', slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT' }, expected: { kind: 'invalid', problem: 'spec.slurm.podSelector: required in pod mode (an empty selector would take every pod for a Slurm worker)' } },
  {
    rule: 'an unreadable selector says where it broke',
    slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=,' },
    expected: { kind: 'invalid', problem: expect.stringMatching(/^spec\.slurm\.podSelector: invalid label selector "app=,"/) as unknown as string },
  },
  { rule: 'nameFrom label needs nameKey', slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT', podSelector: 'app=slurmd', nameFrom: 'label' }, expected: { kind: 'invalid', problem: 'spec.slurm.nameKey: required when nameFrom is label' } },
  {
    rule: 'Slinky defaults: pod mode, hostname, kmaint: prefix, wait when unreachable, no timeout; trailing slash dropped',
    slurm: { enabled: true, url: 'http://slurm-restapi.slurm:6820/', tokenSecret: { name: 'slurm-token' }, podSelector: 'app.kubernetes.io/name=slurmd' },
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
        nameFrom: 'hostname',
        drainTimeoutSeconds: 0,
        whenUnreachable: 'wait',
      },
    },
  },
  {
    rule: "node mode: the CRD's default nameFrom (hostname) reads as the Node's name",
    slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT', mode: 'node', nameFrom: 'hostname' },
    expected: { kind: 'on', settings: { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'node', nameFrom: 'name', drainTimeoutSeconds: 0, whenUnreachable: 'wait' } },
  },
];

describe('loadSlurmSettings', () => {
  it.each(ROWS)('$rule', (row) => {
    expect(loadSlurmSettings(config(row.slurm))).toEqual(row.expected);
  });
});
