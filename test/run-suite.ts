// `npm test`: the three vitest projects as three vitest processes at once — `unit`, `sim` and `testbed`
// (test/support/suite-parts.ts). One `vitest run` runs its projects one after another (sequence.groupOrder), so the
// testbed files, which mostly wait on their control planes, used to start only once the CPU-bound unit files were done;
// the sim files, which mostly wait on their simulated clock, now run beside the unit files instead of after them. The
// unit and sim processes run at a lower CPU priority (niceness 5) beside the testbed's: its control planes are the
// longest part of the run. Each process's output is passed through a whole line at a time; the run ends with each
// process's wall time and exit code, and exits with the first failure's code. With arguments
// (`npm test -- shared/scheduling`) it is plain `vitest run <arguments>`.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { suiteParts, type Part } from './support/suite-parts.ts';

const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Copies a child's stream to ours a whole line at a time, so two children's lines never mix within a line. */
function forwardLines(from: NodeJS.ReadableStream, to: Writable): Promise<void> {
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on('line', (line) => to.write(`${line}\n`));
  return new Promise((resolve) => lines.once('close', resolve));
}

interface Outcome {
  label: string;
  code: number;
  seconds: number;
}

function runPart(part: Part, children: Set<ChildProcess>): Promise<Outcome> {
  const started = Date.now();
  // vitest colours only a terminal; keep its colours when ours is one.
  const env = { ...process.env, ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) };
  const child = spawn(process.execPath, [VITEST, ...part.args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  // Set before the child has loaded vitest, so its workers and everything they start inherit it.
  if (part.nice !== 0 && child.pid !== undefined) setPriority(child.pid, part.nice);
  children.add(child);
  const copied = Promise.all([forwardLines(child.stdout, process.stdout), forwardLines(child.stderr, process.stderr)]);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child);
      void copied.then(() => resolve({ label: part.label, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000 }));
    });
  });
}

async function main(): Promise<number> {
  const extra = process.argv.slice(2);
  const children = new Set<ChildProcess>();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const child of children) child.kill(signal);
    });
  }
  if (extra.length > 0) return (await runPart({ label: 'vitest', args: ['run', ...extra], nice: 0 }, children)).code;
  let parts: Part[];
  try {
    parts = suiteParts(process.env['KMAINT_TEST_CLUSTER'], process.env['KMAINT_UNIT_NICE']);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const outcomes = await Promise.all(parts.map((p) => runPart(p, children)));
  const line = outcomes.map((o) => `${o.label} ${o.seconds.toFixed(1)} s (${o.code === 0 ? 'passed' : `failed, exit ${o.code}`})`).join(', ');
  process.stdout.write(`== npm test: ${line}\n`);
  return outcomes.find((o) => o.code !== 0)?.code ?? 0;
}

process.exitCode = await main();
