// A kubeconfig from text (KMAINT_KUBECONFIG, a secret) and from a file: what is accepted, and each refusal's exact
// message, none of which repeats the text it was given.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfigError, kubeConfigFromText, loadKubeConfig } from './kubeconfig.ts';

const TOKEN = 'kc-text-token-0123456789';
const YAML = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster: {server: "https://one.example:6443", insecure-skip-tls-verify: true}
- name: two
  cluster: {server: "https://two.example:6443"}
users:
- name: u
  user: {token: ${TOKEN}}
contexts:
- name: one
  context: {cluster: one, user: u}
- name: two
  context: {cluster: two, user: u}
current-context: one
`;

function refusal(fn: () => unknown): KubeConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof KubeConfigError) return err;
    throw err;
  }
  throw new Error('expected a KubeConfigError');
}

describe('kubeConfigFromText', () => {
  it('reads YAML: current context, its server and the user token', () => {
    const kc = kubeConfigFromText(YAML, { source: 'from KMAINT_KUBECONFIG' });
    expect([kc.getCurrentContext(), kc.getCurrentCluster()?.server, kc.getCurrentUser()?.token]).toEqual(['one', 'https://one.example:6443', TOKEN]);
  });

  it('reads JSON and switches to the context asked for', () => {
    const json = JSON.stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }, { name: 'd', cluster: { server: 'https://d.example' } }],
      users: [{ name: 'u', user: { token: TOKEN } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }, { name: 'd', context: { cluster: 'd', user: 'u' } }],
      'current-context': 'c',
    });
    expect(kubeConfigFromText(json, { source: 'x', context: 'd' }).getCurrentCluster()?.server).toBe('https://d.example');
  });

  it.each<[string, string, string | undefined, string]>([
    ['empty text', '  \n', undefined, 'kubeconfig from KMAINT_KUBECONFIG is empty'],
    ['broken YAML: position only, no quoted line', `users:\n- name: u\n  user: {token: ${TOKEN}\n bad: : :`, undefined, 'kubeconfig from KMAINT_KUBECONFIG is not valid YAML (line 4, column 2)'],
    ['YAML that is not a kubeconfig', `just the token ${TOKEN}`, undefined, 'kubeconfig from KMAINT_KUBECONFIG is not a kubeconfig (no clusters, no contexts)'],
    ['a cluster without a server', 'clusters: [{name: c, cluster: {}}]', undefined, 'kubeconfig from KMAINT_KUBECONFIG: clusters[0].cluster.server is missing'],
    ['an unknown context', YAML, 'three', 'kubeconfig from KMAINT_KUBECONFIG has no context "three"'],
    ['no current context', YAML.replace('current-context: one\n', ''), undefined, 'kubeconfig from KMAINT_KUBECONFIG names no cluster'],
  ])('refuses %s', (_rule, text, context, message) => {
    const err = refusal(() => kubeConfigFromText(text, { source: 'from KMAINT_KUBECONFIG', ...(context ? { context } : {}) }));
    expect(err.message).toBe(message);
    // Neither the message nor anything it was caused by repeats the token.
    let e: unknown = err;
    for (; e instanceof Error; e = e.cause) expect(`${e.message}${e.stack ?? ''}`).not.toContain(TOKEN);
  });
});

describe('loadKubeConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-kc-'));
  const file = join(dir, 'config');
  writeFileSync(file, YAML);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a file and selects a context', () => {
    expect(loadKubeConfig({ path: file, context: 'two' }).getCurrentCluster()?.server).toBe('https://two.example:6443');
  });

  it.each<[string, { path: string; context?: string }, string]>([
    ['a missing file', { path: join(dir, 'nope') }, `kubeconfig ${join(dir, 'nope')} does not exist`],
    ['an unknown context', { path: file, context: 'three' }, `kubeconfig ${file} has no context "three"`],
  ])('refuses %s', (_rule, opts, message) => {
    expect(refusal(() => loadKubeConfig(opts)).message).toBe(message);
  });

  it('refuses no kubeconfig at all (no ~/.kube/config, not in a pod) with one line, instead of http://localhost:8080', () => {
    const err = refusal(() => loadKubeConfig({ env: {}, home: dir, inClusterToken: join(dir, 'no-token') }));
    expect([err.name, err.message]).toEqual(['KubeConfigError', `no kubeconfig: no --kubeconfig, KUBECONFIG is unset, ${join(dir, '.kube', 'config')} does not exist, and this is not a pod (no service account token)`]);
  });
});
