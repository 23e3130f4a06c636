// `kmaint snapshot` and `kmaint simulate` as a user runs them (child processes, stdout not a TTY).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSimApiServer, type SimApiServer } from '../../sim/apiserver/index.ts';
import { CRDS_DIR } from '../../sim/embedded.ts';
import { readSnapshotFile, validateSnapshot, type WhatIfReport } from '../../sim/whatif/index.ts';
import { seedSnapshot } from '../../sim/whatif/seed.ts';
import { kmaintArgs } from '../../test/support/kmaint-cli.ts';

const FIXTURE = 'sim/whatif/fixtures/small-cluster.json';
const CONFIG = 'sim/whatif/fixtures/small-config.yaml';
const GPU_FIXTURE = 'sim/whatif/fixtures/gpu-cluster.json';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kmaint(args: string[], timeoutMs = 110_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs(...args), { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const errorLines = (run: Run): string[] => run.stderr.trim().split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'));

describe('kmaint simulate', () => {
  it('prints the report as one JSON object with --output json', async () => {
    const run = await kmaint(['simulate', '--from', FIXTURE, '--config', CONFIG, '--all-nodes', '--pass-time', '0s', '--output', 'json']);
    expect(errorLines(run)).toEqual([]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as WhatIfReport;
    expect(report.outcome).toBe('done');
    expect(report.makespanMs).toBe(201_000);
    expect(report.idealMakespanMs).toBe(120_000);
    expect(report.admissionOrder.map((a) => a.node)).toEqual(['cp-1', 'worker-a', 'worker-b', 'worker-c', 'worker-d']);
    expect(report.limits).toEqual({ maxParallelOperations: 2, maxUnavailable: 2, problems: [] });
  });

  it('prints the makespans, the admission order, the budget waits and the peaks as text', async () => {
    const run = await kmaint(['simulate', '--from', FIXTURE, '--config', CONFIG, '--all-nodes', '--pass-time', '0s', '--output', 'text']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 9)).toEqual([
      'kmaint simulate: a rolling maintenance of 5 nodes of 5 nodes (19 pods, 3 PodDisruptionBudgets; fixture: 5 nodes (1 control-plane, 4 workers), 3 budgets)',
      '  limits: maxParallelOperations 2, maxUnavailable 2; hold 0s, replacement pods Ready 10s after binding',
      'predicted makespan: 3m 21s simulated',
      "ideal makespan:     2m 00s (each node's longest grace period, under the limits, no budget waits)",
      'admission order: cp-1 +0s, worker-a +0s, worker-b +0s, worker-c +30s, worker-d +1m 01s',
      'budget waits (top 2 by total wait):',
      '  data/db       2 pods waited, 2m 00s in all, longest 1m 20s',
      '  web/frontend  2 pods waited, 20.5s in all, longest 10.5s',
      'limit waits: 2 requests waited for a slot, longest 1m 01s, mean 45.3s',
    ]);
    expect(lines[9]).toBe('peak unavailable nodes by pool: control-plane 1, general 2 (cluster 2; 2 in maintenance at most)');
    expect(lines[10]).toBe('cluster: 14 evictions, 13 replacement pods');
    expect(lines[11]).toMatch(/^kmaint: \d+ passes in \d+ rounds; 3m 21s simulated in [\d.]+s wall \([\d.]+s of it loading the cluster\)$/);
  });

  it('simulates a generated profile without a snapshot', async () => {
    const run = await kmaint(['simulate', '--profile', 'small', '--nodes', 'kmaint.io/pool=general', '--output', 'json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as WhatIfReport;
    expect(report.source).toBe('profile small, seed 1, 6 nodes');
    expect(report.admissionOrder.map((a) => a.node)).toEqual(['node-001', 'node-002', 'node-003', 'node-004']);
  });

  it('--devices: one device request, only its holder evicted, the holders in the JSON report', async () => {
    const run = await kmaint(['simulate', '--from', GPU_FIXTURE, '--devices', 'gpu.nvidia.com/gpu-01/gpu-1', '--pass-time', '0s', '--output', 'json']);
    expect([errorLines(run), run.code]).toEqual([[], 0]);
    const report = JSON.parse(run.stdout) as WhatIfReport;
    expect([report.outcome, report.nodes, report.deviceRequests]).toEqual(['done', 0, { requests: 1, devices: 1 }]);
    expect(report.admissionOrder.map((a) => [a.request, a.holders, a.evicted, a.nodeCordoned])).toEqual([
      ['default/whatif-gpu-01-devices', [{ pod: 'ml/holder-b', devices: ['gpu.nvidia.com/gpu-01/gpu-1'] }], ['ml/holder-b'], false],
    ]);
  });

  it('exits 1 and says why when the maintenance cannot finish', async () => {
    // The small profile's only gpu node runs both ml/inference replicas, whose budget needs one of them.
    const run = await kmaint(['simulate', '--profile', 'small', '--nodes', 'kmaint.io/pool=gpu', '--output', 'text']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('predicted makespan: none — the maintenance cannot finish');
    expect(run.stdout).toMatch(/not finished: default\/whatif-node-005 \(node-005\) Draining: draining: .*waits for PodDisruptionBudget ml\/inference/);
  });

  it.concurrent.each([
    [['simulate', '--all-nodes'], 'kmaint: give exactly one of --from <snapshot> or --profile <name>'],
    [['simulate', '--from', FIXTURE], 'kmaint: give exactly one of --all-nodes or --nodes <selector>, or --devices <driver/pool/device,...>'],
    [['simulate', '--from', 'no/such/file.json', '--all-nodes'], 'kmaint: no/such/file.json: cannot read the snapshot: ENOENT: no such file or directory, open \'no/such/file.json\''],
    [['simulate', '--from', CONFIG, '--all-nodes'], `kmaint: ${CONFIG}: not JSON: Unexpected token '#', "# The what"... is not valid JSON`],
    [['simulate', '--from', FIXTURE, '--nodes', 'role in', '--output', 'json'], 'kmaint: --nodes: '],
    [['simulate', '--from', FIXTURE, '--all-nodes', '--hold', 'soon'], 'kmaint: invalid duration "soon": use e.g. 30s, 5m, 1h'],
    [['simulate', '--from', GPU_FIXTURE, '--devices', 'gpu.nvidia.com/gpu-01/gpu-9'], 'kmaint: --devices: no ResourceSlice of the snapshot publishes gpu.nvidia.com/gpu-01/gpu-9'],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const run = await kmaint(args);
    expect(run.code).toBe(2);
    const lines = errorLines(run);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.startsWith(message)).toBe(true);
  });

  it('refuses a config file that is not a MaintenanceOperatorConfig spec, naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-whatif-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'cfg.yaml');
    writeFileSync(path, 'spec:\n  maxParalelOperations: 2\n');
    const run = await kmaint(['simulate', '--from', FIXTURE, '--config', path, '--all-nodes']);
    expect(run.code).toBe(2);
    expect(errorLines(run)).toEqual([`kmaint: --config ${path}: spec: Unrecognized key: "maxParalelOperations"`]);
  });
});

describe('kmaint snapshot', () => {
  let api: SimApiServer;
  let kubeconfig: string;
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-snapshot-'));

  beforeAll(async () => {
    api = await startSimApiServer({ crds: [CRDS_DIR] });
    const fixture = readSnapshotFile(FIXTURE);
    seedSnapshot(api, fixture, { namespace: 'kmaint', spec: fixture.config?.spec }, Date.parse(fixture.takenAt));
    kubeconfig = api.kubeconfigPath(dir);
  });
  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes back what the cluster holds: nodes, pods, budgets and config of the fixture it was loaded from', async () => {
    const run = await kmaint(['snapshot', '--kubeconfig', kubeconfig, '--kmaint-namespace', 'kmaint']);
    expect(errorLines(run)).toEqual([]);
    expect(run.code).toBe(0);
    const taken = validateSnapshot(JSON.parse(run.stdout), 'stdout');
    const fixture = readSnapshotFile(FIXTURE);
    expect(taken.source).toBe(api.url);
    expect(taken.nodes).toEqual(fixture.nodes);
    expect(taken.podDisruptionBudgets).toEqual(fixture.podDisruptionBudgets);
    expect(taken.config).toEqual(fixture.config);
    // Pods: as in the fixture, but for what the API server adds: the zone and region labels of their node, the
    // Node owner's real uid.
    const comparable = (p: (typeof fixture.pods)[number]) => ({ ...p, labels: Object.fromEntries(Object.entries(p.labels).filter(([k]) => !k.startsWith('topology.kubernetes.io/'))), owner: p.owner && { ...p.owner, uid: p.owner.kind === 'Node' ? 'node' : p.owner.uid } });
    expect(taken.pods.map(comparable)).toEqual(fixture.pods.map(comparable));
  });

  it('fails with exit 2 and one line on an unusable kubeconfig', async () => {
    const run = await kmaint(['snapshot', '--kubeconfig', '/no/such/kubeconfig']);
    expect(run.code).toBe(2);
    expect(errorLines(run)).toHaveLength(1);
  });
});
