// The kmaint command as a user runs it: one pass and run-until-idle against the testbed, and its errors.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, testbed } from './support/cluster.ts';
import { admin, createNM, generalNodes, getNM, installCrds, phaseOf, removeAllNMs, setUnschedulable } from './support/kmaint.ts';

const run = promisify(execFile);
const ns = `cli-${randomBytes(3).toString('hex')}`;

async function kmaint(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('kmaint CLI against the testbed', () => {
  let node = '';
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    node = (await generalNodes())[0] as string;
  });
  afterAll(async () => {
    await removeAllNMs(ns);
    await setUnschedulable(node, false);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('kmaint pass scheduler prints one JSON summary line and admits the request', async () => {
    await createNM(ns, 'by-cli', { requestorID: 'cli.example.com', nodeName: node });
    const r = await kmaint(['--kubeconfig', testbed().kmaintKubeconfigPath, 'pass', 'scheduler', '-o', 'json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0] as string) as { fn: string; outcome: string; admitted: number; actions: Record<string, number> };
    expect([summary.fn, summary.outcome, summary.admitted, summary.actions['writeStatus']]).toEqual(['scheduler', 'applied', 1, 1]);
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Scheduled');
  });

  it('kmaint pass drainer --dry-run prints the plan and writes nothing', async () => {
    const r = await kmaint(['--kubeconfig', testbed().kmaintKubeconfigPath, 'pass', 'drainer', '--dry-run', '-o', 'text']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('drainer pass');
    expect(r.stdout).toContain(`would cordon node ${node}: cordon for ${ns}/by-cli`);
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Scheduled');
  });

  it('kmaint run all --timeout 60s takes the request to Ready and stops when idle', async () => {
    const r = await kmaint(['--kubeconfig', testbed().kmaintKubeconfigPath, 'run', 'all', '--timeout', '60s', '-o', 'json']);
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as { run: { stopped: string } };
    expect(last.run.stopped).toBe('idle');
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Ready');
  });

  it.each([
    { args: ['pass', 'nope'], code: 2, stderr: 'kmaint: unknown function "nope": expected one of scheduler, drainer, cleanup\n' },
    { args: ['--kubeconfig', '/nonexistent/kubeconfig', 'pass', 'scheduler'], code: 2, stderr: 'kmaint: kubeconfig /nonexistent/kubeconfig does not exist\n' },
    { args: ['run', 'all', '--timeout', 'soon'], code: 2, stderr: 'kmaint: invalid duration "soon": use e.g. 30s, 5m, 1h\n' },
  ])('exits $code with a one-line reason for $args', async ({ args, code, stderr }) => {
    const r = await kmaint(['--kubeconfig', testbed().kmaintKubeconfigPath, ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toBe(stderr);
  });

  it('exits 1 with a one-line reason when the server cannot be reached', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/kmaint-cli-');
    writeFileSync(`${dir}/kc`, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:3"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    const r = await kmaint(['--kubeconfig', `${dir}/kc`, 'pass', 'scheduler']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toBe('kmaint: reading lease kmaint/kmaint-scheduler: fetch failed: connect ECONNREFUSED 127.0.0.1:3\n');
  });
});
