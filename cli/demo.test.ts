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
  // here; the timeouts only stop a hung child. `--timeout 280s` lifts the demo's own 2-minute cap to just below the
  // child's: on a loaded landing machine (load 10 on 2 cores) the first demo once needed more than 2 minutes and
  // stopped with its requests unfinished (exit 1).
  it('maintains 9 nodes for two requestors and reports the invariants held', { timeout: 300_000 }, async () => {
    const run = await kmaint(['demo', '--speed', '120', '--timeout', '280s'], 290_000);
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

  // Issue 43: kmaint reboots six nodes two at a time. The seed fixes which nodes, in which order, and every boot ID (the
  // simulated kubelet derives a rebooted node's ID from its old one), so the per-node lines are exact; times are not.
  it('--scenario reboot: six nodes Draining -> Rebooting -> Ready, six new boot IDs, never more than 2 down', { timeout: 300_000 }, async () => {
    const run = await kmaint(['demo', '--scenario', 'reboot', '--speed', '120', '--timeout', '280s'], 290_000);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('kmaint:'))).toEqual([]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(1, 4)).toEqual([
      '00:00:00 MaintenanceOperatorConfig kmaint/default: maxParallelOperations 2, reboot by a Job on the node (timeout 1800 s)',
      '00:00:00 node-007 was cordoned by an admin before any request: kmaint must leave it cordoned',
      '00:00:00 requests created: 6 by os-patch.acme.com',
    ]);
    const boots: Array<[string, string, string]> = [
      ['node-005', 'c2c409fa-fc16-f649-cd24-e6441acd405f', '7ddff9dc-95e2-bc83-5e8c-2921b4db2024'],
      ['node-006', '2c549b45-9c1e-208f-f00a-3b2a0fe93497', '83ab0ba1-9283-15e5-63e6-d4cb63bd2327'],
      ['node-007', '46f1c77f-a29e-e40b-6442-314aca686c77', '1153b7a2-00af-bf6e-b69a-38032c9e4719'],
      ['node-008', 'cb2bd956-3494-619f-2c5c-085aaf627206', '1345917a-b11f-4fce-af88-b44421304830'],
      ['node-009', 'bd6b3243-cfe4-bcb3-beb8-152b04d6e967', 'e04470c0-872a-9ba2-8aab-34ef24076a01'],
      ['node-019', '04c3807e-bccd-f19f-a4ab-eec3358dc617', '163388ee-4e3b-422e-776c-7f3a54efdd63'],
    ];
    expect(boots.filter(([, before, after]) => before !== after)).toHaveLength(6);
    // Each node down once and back once with its new boot ID, as the Node writes happened.
    const nodeLines = lines.flatMap((l) => {
      const m = /^\d\d:\d\d:\d\d (node-\d+: (?:NotReady|Ready).*?) \((\d+) nodes? down\)$/.exec(l);
      return m ? [{ text: m[1] ?? '', down: Number(m[2]) }] : [];
    });
    expect(nodeLines.map((n) => n.text).sort()).toEqual(boots.flatMap(([node, before, after]) => [`${node}: NotReady, rebooting`, `${node}: Ready, boot ID ${before.slice(0, 8)} -> ${after.slice(0, 8)}`]).sort());
    expect(Math.max(...nodeLines.map((n) => n.down))).toBe(2);
    // The phases each request went through, every status write seen: the first two admitted by the first pass.
    const summary = lines.slice(lines.findIndex((l) => l.startsWith('kmaint demo: ')));
    expect(summary[0]).toMatch(new RegExp(`^kmaint demo: 6 nodes rebooted in ${DURATION} simulated \\([\\d.]+ s wall, speed 120x\\) on 24 nodes in 3 zones$`));
    expect(summary.slice(1, 9)).toEqual([
      '  requestors:   os-patch.acme.com 6 nodes',
      ...boots.map(([node, before, after], i) => `  default/reboot-${node} (${node}): ${i < 2 ? '' : 'Pending -> '}Scheduled -> Draining -> Rebooting -> Ready; boot ID ${before} -> ${after}`),
      '  down at once: at most 2 nodes NotReady (maxParallelOperations 2)',
    ]);
    expect(summary[10]).toMatch(new RegExp(`^ {2}budget waits: 4 requests waited for maxParallelOperations 2 \\(longest ${DURATION}\\); `));
    expect(summary[13]).toMatch(/^ {2}peaks: {8}2 in progress \(limit 2\), 3 nodes unavailable \(no limit\)$/);
    expect(summary.slice(14)).toEqual([
      '  node-007 was cordoned before the demo and is still cordoned',
      'invariants held: never more than 2 in progress, never more than 2 nodes down, 6 new boot IDs, every node back to its initial schedulability',
    ]);
    // Every request Rebooting -> Ready with the Node's new boot ID, and released by its requestor afterwards.
    for (const [node, before, after] of boots) {
      expect(lines.filter((l) => l.includes(`default/reboot-${node} (${node}): Rebooting -> Ready`)).map((l) => l.slice(9))).toEqual([`default/reboot-${node} (${node}): Rebooting -> Ready — node ${node} rebooted (boot ID ${before} -> ${after})`]);
      expect(lines.some((l) => l.endsWith(`default/reboot-${node} (${node}): released, ${node} ${node === 'node-007' ? 'stays cordoned' : 'schedulable again'}`))).toBe(true);
    }
  });

  it('--timeout: once that much wall time has gone no round starts; the requests not done are reported unfinished, exit 1', async () => {
    const run = await kmaint(['demo', '--timeout', '1ms'], 110_000);
    expect(run.code).toBe(1);
    const last = run.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(last.startsWith('invariants VIOLATED: request default/my-maintenance-operation did not finish; ')).toBe(true);
    expect(run.stdout).toMatch(/\(kmaint ran 0 passes\)\n/);
    // Nothing ran, so the administrator's cordon is still there, whatever its node's unfinished request says.
    expect(run.stdout).toMatch(/\n {2}node-\d+ was cordoned before the demo and is still cordoned\n/);
  });

  it.concurrent.each([
    [['demo', '--speed', '0'], 'kmaint: --speed must be above 0'],
    [['demo', '--nodes', 'many'], 'kmaint: --nodes must be a number'],
    [['demo', '--seed', '1.5'], 'kmaint: --seed must be a whole number'],
    [['demo', '--scenario', 'kured'], 'kmaint: --scenario must be one of upgrade, reboot'],
    [['demo', '--timeout', 'soon'], 'kmaint: invalid duration "soon": use e.g. 30s, 5m, 1h'],
    [['demo', '--timeout', '0s'], 'kmaint: --timeout must be above 0'],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const run = await kmaint(args, 110_000);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'))).toEqual([message]);
  });
});
