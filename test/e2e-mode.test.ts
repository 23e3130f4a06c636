// The e2e project (KMAINT_E2E_KUBECONFIG, test/setup/e2e-global.ts) proven on this worker's testbed, treated as an
// existing cluster known only by an admin kubeconfig: `vitest run --project e2e` as a child process, judged by its
// output (what passed, what was counted not applicable on e2e), with the three kinds of user real kubeconfigs have
// (bearer token, client certificate, exec plugin), a cluster lacking node inventory some tests need, and the ways it
// refuses to start.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, kubectl, testbed } from './support/cluster.ts';
import { generalNodes, nodes } from './support/kmaint.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const scratch = mkdtempSync(join(tmpdir(), 'kmaint-e2e-mode-'));

interface ChildResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a fresh `npm`/`vitest` run: this worker's vitest variables and the cluster choice left out. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const dropped = (k: string): boolean => k.startsWith('VITEST') || ['TEST', 'FORCE_COLOR', 'KMAINT_TEST_CLUSTER', 'KMAINT_E2E_KUBECONFIG'].includes(k);
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !dropped(k))), NO_COLOR: '1', ...extra };
}

/** Runs `cmd args` in the repository; never throws on a non-zero exit. Colour codes are taken out of the output. */
function runChild(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ChildResult> {
  // eslint-disable-next-line no-control-regex
  const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');
  return new Promise((resolvePromise) => {
    execFile(cmd, args, { cwd: REPO, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolvePromise({ code, stdout: plain(stdout), stderr: plain(stderr) });
    });
  });
}

const lines = (s: string): string[] => s.split('\n').map((l) => l.trimEnd());

const base64 = (data: string | Buffer): string => Buffer.from(data).toString('base64');

/** A kubeconfig for this testbed's API server, CA embedded, whose one user is `user` (its YAML lines, indented 4). */
function kubeconfigWithUser(name: string, user: string[]): string {
  const path = join(scratch, `${name}.kubeconfig`);
  const ca = base64(readFileSync(testbed().caFile));
  const yaml = ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: e2e', '  cluster:', `    server: ${testbed().server}`, `    certificate-authority-data: ${ca}`];
  yaml.push('users:', `- name: ${name}`, '  user:', ...user, 'contexts:', `- name: ${name}@e2e`, `  context: { cluster: e2e, user: ${name} }`, `current-context: ${name}@e2e`, '');
  writeFileSync(path, yaml.join('\n'), { mode: 0o600 });
  return path;
}

/**
 * An admin kubeconfig as kind and kubeadm write them: a client certificate (CN=kmaint-e2e-admin, O=system:masters)
 * signed by the testbed's CA (ca.key beside ca.crt, testbed/certs.ts), certificate and key embedded.
 */
function clientCertificateKubeconfig(): string {
  const caDir = dirname(testbed().caFile);
  const at = (f: string): string => join(scratch, f);
  writeFileSync(at('client.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature\n');
  const openssl = (args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', at('client.key'), '-out', at('client.csr'), '-subj', '/CN=kmaint-e2e-admin/O=system:masters']);
  // -set_serial, not -CAcreateserial: nothing is written into the testbed's directory.
  openssl(['x509', '-req', '-in', at('client.csr'), '-CA', join(caDir, 'ca.crt'), '-CAkey', join(caDir, 'ca.key'), '-set_serial', '0x6b6d61696e74', '-days', '1', '-out', at('client.crt'), '-extfile', at('client.ext')]);
  return kubeconfigWithUser('cert-admin', [`    client-certificate-data: ${base64(readFileSync(at('client.crt')))}`, `    client-key-data: ${base64(readFileSync(at('client.key')))}`]);
}

/**
 * An admin kubeconfig as EKS writes them (`aws eks get-token`): an exec plugin, here a script that prints a
 * client.authentication.k8s.io/v1 ExecCredential with the testbed admin's token and notes each call in `calls`.
 */
function execPluginKubeconfig(): string {
  const token = adminKubeConfig().getCurrentUser()?.token ?? '';
  expect(token).toMatch(/^[0-9a-f]{48}$/);
  const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
  const plugin = join(scratch, 'get-token');
  writeFileSync(plugin, `#!/bin/sh\necho call >> '${join(scratch, 'calls')}'\ncat <<'EOF'\n${credential}\nEOF\n`, { mode: 0o700 });
  return kubeconfigWithUser('exec-admin', ['    exec:', '      apiVersion: client.authentication.k8s.io/v1', `      command: ${plugin}`, '      interactiveMode: Never']);
}

/** Who the API server takes a kubeconfig's user for (`kubectl auth whoami`): user name and groups. */
async function whoAmI(kubeconfig: string): Promise<{ username?: string; groups?: string[] }> {
  const r = await runChild(testbed().kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', join(scratch, 'kubectl-cache'), 'auth', 'whoami', '-o', 'json'], childEnv({}), 30_000);
  expect(r.code, r.stderr).toBe(0);
  const { username, groups } = (JSON.parse(r.stdout) as { status: { userInfo: { username?: string; groups?: string[] } } }).status.userInfo;
  return { username, groups };
}

/**
 * Runs the e2e project on admission and testbed-contract with `kubeconfig`: every test passes but the one that reads
 * the audit log, counted not applicable on e2e.
 */
async function expectSuitePasses(kubeconfig: string, label: string): Promise<void> {
  const started = Date.now();
  const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts', 'test/testbed-contract.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: kubeconfig }), 170_000);
  process.stderr.write(`[e2e-mode] the e2e project on admission and testbed-contract, ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  const out = lines(r.stdout);
  const err = lines(r.stderr);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  expect(out.map((l) => l.trim())).toEqual(expect.arrayContaining(['Test Files  2 passed (2)', 'Tests  9 passed (9)']));
  const notApplicable = '1 test not applicable on e2e: "the audit helper reports exactly the requests a test made, by user and verb" (needs the API server audit log) [test/testbed-contract.test.ts]';
  const count = err.findIndex((l) => l.startsWith('[e2e] project e2e: '));
  expect(err[count]).toMatch(/^\[e2e\] project e2e: 2 test files in \d+\.\d s wall \(\d+\.\d s summed over files\); 1 test not applicable on e2e:$/);
  expect(err[count + 1]).toBe(`  ${notApplicable}`);
  expect(err).toContain(`[e2e] ${notApplicable}`);
  expect(err.filter((l) => l.startsWith('[e2e] kmaint installed in '))).toEqual([expect.stringMatching(new RegExp(`^\\[e2e\\] kmaint installed in \\d+\\.\\d s at ${testbed().server.replace(/\./g, '\\.')}: ${testbed().nodes.length} nodes, 4 in kmaint\\.io/pool=general \\(/`))]);
  // The testbed's nodes have all the inventory the tests need.
  expect(err.filter((l) => l.includes('lack what some tests need'))).toEqual([]);
}

/** The testbed's nodes labelled kmaint.io/pool=`pool`, by name. */
async function poolNodes(pool: string): Promise<string[]> {
  return (await nodes())
    .filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === pool)
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

describe('the e2e project on an existing cluster (this testbed, known only by an admin kubeconfig)', () => {
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('with the testbed admin kubeconfig (bearer token): runs admission and testbed-contract, every test passes but the one that reads the audit log, counted not applicable on e2e', async () => {
    await expectSuitePasses(testbed().kubeconfigPath, 'bearer token');
  }, 180_000);

  it('with a client-certificate kubeconfig (CN=kmaint-e2e-admin, O=system:masters, certificate, key and CA embedded): the same files pass the same way', async () => {
    const kubeconfig = clientCertificateKubeconfig();
    expect(readFileSync(kubeconfig, 'utf8')).not.toMatch(/token|certificate-authority:|client-certificate:/);
    expect(await whoAmI(kubeconfig)).toEqual({ username: 'kmaint-e2e-admin', groups: ['system:masters', 'system:authenticated'] });
    await expectSuitePasses(kubeconfig, 'client certificate');
  }, 180_000);

  it('with an exec-plugin kubeconfig (a script printing a client.authentication.k8s.io/v1 ExecCredential, CA embedded): the same files pass the same way', async () => {
    const kubeconfig = execPluginKubeconfig();
    expect(readFileSync(kubeconfig, 'utf8')).not.toMatch(/token:|certificate-authority:/);
    expect(await whoAmI(kubeconfig)).toEqual({ username: 'kmaint-testbed-admin', groups: ['system:masters', 'system:authenticated'] });
    await expectSuitePasses(kubeconfig, 'exec plugin');
    // The credential came from the plugin: it ran (in the setup, each file's worker, each kubectl) and nothing else holds the token.
    expect(lines(readFileSync(join(scratch, 'calls'), 'utf8')).filter((l) => l === 'call').length).toBeGreaterThan(1);
  }, 180_000);

  it('a cluster without a node in the gpu pool: the three admission tests that need one are counted not applicable on e2e by name, the zone test passes', async () => {
    const gpu = await poolNodes('gpu');
    expect(gpu.length).toBe(1);
    const relabel = async (value: string): Promise<void> => {
      const r = await kubectl(['label', 'node', ...gpu, `kmaint.io/pool=${value}`, '--overwrite']);
      expect(r.code, r.stderr).toBe(0);
    };
    await relabel('e2e-mode-lent');
    try {
      const started = Date.now();
      const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: testbed().kubeconfigPath }), 170_000);
      process.stderr.write(`[e2e-mode] the e2e project on admission without a gpu-pool node: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      const out = lines(r.stdout);
      const err = lines(r.stderr);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      // The zone test and the test that counts the others.
      expect(out.map((l) => l.trim())).toEqual(expect.arrayContaining(['Test Files  1 passed (1)', 'Tests  2 passed (2)']));
      expect(err.filter((l) => l.includes('lack what some tests need'))).toEqual(["[e2e] the cluster's nodes lack what some tests need, counted not applicable on e2e: a node in the gpu pool"]);
      const needsGpu = [
        'pools chosen by the kmaint.io/pool label: gpu allows 1 unavailable, general 25%; a node in no pool follows the cluster limit',
        'a closed window holds new requests with the time it opens, writes nothing while closed, and admits once open; a pool window narrows it',
        'an invalid pool window and overlapping pools are reported on the config; only that pool stops',
      ];
      const notApplicable = `3 tests not applicable on e2e: ${needsGpu.map((name) => `"${name}" (needs a node in the gpu pool)`).join('; ')} [test/admission.test.ts]`;
      const count = err.findIndex((l) => l.startsWith('[e2e] project e2e: '));
      expect(err[count]).toMatch(/^\[e2e\] project e2e: 1 test file in \d+\.\d s wall \(\d+\.\d s summed over files\); 3 tests not applicable on e2e:$/);
      expect(err[count + 1]).toBe(`  ${notApplicable}`);
      expect(err).toContain(`[e2e] ${notApplicable}`);
    } finally {
      await relabel('gpu');
    }
    expect(await poolNodes('gpu')).toEqual(gpu);
  }, 180_000);

  it('npm run test:e2e without KMAINT_E2E_KUBECONFIG exits 2 with one line naming it', async () => {
    const r = await runChild('npm', ['run', 'test:e2e'], childEnv({}), 60_000);
    expect(r.code).toBe(2);
    expect(lines(r.stderr).filter((l) => l.includes('KMAINT_E2E_KUBECONFIG'))).toEqual(['KMAINT_E2E_KUBECONFIG is not set: the e2e project runs the behaviour suite on the cluster of the admin kubeconfig it names']);
    expect(r.stdout).not.toContain('RUN');
  });

  it('an API server that does not answer fails the setup with one line naming the server, before any test runs', async () => {
    const kubeconfig = join(scratch, 'unreachable.kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: nowhere',
        '  cluster: { server: "https://127.0.0.1:3", insecure-skip-tls-verify: true }',
        'users:',
        '- name: admin',
        '  user: { token: unused }',
        'contexts:',
        '- name: admin@nowhere',
        '  context: { cluster: nowhere, user: admin }',
        'current-context: admin@nowhere',
        '',
      ].join('\n'),
    );
    const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: kubeconfig }), 60_000);
    expect(r.code).toBe(1);
    const said = [...lines(r.stdout), ...lines(r.stderr)].filter((l) => l.includes('does not answer'));
    expect(said).toEqual([`Error: KMAINT_E2E_KUBECONFIG=${kubeconfig}: the API server https://127.0.0.1:3 does not answer: connect ECONNREFUSED 127.0.0.1:3`]);
    expect(r.stdout + r.stderr).not.toContain('kmaint installed');
  });

  it('a kubeconfig whose current context names no user fails the setup with one line saying so, before any request', async () => {
    const kubeconfig = join(scratch, 'no-user.kubeconfig');
    writeFileSync(kubeconfig, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: nowhere', '  cluster: { server: "https://127.0.0.1:3" }', 'contexts:', '- name: x', '  context: { cluster: nowhere, user: nobody }', 'current-context: x', ''].join('\n'));
    const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: kubeconfig }), 60_000);
    expect(r.code).toBe(1);
    const said = [...lines(r.stdout), ...lines(r.stderr)].filter((l) => l.includes('KMAINT_E2E_KUBECONFIG='));
    expect(said).toEqual([`Error: KMAINT_E2E_KUBECONFIG=${kubeconfig}: the current context names no user (one with a token, a client certificate or an exec plugin is needed)`]);
    expect(r.stdout + r.stderr).not.toContain('does not answer');
  });

  it('a cluster with fewer than 3 nodes labelled kmaint.io/pool=general fails the setup with one line saying so, installing nothing', async () => {
    const general = await generalNodes();
    expect(general.length).toBe(4);
    const lent = general.slice(0, 2);
    const relabel = async (value: string): Promise<void> => {
      const r = await kubectl(['label', 'node', ...lent, `kmaint.io/pool=${value}`, '--overwrite']);
      expect(r.code, r.stderr).toBe(0);
    };
    await relabel('e2e-mode-lent');
    try {
      const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: testbed().kubeconfigPath }), 60_000);
      expect(r.code).toBe(1);
      const said = [...lines(r.stdout), ...lines(r.stderr)].filter((l) => l.includes('kmaint.io/pool=general'));
      expect(said).toEqual([`Error: the e2e cluster ${testbed().server} needs at least 3 nodes labelled kmaint.io/pool=general (disposable nodes the suite cordons and drains), has 2: kubectl label node NAME kmaint.io/pool=general`]);
      expect(r.stdout + r.stderr).not.toContain('kmaint installed');
    } finally {
      await relabel('general');
    }
    expect(await generalNodes()).toEqual(general);
  });

  it('a cluster with a cordoned node fails the setup with one line naming it, installing nothing', async () => {
    const node = (await generalNodes())[0] as string;
    expect((await kubectl(['cordon', node])).code).toBe(0);
    try {
      const r = await runChild('npx', ['vitest', 'run', '--project', 'e2e', 'test/admission.test.ts'], childEnv({ KMAINT_E2E_KUBECONFIG: testbed().kubeconfigPath }), 60_000);
      expect(r.code).toBe(1);
      const said = [...lines(r.stdout), ...lines(r.stderr)].filter((l) => l.includes('Ready and schedulable'));
      expect(said).toEqual([`Error: the e2e cluster ${testbed().server} needs every node Ready and schedulable (the suite's checks count them all), but not: ${node} (cordoned)`]);
      expect(r.stdout + r.stderr).not.toContain('kmaint installed');
    } finally {
      expect((await kubectl(['uncordon', node])).code).toBe(0);
    }
  });
});
