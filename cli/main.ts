// The `kmaint` command: parses flags, calls one shared/runtime or shared/pass function, renders its summary.
import { Command, CommanderError, Option } from 'commander';
import pino from 'pino';
import { KubeClient, loadKubeConfig } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import { DEFAULT_NAMESPACE } from '../shared/api/index.ts';
import { parseDuration } from './duration.ts';
import { demoCommand, simCommand } from './demo.ts';
import { UsageError } from './errors.ts';
import { renderSummary } from './render.ts';

interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  output: 'text' | 'json';
  logLevel: string;
}

function passFunction(name: string): PassFunction {
  if (!(PASS_FUNCTIONS as readonly string[]).includes(name)) {
    throw new UsageError(`unknown function "${name}": expected one of ${PASS_FUNCTIONS.join(', ')}`);
  }
  return name as PassFunction;
}

function setup(flags: GlobalFlags): { client: KubeClient; logger: pino.Logger } {
  const kubeConfig = loadKubeConfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  const logger = pino({ level: flags.logLevel, redact: ['*.token', '*.authorization', '*.password'] }, pino.destination(2));
  return { client: new KubeClient(kubeConfig), logger };
}

function output(flags: GlobalFlags, summaries: PassSummary[]): void {
  for (const s of summaries) process.stdout.write(flags.output === 'json' ? `${JSON.stringify(s)}\n` : renderSummary(s));
}

const program = new Command('kmaint')
  .description('Coordinated Kubernetes node maintenance without a long-running controller')
  .addOption(new Option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)'))
  .addOption(new Option('--context <name>', 'kubeconfig context'))
  .addOption(new Option('-n, --namespace <ns>', 'namespace of the MaintenanceOperatorConfig and leases').default(process.env['KMAINT_NAMESPACE'] ?? DEFAULT_NAMESPACE))
  .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default(process.stdout.isTTY ? 'text' : 'json'))
  .addOption(new Option('--log-level <level>', 'log level (logs go to stderr)').choices(['debug', 'info', 'warn', 'error', 'silent']).default('warn'))
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

program
  .command('pass')
  .description('run exactly one pass of one function')
  .argument('<function>', `one of ${PASS_FUNCTIONS.join(', ')}`)
  .option('--dry-run', 'plan and print every decision, write nothing')
  .action(async (name: string, cmd: { dryRun?: boolean }) => {
    const flags = program.opts<GlobalFlags>();
    const fn = passFunction(name);
    const { client, logger } = setup(flags);
    const summary = await runPass(fn, { client, namespace: flags.namespace, now: () => new Date(), logger, ...(cmd.dryRun ? { dryRun: true } : {}) });
    output(flags, [summary]);
    if (summary.errors.length > 0) process.exitCode = 1;
  });

program
  .command('run')
  .description('run passes of one function (or all) until idle or the timeout')
  .argument('<function>', `one of ${PASS_FUNCTIONS.join(', ')}, or all`)
  .option('--until-idle', 'stop when a round changes nothing (the default)', true)
  .option('--timeout <duration>', 'stop starting passes after this long', '5m')
  .action(async (name: string, cmd: { timeout: string }) => {
    const flags = program.opts<GlobalFlags>();
    const functions = name === 'all' ? [...PASS_FUNCTIONS] : [passFunction(name)];
    const timeoutMs = parseDuration(cmd.timeout);
    const { client, logger } = setup(flags);
    const run = await runUntilIdle({ client, namespace: flags.namespace, now: () => new Date(), logger, functions, timeoutMs });
    output(flags, run.passes.filter((p) => p.planned > 0 || p.outcome === 'lease-held' || p.errors.length > 0));
    const line = { run: { rounds: run.rounds, stopped: run.stopped, durationMs: run.durationMs, passes: run.passes.length } };
    process.stdout.write(flags.output === 'json' ? `${JSON.stringify(line)}\n` : `run ${run.stopped} after ${run.rounds} rounds (${run.passes.length} passes, ${run.durationMs} ms)\n`);
    if (run.stopped === 'failed') process.exitCode = 1;
  });

program
  .command('demo')
  .description('kmaint maintaining an embedded simulated cluster: two requestors, live progress, invariants checked')
  .option('--nodes <n>', 'nodes in the simulated cluster, at least 9 (default: 24)')
  .option('--speed <x>', 'simulated seconds per real second', '60')
  .option('--seed <n>', 'seed of the generated cluster and requests', '1')
  .option('--keep', 'leave the cluster running afterwards and print a kubeconfig')
  .action(async (cmd: Record<string, unknown>) => {
    process.exitCode = await demoCommand(cmd, program.opts<GlobalFlags>().logLevel);
  });

program
  .command('sim')
  .description('run the embedded simulated cluster in the foreground until interrupted')
  .option('--nodes <n>', 'nodes in the simulated cluster (default: 24)')
  .option('--speed <x>', 'simulated seconds per real second', '1')
  .option('--seed <n>', 'seed of the generated cluster', '1')
  .requiredOption('--kubeconfig-out <file>', 'where to write the kubeconfig once the cluster is ready')
  .action(async (cmd: Record<string, unknown>) => {
    process.exitCode = await simCommand(cmd, program.opts<GlobalFlags>().logLevel);
  });

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`kmaint: ${message.split('\n')[0]}\n`);
    return err instanceof UsageError || (err instanceof Error && err.name === 'KubeConfigError') ? 2 : 1;
  }
}

process.exitCode = await main(process.argv);
