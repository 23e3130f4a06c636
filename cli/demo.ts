// `kmaint demo` and `kmaint sim`: flags parsed once, the embedded cluster started by sim/, output rendered here.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { acceleratedClock, realClock } from '../sim/clock.ts';
import { startEmbeddedCluster, SIM_USERS, type EmbeddedCluster } from '../sim/embedded.ts';
import { DEMO_SCENARIO_NAMES, runDemo } from '../sim/demo/index.ts';
import { DEFAULT_NAMESPACE } from '../shared/api/index.ts';
import { LiveView, eventLine, summaryLines } from './demo-render.ts';
import { parseDuration } from './duration.ts';
import { UsageError } from './errors.ts';
import { summaryRows, writeReport } from './report-file.ts';

const int = (name: string, min: number) =>
  z.coerce.number({ error: `--${name} must be a number` }).int(`--${name} must be a whole number`).min(min, `--${name} must be at least ${min}`);
const speed = z.coerce.number({ error: '--speed must be a number' }).positive('--speed must be above 0').max(10_000, '--speed must be at most 10000');

const scenario = z.enum(DEMO_SCENARIO_NAMES, { error: `--scenario must be one of ${DEMO_SCENARIO_NAMES.join(', ')}` });
const demoFlagsSchema = z.strictObject({ nodes: int('nodes', 9).max(1000, '--nodes must be at most 1000').optional(), speed: speed.default(60), seed: int('seed', 0).default(1), scenario: scenario.default('upgrade'), keep: z.boolean().default(false), report: z.string().min(1, '--report needs a file name').optional(), timeout: z.string().default('2m') });
const simFlagsSchema = z.strictObject({ nodes: int('nodes', 3).optional(), speed: speed.default(1), seed: int('seed', 0).default(1), kubeconfigOut: z.string().min(1) });

function parseFlags<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  return parsed.data;
}

/** Logs go to stderr; the demo's own output is stdout. */
function stderrLogger(level: string): pino.Logger {
  return pino({ level }, pino.destination(2));
}

/** Resolves on SIGINT or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

function writeKubeconfig(cluster: EmbeddedCluster, path: string): void {
  writeFileSync(path, cluster.apiserver.kubeconfigYaml({ user: SIM_USERS.admin }), { mode: 0o600 });
}

/** `kmaint demo`: exit code 0 only when the invariants held. */
export async function demoCommand(raw: Record<string, unknown>, logLevel: string): Promise<number> {
  const flags = parseFlags(demoFlagsSchema, raw);
  const wallLimitMs = parseDuration(flags.timeout);
  if (wallLimitMs <= 0) throw new UsageError('--timeout must be above 0');
  const logger = stderrLogger(logLevel);
  const live = process.stdout.isTTY ? new LiveView(process.stdout) : undefined;
  const { summary, timeline, cluster } = await runDemo({
    scenario: flags.scenario,
    speed: flags.speed,
    seed: flags.seed,
    keep: flags.keep,
    wallLimitMs,
    ...(flags.nodes !== undefined ? { nodes: flags.nodes } : {}),
    logger,
    onEvent: (e) => (live ? live.event(e) : process.stdout.write(`${eventLine(e)}\n`)),
    ...(live ? { onView: (v) => live.view(v) } : {}),
  });
  live?.finish();
  const lines = summaryLines(summary);
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (flags.report !== undefined) {
    const [headline = '', ...rest] = lines;
    writeReport(flags.report, { title: `kmaint demo${flags.scenario === 'upgrade' ? '' : ` --scenario ${flags.scenario}`}: timeline`, subtitle: headline, timeline, summary: summaryRows(rest) });
    process.stdout.write(`report written to ${flags.report}\n`);
  }
  if (cluster) {
    const path = join(mkdtempSync(join(tmpdir(), 'kmaint-demo-')), 'kubeconfig');
    writeKubeconfig(cluster, path);
    process.stdout.write(`\nthe simulated cluster keeps running (Ctrl-C stops it):\n  export KUBECONFIG=${path}\n  kubectl get nodes,nodemaintenances -A\n`);
    await interrupted();
    await cluster.stop();
  }
  return summary.invariants.held ? 0 : 1;
}

/** `kmaint sim`: the embedded cluster in the foreground until interrupted; FILE is written once it is ready. */
export async function simCommand(raw: Record<string, unknown>, logLevel: string): Promise<number> {
  const flags = parseFlags(simFlagsSchema, raw);
  const logger = stderrLogger(logLevel);
  const clock = flags.speed === 1 ? realClock() : acceleratedClock(flags.speed);
  const cluster = await startEmbeddedCluster({
    clock,
    seed: flags.seed,
    ...(flags.nodes !== undefined ? { nodes: flags.nodes } : {}),
    pollIntervalMs: Math.max(1000, 100 * flags.speed),
    namespaces: [DEFAULT_NAMESPACE],
    logger,
  });
  writeKubeconfig(cluster, flags.kubeconfigOut);
  process.stdout.write(
    `kmaint sim: ${cluster.cluster.nodes.length} nodes, ${cluster.podsReady} pods running at ${cluster.apiserver.url} (speed ${flags.speed}x); kubeconfig ${flags.kubeconfigOut}; Ctrl-C stops it\n`,
  );
  await interrupted();
  await cluster.stop();
  return 0;
}
