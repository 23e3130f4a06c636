// `kmaint sim` as a user runs it (the bundled command in a child process): once it prints that it is up, the kubeconfig it
// wrote works with kubectl — get nodemaintenances -A, apply the seed README example, cordon and uncordon — and
// Ctrl-C stops it with exit 0 and the port closed. Needs no testbed; it runs in the testbed project with test/.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary } from '../sim/apiserver/test-support.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'kmaint-sim-cli-'));
const kubeconfig = join(dir, 'kubeconfig');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function kubectl(args: string[], input?: string): Promise<Result> {
  const bin = kubectlBinary();
  if (!bin) throw new Error('no kubectl binary (npm run testbed:build builds one)');
  const child = run(bin, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], { timeout: 60_000 });
  if (input !== undefined) child.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Table lines split on runs of two or more spaces (empty cells vanish, column widths vary). */
function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

const SEED_EXAMPLE = `apiVersion: maintenance.nvidia.com/v1alpha1
kind: NodeMaintenance
metadata:
  name: my-maintenance-operation
  namespace: default
spec:
  requestorID: some.one.acme.com
  nodeName: node-001
  cordon: true
  waitForPodCompletion:
    podSelector: "app=important"
    timeoutSeconds: 0
  drainSpec:
    force: true
    podSelector: ""
    timeoutSeconds: 0
    deleteEmptyDir: true
    podEvictionFilters:
    - byResourceNameRegex: nvidia.com/gpu-*
    - byResourceNameRegex: nvidia.com/rdma*
`;

describe('kmaint sim with kubectl', () => {
  let sim: ChildProcess;
  let stdout = '';
  let stderr = '';
  let exited: Promise<number | null>;

  beforeAll(async () => {
    sim = spawn(process.execPath, kmaintArgs('sim', '--nodes', '3', '--seed', '7', '--kubeconfig-out', kubeconfig), { stdio: ['ignore', 'pipe', 'pipe'] });
    sim.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    sim.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    exited = new Promise((resolve) => sim.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 90_000;
    while (!stdout.includes('Ctrl-C stops it')) {
      if (sim.exitCode !== null) throw new Error(`kmaint sim exited with ${sim.exitCode} before it was up: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`kmaint sim not up within 90 s: ${stdout}${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    if (sim.exitCode === null) {
      sim.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints where it runs and writes the kubeconfig once ready', () => {
    expect(stdout).toMatch(new RegExp(`^kmaint sim: 3 nodes, \\d+ pods running at http://127\\.0\\.0\\.1:\\d+ \\(speed 1x\\); kubeconfig ${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; Ctrl-C stops it\n$`));
    expect(existsSync(kubeconfig)).toBe(true);
  });

  it('kubectl get nodemaintenances -A shows none, then the seed README example with its printer columns', async () => {
    expect(await kubectl(['get', 'nodemaintenances', '-A'])).toEqual({ code: 0, stdout: '', stderr: 'No resources found\n' });
    expect(await kubectl(['apply', '-f', '-'], SEED_EXAMPLE)).toEqual({ code: 0, stdout: 'nodemaintenance.maintenance.nvidia.com/my-maintenance-operation created\n', stderr: '' });
    const r = await kubectl(['get', 'nodemaintenances', '-A']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    // READY, PHASE, WAITING and FAILED are empty until a pass writes status.
    expect(rows(r.stdout)).toEqual([
      ['NAMESPACE', 'NAME', 'NODE', 'REQUESTOR', 'READY', 'PHASE', 'WAITING', 'FAILED', 'AGE'],
      ['default', 'my-maintenance-operation', 'node-001', 'some.one.acme.com', expect.stringMatching(/^\d+s$/)],
    ]);
  });

  it('kubectl cordon and uncordon change what kubectl get node shows', async () => {
    expect(rows((await kubectl(['get', 'nodes'])).stdout).map((r) => [r[0], r[1]])).toEqual([
      ['NAME', 'STATUS'],
      ['node-000', 'Ready'],
      ['node-001', 'Ready'],
      ['node-002', 'Ready'],
    ]);
    expect(await kubectl(['cordon', 'node-001'])).toEqual({ code: 0, stdout: 'node/node-001 cordoned\n', stderr: '' });
    expect(rows((await kubectl(['get', 'node', 'node-001'])).stdout)[1]?.slice(0, 2)).toEqual(['node-001', 'Ready,SchedulingDisabled']);
    expect(await kubectl(['uncordon', 'node-001'])).toEqual({ code: 0, stdout: 'node/node-001 uncordoned\n', stderr: '' });
    expect(rows((await kubectl(['get', 'node', 'node-001'])).stdout)[1]?.slice(0, 2)).toEqual(['node-001', 'Ready']);
  });

  it('Ctrl-C stops it with exit 0 and closes its port', async () => {
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1]);
    sim.kill('SIGINT');
    expect(await exited).toBe(0);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});
