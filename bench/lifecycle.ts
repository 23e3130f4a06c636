// `npm run bench -- [--nodes 5000] [--requests 10000] [--requestors 20]`: the NodeMaintenance passes on the
// testbed (issue 4, Speed). Prints figures, asserts nothing. Waits for any other testbed to finish first.
import { errorMessage } from '../shared/errors/index.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from '../testbed/build.ts';
import { stopTestbedDir } from '../testbed/start.ts';
import { print } from './figures.ts';
import { benchLargeCluster } from './large-cluster.ts';
import { benchOverhead } from './overhead.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '10000' },
    requestors: { type: 'string', default: '20' },
    parallel: { type: 'string', default: '50' },
    cycles: { type: 'string', default: '3' },
    'overhead-cluster': { type: 'string', default: '12' },
    'overhead-nodes': { type: 'string', default: '8' },
    'overhead-pods': { type: 'string', default: '2' },
    'termination-seconds': { type: 'string', default: '5' },
    only: { type: 'string' },
    'wait-minutes': { type: 'string', default: '25' },
    /** Development at small scale: do not wait for other testbeds (the figures are then not comparable). */
    'ignore-other-testbeds': { type: 'boolean', default: false },
    /** Comma-separated state directories of idle testbeds not worth waiting for (named in the output). */
    'ignore-testbed': { type: 'string', default: '' },
  },
});

function int(name: keyof typeof values): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`bench: --${name} must be a whole number, got "${String(values[name])}"\n`);
    process.exit(2);
  }
  return n;
}

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

/** Another testbed on this machine would distort both benchmarks' figures: wait for it to go. */
async function waitForOtherTestbeds(minutes: number, ignored: string[]): Promise<void> {
  const deadline = Date.now() + minutes * 60_000;
  for (;;) {
    let lines: string[];
    try {
      lines = execFileSync('pgrep', ['-af', 'kube-apiserver'], { encoding: 'utf8' }).trim().split('\n');
    } catch {
      return; // pgrep exits 1 when nothing matches
    }
    const servers = lines.filter((l) => l.split(' ')[1]?.endsWith('/kube-apiserver'));
    if (servers.length === 0) return;
    const others = servers.filter((l) => !ignored.some((dir) => l.includes(dir)));
    const pids = others.map((l) => l.split(' ')[0]).join(', ');
    if (others.length === 0) {
      print(`note: left running alongside (--ignore-testbed): ${ignored.join(', ')}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`another kube-apiserver is still running after ${minutes} min (pids ${pids})`);
    log(`another testbed is running (kube-apiserver pids ${pids}); waiting`);
    await new Promise((r) => setTimeout(r, 30_000));
  }
}

// Interrupted: stop the control planes we started (the simulated kubelet dies with this process).
const dirs: string[] = [];
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void Promise.all(dirs.map((d) => stopTestbedDir(d).catch(() => undefined))).finally(() => process.exit(130));
  });
}
function benchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

// `large` is parts 1-3 on the large control plane; `init`, `steady` and `drainer` pick single ones of them.
const PARTS = ['large', 'init', 'steady', 'drainer', 'overhead'];
const parts = values.only ? new Set(values.only.split(',')) : new Set(['large', 'overhead']);
const unknown = [...parts].filter((p) => !PARTS.includes(p));
if (unknown.length > 0) {
  process.stderr.write(`bench: --only takes ${PARTS.join(', ')} (comma-separated), got "${unknown.join(', ')}"\n`);
  process.exit(2);
}
const largeParts = new Set((['init', 'steady', 'drainer'] as const).filter((p) => parts.has('large') || parts.has(p)));
await ensureBinaries({ log });
try {
  if (!values['ignore-other-testbeds']) await waitForOtherTestbeds(int('wait-minutes'), (values['ignore-testbed'] ?? '').split(',').filter((d) => d !== ''));
} catch (err) {
  process.stderr.write(`bench: ${errorMessage(err)}\n`);
  process.exit(1);
}
print(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM (${(freemem() / 2 ** 30).toFixed(0)} GiB free), node ${process.version}`);
print(`command: npm run bench -- ${process.argv.slice(2).join(' ')}`.trimEnd());
print();
try {
  if (largeParts.size > 0) {
    await benchLargeCluster({
      parts: largeParts,
      dir: benchDir('kmaint-bench-large-'),
      nodes: int('nodes'),
      requests: int('requests'),
      requestors: int('requestors'),
      parallel: int('parallel'),
      cycles: int('cycles'),
      log,
    });
  }
  if (parts.has('overhead')) {
    await benchOverhead({
      dir: benchDir('kmaint-bench-small-'),
      clusterNodes: int('overhead-cluster'),
      drainNodes: int('overhead-nodes'),
      podsPerNode: int('overhead-pods'),
      terminationSeconds: int('termination-seconds'),
      log,
    });
  }
  // Keep-alive sockets of the API clients would hold the process open.
  process.exit(0);
} catch (err) {
  process.stderr.write(`bench: ${errorMessage(err, { stack: true })}\n`);
  process.exit(1);
}
