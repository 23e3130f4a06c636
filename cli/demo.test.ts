// `kmaint demo` as a user runs it (a child process, stdout not a TTY): plain lines, the summary, exit 0.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kmaintArgs } from '../test/support/kmaint-cli.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kmaint(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs(...args), { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A simulated duration as the summary writes it (cli/demo-render.ts durationText). The demo's clock runs at `--speed`
 * times the wall clock, so on a loaded machine, where each pass takes longer, the same maintenance spans more
 * simulated time: 13m 07s on a quiet machine, 1h 08m at load 10 (seen, issue 18). Any of the three forms is right.
 */
const DURATION = String.raw`(?:\d+s|\d+m \d\ds|\d+h \d\dm)`;

describe('kmaint demo', () => {
  // How long the demo takes (target < 60 s wall) is measured by `npm run bench:unit-speed` (issue 18), not asserted
  // here; the timeouts only stop a hung child.
  it('maintains 9 nodes for two requestors and reports the invariants held', { timeout: 300_000 }, async () => {
    const run = await kmaint(['demo', '--speed', '120'], 290_000);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('kmaint:'))).toEqual([]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    // Plain lines, no terminal control codes, when stdout is not a TTY.
    expect(run.stdout).not.toContain('\x1b[');
    expect(lines[0]).toMatch(/^00:00:00 cluster up: 24 nodes in 3 zones, \d+ pods running/);
    expect(lines).toContain('00:00:00 MaintenanceOperatorConfig kmaint/default: maxParallelOperations 3, maxUnavailable 4');
    expect(lines).toContain('00:00:00 requests created: 1 by some.one.acme.com, 8 by os-upgrade.acme.com');
    // The seed README's request moves forward through the phases (each line shows where an observation found it)
    // to Ready, and is released once its requestor deletes it.
    const order = ['Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Ready'];
    const seen = lines.flatMap((l) => /^\S+ default\/my-maintenance-operation \(node-020\): \S+ -> (\w+)/.exec(l)?.[1] ?? []);
    expect(seen.at(-1)).toBe('Ready');
    expect(seen.map((p) => order.indexOf(p))).toEqual([...seen.map((p) => order.indexOf(p))].sort((a, b) => a - b));
    expect(lines.some((l) => l.endsWith('default/my-maintenance-operation (node-020): released, node-020 schedulable again'))).toBe(true);
    expect(lines.some((l) => l.endsWith('some.one.acme.com: done with node-020: deleted default/my-maintenance-operation'))).toBe(true);
    expect(lines.some((l) => /default\/os-upgrade-node-\d+ \(node-\d+\): Pending -> Scheduled/.test(l))).toBe(true);
    expect(lines.some((l) => l.includes('waiting: maxParallelOperations 3 reached (3 in progress)'))).toBe(true);

    const summary = lines.slice(lines.findIndex((l) => l.startsWith('kmaint demo: ')));
    expect(summary[0]).toMatch(new RegExp(`^kmaint demo: 9 nodes maintained in ${DURATION} simulated \\([\\d.]+ s wall, speed 120x\\) on 24 nodes in 3 zones$`));
    expect(summary[1]).toBe('  requestors:   os-upgrade.acme.com 8 nodes, some.one.acme.com 1 node');
    expect(summary[2]).toMatch(/^ {2}evictions: {4}\d+ \(\d+ refused by the API server and retried\)$/);
    expect(summary[3]).toMatch(new RegExp(`^ {2}budget waits: 6 requests waited for maxParallelOperations 3 / maxUnavailable 4 \\(longest ${DURATION}\\); \\d+ pods? waited for PodDisruptionBudgets`));
    expect(summary[4]).toMatch(/^ {2}API requests: [\d,]+ — /);
    for (const verb of ['list', 'get', 'create', 'patch', 'update', 'delete']) expect(summary[4]).toMatch(new RegExp(`${verb} [\\d,]+`));
    expect(summary[5]).toMatch(/^ {2}by client: {4}.*kmaint [\d,]+.*\(kmaint ran \d+ passes\)$/);
    expect(summary[6]).toMatch(/^ {2}peaks: {8}3 in progress \(limit 3\), [1-4] nodes unavailable \(limit 4\)$/);
    expect(summary[7]).toMatch(/^ {2}node-\d+ was cordoned before the demo and is still cordoned$/);
    expect(summary.at(-1)).toBe('invariants held: never more than 3 in progress, every node back to its initial schedulability');
  });

  it.concurrent.each([
    [['demo', '--speed', '0'], 'kmaint: --speed must be above 0'],
    [['demo', '--nodes', 'many'], 'kmaint: --nodes must be a number'],
    [['demo', '--seed', '1.5'], 'kmaint: --seed must be a whole number'],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const run = await kmaint(args, 110_000);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'))).toEqual([message]);
  });
});
