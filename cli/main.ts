// The `kmaint` command: parses flags, calls one shared/runtime or shared/pass function, renders its summary.
// The embedded simulated cluster (demo, sim) and the AWS SDK are loaded only by the commands that use them.
import { errorMessage } from '../shared/errors/index.ts';
import { basename } from 'node:path';
import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { DEFAULT_LIST_PAGE_SIZE, KubeClient, LIST_PAGE_SIZE_ENV, loadKubeConfig, MAX_LIST_PAGE_SIZE, parseListPageSize } from '../shared/kube/index.ts';
import { PASS_FUNCTIONS, applyActions, runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';
import { runUntilIdle } from '../shared/runtime/index.ts';
import { CONFIG_NAME, describeAction, maintenanceKey } from '../shared/api/index.ts';
import { parseDuration } from './duration.ts';
import { UsageError, exitCodeOf, invalidConfigError, reasonLine } from './errors.ts';
import { invokeFunction, lambdaFunctionName, manualEvent, type InvokeFlags } from './invoke.ts';
import { planFunctions } from './plan.ts';
import { pushRunIfConfigured } from './push-metrics.ts';
import { renderPlan, renderRunSummary, renderSummary } from './render.ts';
import { explainRequest, parseRequestRef, readExplainSnapshot } from './explain.ts';
import { explainNode, parseNodeRef, readNodeExplainSnapshot } from './explain-node.ts';
import { explainDocument } from './explain-document.ts';
import { SHELLS, completionScript, completionSpec, parseShell } from './completion.ts';
import { addGlobalOptions, checkGlobalFlags, type GlobalFlags, type RawGlobalFlags } from './global-options.ts';
import { OUTPUT_FORMATS, isDocumentFormat, renderDocuments } from './output-format.ts';
import { statusCommand, type StatusFlags } from './status-command.ts';
import { leftoversCommand, type LeftoversFlags } from './leftovers-command.ts';
import { planTakeover, type TakeoverDirection } from './takeover.ts';
import { kmaintVersion, renderVersionText, versionInfo, versionLine } from './version.ts';
import { registerWhatIfCommands } from './whatif/commands.ts';

function passFunction(name: string): PassFunction {
  if (!(PASS_FUNCTIONS as readonly string[]).includes(name)) {
    throw new UsageError(`unknown function "${name}": expected one of ${PASS_FUNCTIONS.join(', ')}`);
  }
  return name as PassFunction;
}

function takeoverDirection(cmd: { from?: string; to?: string; dryRun?: boolean; apply?: boolean }): TakeoverDirection {
  if (cmd.dryRun === true && cmd.apply === true) throw new UsageError('takeover: --dry-run and --apply exclude each other');
  if ((cmd.from === undefined) === (cmd.to === undefined)) throw new UsageError('takeover needs exactly one of --from nvidia or --to nvidia');
  const operator = cmd.from ?? cmd.to;
  if (operator !== 'nvidia') throw new UsageError(`takeover: unknown operator "${operator ?? ''}": expected nvidia`);
  return cmd.from !== undefined ? 'from-nvidia' : 'to-nvidia';
}

function wakeMode(value: string): 'watch' | 'poll' {
  if (value !== 'watch' && value !== 'poll') throw new UsageError(`--wake "${value}": expected poll or watch`);
  return value;
}

/** Logs go to stderr; stdout carries only the command's output. */
function stderrLogger(flags: GlobalFlags): pino.Logger {
  return pino({ level: flags.logLevel, redact: ['*.token', '*.authorization', '*.password'] }, pino.destination(2));
}

/** `--page-size` of the commands that run passes: the LIST page size, else KMAINT_LIST_PAGE_SIZE, else 500. */
const PAGE_SIZE_FLAG = ['--page-size <n>', `objects per LIST page, 1 to ${MAX_LIST_PAGE_SIZE} (default: $${LIST_PAGE_SIZE_ENV}, else ${DEFAULT_LIST_PAGE_SIZE})`] as const;

function pageSizeFlag(value: string): number {
  try {
    return parseListPageSize(value, '--page-size');
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}

function setup(flags: GlobalFlags, pageSize?: number): { client: KubeClient; logger: pino.Logger } {
  const kubeConfig = loadKubeConfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  return { client: new KubeClient(kubeConfig, pageSize !== undefined ? { pageSize } : {}), logger: stderrLogger(flags) };
}

function output(flags: GlobalFlags, summaries: PassSummary[]): void {
  const format = flags.output;
  process.stdout.write(isDocumentFormat(format) ? renderDocuments(summaries, format) : summaries.map(renderSummary).join(''));
}

/** Exit 2 once the output is written when a pass found the MaintenanceOperatorConfig unusable. */
function checkConfig(flags: GlobalFlags, summaries: readonly PassSummary[]): void {
  const err = invalidConfigError(
    summaries.flatMap((s) => s.configProblems),
    `MaintenanceOperatorConfig ${flags.kmaintNamespace}/${CONFIG_NAME}`,
  );
  if (err) throw err;
}

/** Colours and cutting to the terminal's width only for text on a terminal (and never with NO_COLOR set). */
function terminal(flags: GlobalFlags): { colour: boolean; width?: number } {
  const tty = (flags.output === 'text' || flags.output === 'wide') && process.stdout.isTTY === true;
  return { colour: tty && !process.env['NO_COLOR'], ...(tty && process.stdout.columns ? { width: process.stdout.columns } : {}) };
}

// Run as a kubectl plugin (kubectl-kmaint on PATH), the help names the command as the user types it.
const invokedAs = basename(process.argv[1] ?? '').replace(/\.m?js$/, '') === 'kubectl-kmaint' ? 'kubectl kmaint' : 'kmaint';
const program = new Command(invokedAs).description('Coordinated Kubernetes node maintenance without a long-running controller');
// Before any subcommand is declared: subcommands copy these settings, so each one's help lists the global flags.
program
  .configureHelp({ showGlobalOptions: true })
  .addHelpText('after', '\nExit codes: 0 ok, 1 a pass or invocation failed, 2 usage or configuration error (one line on stderr).')
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });
addGlobalOptions(program).version(versionLine(kmaintVersion()), '--version', 'print the version and exit');

// Each command's global flags, checked once before its action runs (cli/global-options.ts).
let checked: GlobalFlags | undefined;
program.hook('preAction', (_program, command) => {
  checked = checkGlobalFlags(command.name(), program.opts<RawGlobalFlags>());
});
function globals(): GlobalFlags {
  if (checked === undefined) throw new Error('global flags read before the preAction hook ran');
  return checked;
}

program
  .command('pass')
  .description('run exactly one pass of one function')
  .argument('<function>', `one of ${PASS_FUNCTIONS.join(', ')}`)
  .option('--dry-run', 'plan and print every decision, write nothing')
  .option(...PAGE_SIZE_FLAG, pageSizeFlag)
  .action(async (name: string, cmd: { dryRun?: boolean; pageSize?: number }) => {
    const flags = globals();
    const fn = passFunction(name);
    const { client, logger } = setup(flags, cmd.pageSize);
    const summary = await runPass(fn, { client, namespace: flags.kmaintNamespace, now: () => new Date(), logger, ...(cmd.dryRun ? { dryRun: true } : {}) });
    output(flags, [summary]);
    checkConfig(flags, [summary]);
    if (summary.errors.length > 0) process.exitCode = 1;
  });

program
  .command('run')
  .description('run passes of one function (or all) until idle or the timeout')
  .argument('<function>', `one of ${PASS_FUNCTIONS.join(', ')}, or all`)
  .option('--until-idle', 'stop when a round changes nothing (the default)', true)
  .option('--timeout <duration>', 'stop starting passes after this long', '5m')
  .option('--wake <how>', 'while blocked: poll (about once a second) or watch (needs the watch verb on nodemaintenances, pods, poddisruptionbudgets)', 'poll')
  .option(...PAGE_SIZE_FLAG, pageSizeFlag)
  .action(async (name: string, cmd: { timeout: string; wake: string; pageSize?: number }) => {
    const flags = globals();
    const functions = name === 'all' ? [...PASS_FUNCTIONS] : [passFunction(name)];
    const timeoutMs = parseDuration(cmd.timeout);
    const wake = wakeMode(cmd.wake);
    const { client, logger } = setup(flags, cmd.pageSize);
    const run = await runUntilIdle({ client, namespace: flags.kmaintNamespace, now: () => new Date(), logger, functions, timeoutMs, wake }).catch(async (error: unknown) => {
      await pushRunIfConfigured(process.env, { error, functions }, logger);
      throw error;
    });
    await pushRunIfConfigured(process.env, { passes: run.passes, durationMs: run.durationMs, failed: run.stopped === 'failed' }, logger);
    output(flags, run.passes.filter((p) => p.planned > 0 || p.outcome === 'lease-held' || p.errors.length > 0));
    const line = { run: { rounds: run.rounds, stopped: run.stopped, durationMs: run.durationMs, passes: run.passes.length } };
    const format = flags.output;
    process.stdout.write(isDocumentFormat(format) ? renderDocuments([line], format) : `run ${run.stopped} after ${run.rounds} rounds (${run.passes.length} passes, ${run.durationMs} ms)\n`);
    checkConfig(flags, run.passes);
    if (run.stopped === 'failed') process.exitCode = 1;
  });

program
  .command('plan')
  .description('dry run of every function (or one): each decision with its reason, and why each Pending request waits; writes nothing')
  .argument('[function]', `one of ${PASS_FUNCTIONS.join(', ')} (default: all)`)
  .option(...PAGE_SIZE_FLAG, pageSizeFlag)
  .action(async (name: string | undefined, cmd: { pageSize?: number }) => {
    const flags = globals();
    const functions = name === undefined ? [...PASS_FUNCTIONS] : [passFunction(name)];
    const { client, logger } = setup(flags, cmd.pageSize);
    const summaries = await planFunctions(functions, { client, namespace: flags.kmaintNamespace, now: () => new Date(), logger });
    const format = flags.output;
    process.stdout.write(isDocumentFormat(format) ? renderDocuments(summaries, format) : renderPlan(summaries));
    checkConfig(flags, summaries);
  });

program
  .command('status')
  .description('table of NodeMaintenance requests: node, requestor, phase, age, drain progress, and why each waits')
  .option('-w, --watch', 'keep reading: redraw on a terminal, else print a new table (or JSON lines) only when something changed')
  .option('--interval <duration>', 'with --watch: time between reads', '2s')
  .option('--timeout <duration>', 'with --watch: stop after this long (default: until Ctrl-C)')
  .option('--no-headers', 'text: leave out the table\'s header row (as kubectl get --no-headers)')
  .action(async (cmd: StatusFlags) => {
    const flags = globals();
    const { client, logger } = setup(flags);
    await statusCommand(cmd, { client, logger, namespace: flags.kmaintNamespace, filter: flags.filter, output: flags.output, ...(flags.jsonpath !== undefined ? { jsonpath: flags.jsonpath } : {}), terminal: terminal(flags), tty: process.stdout.isTTY === true });
  });

program
  .command('explain')
  .description('the whole chain for one request: each admission gate with its numbers, each pod on the node and what holds it, and what has to happen next')
  .argument('<namespace/name>', 'the NodeMaintenance (or its name with -n), or node/<name>: the reaper\'s repair ladder and fault history of that Node')
  .action(async (ref: string) => {
    const flags = globals();
    const nodeName = parseNodeRef(ref);
    if (nodeName !== undefined) {
      const { client } = setup(flags);
      const lines = explainNode(await readNodeExplainSnapshot(client, flags.kmaintNamespace, nodeName), new Date());
      const format = flags.output;
      process.stdout.write(isDocumentFormat(format) ? renderDocuments([{ node: nodeName, lines }], format) : `${lines.join('\n')}\n`);
      return;
    }
    const target = parseRequestRef(ref, flags.filter.namespace);
    const { client } = setup(flags);
    const snapshot = await readExplainSnapshot(client, flags.kmaintNamespace, target);
    const format = flags.output;
    const now = new Date();
    process.stdout.write(isDocumentFormat(format) ? renderDocuments([explainDocument(snapshot, now)], format) : `${explainRequest(snapshot, now).join('\n')}\n`);
  });

program
  .command('leftovers')
  .description("every record kmaint (or upstream, for a takeover) left on Nodes, requests, medik8s leases, its Jobs and DeviceTaintRules and in Slurm; --fix removes kmaint's own (exit 1 while any is left)")
  .option('--fix', "remove kmaint's own records (never upstream's, an administrator's or a tenant's), then list what is left")
  .option('--no-headers', "text: leave out the table's header row")
  .option('--no-device-taint-rules', "do not read DeviceTaintRules (a ServiceAccount without rights to them: kmaint never had any either)")
  .option('--slurm-url <url>', "slurmrestd to read (default: kmaint's MaintenanceOperatorConfig spec.slurm, while it exists)")
  .option('--slurm-token-env <name>', 'with --slurm-url: the environment variable holding the Slurm JWT', 'SLURM_JWT')
  .option('--slurm-reason-prefix <prefix>', "with --slurm-url: kmaint's drain reason prefix (spec.slurm.reasonPrefix)", 'kmaint:')
  .action(async (cmd: LeftoversFlags) => {
    const flags = globals();
    const { client } = setup(flags);
    const note = (line: string): void => void process.stderr.write(`${line}\n`);
    process.exitCode = await leftoversCommand(cmd, { client, kmaintNamespace: flags.kmaintNamespace, output: flags.output, env: process.env, note, now: () => new Date() });
  });

program
  .command('takeover')
  .description('hand maintenances in flight over between the NVIDIA maintenance operator and kmaint (docs/migrate.md): a plan by default, written with --apply')
  .option('--from <operator>', 'nvidia: give the cordons upstream made to kmaint (kmaint.io/cordoned-by)')
  .option('--to <operator>', 'nvidia: leave kmaint\'s cordons to upstream (node-initial-state.unschedulable); names kmaint\'s own requests to release first')
  .option('--dry-run', 'print the hand-over, write nothing (the default)')
  .option('--apply', 'write the hand-over')
  .action(async (cmd: { from?: string; to?: string; dryRun?: boolean; apply?: boolean }) => {
    const flags = globals();
    const direction = takeoverDirection(cmd);
    // Another field manager than kmaint's: a record written so vouches for the cordon it names (docs/migrate.md).
    const kubeConfig = loadKubeConfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
    const client = new KubeClient(kubeConfig, { fieldManager: 'kmaint-takeover' });
    const [nodes, maintenances] = await Promise.all([client.listNodes(), client.listMaintenances()]);
    const plan = planTakeover(direction, { nodes, maintenances, kmaintNamespace: flags.kmaintNamespace });
    for (const a of plan.actions) process.stdout.write(`${cmd.apply === true ? '' : '(dry run) '}${describeAction(a)}\n`);
    for (const b of plan.blockers) process.stderr.write(`first: ${b}\n`);
    if (cmd.apply !== true || plan.actions.length === 0) return;
    const applied = await applyActions(plan.actions, { client, maintenances: new Map(maintenances.map((nm) => [maintenanceKey(nm), nm])), now: new Date(), component: 'kmaint-takeover', namespace: flags.kmaintNamespace, concurrency: 1 });
    for (const e of applied.errors) process.stderr.write(`kmaint: not written: ${e.action}: ${e.error}\n`);
    if (applied.errors.length > 0 || applied.conflicts > 0) process.exitCode = 1;
  });

program
  .command('invoke')
  .description('invoke a deployed kmaint Lambda function once (RequestResponse) and print its run summary')
  .argument('<function>', `one of ${PASS_FUNCTIONS.join(', ')}`)
  .option('--function-name <name>', 'Lambda function name or ARN (default: $KMAINT_FN_<FUNCTION>, else kmaint-<stage>-<function>)')
  .option('--stage <stage>', 'serverless.yml stage the function was deployed with (env KMAINT_STAGE)')
  .option('--region <region>', 'AWS region (default: AWS_REGION or the AWS profile)')
  .option('--dry-run', 'the function plans and writes nothing')
  .option('--max-passes <n>', 'passes the function may run, 1 to 1000')
  .action(async (name: string, cmd: InvokeFlags & { region?: string }) => {
    const flags = globals();
    const fn = passFunction(name);
    const functionName = lambdaFunctionName(fn, cmd, process.env);
    const event = manualEvent(cmd);
    // The SDK's multi-line notice about the local Node.js version would break the one-line stderr contract.
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    const { LambdaClient } = await import('@aws-sdk/client-lambda');
    const lambda = new LambdaClient(cmd.region ? { region: cmd.region } : {});
    try {
      const summary = await invokeFunction({ lambda, functionName, event, logger: stderrLogger(flags) });
      const format = flags.output;
      process.stdout.write(isDocumentFormat(format) ? renderDocuments([summary], format) : renderRunSummary(functionName, summary));
      const err = invalidConfigError(summary.passes.flatMap((p) => p.configProblems));
      if (err) throw err;
      if (summary.stopped === 'failed') process.exitCode = 1;
    } finally {
      lambda.destroy();
    }
  });

program
  .command('demo')
  .description('kmaint maintaining an embedded simulated cluster: two requestors, live progress, invariants checked')
  .option('--nodes <n>', 'nodes in the simulated cluster, at least 9 (default: 24)')
  .option('--speed <x>', 'simulated seconds per real second', '60')
  .option('--seed <n>', 'seed of the generated cluster and requests', '1')
  .option('--scenario <name>', 'upgrade (two requestors, a rolling OS upgrade) or reboot (kmaint reboots 6 nodes, 2 at a time)', 'upgrade')
  .option('--keep', 'leave the cluster running afterwards and print a kubeconfig')
  .option('--report <file>', 'also write a self-contained HTML timeline report (Gantt chart of every node, unavailable nodes against the limits)')
  .option('--timeout <duration>', 'stop starting rounds after this much wall time; requests not done by then are reported unfinished (exit 1)', '2m')
  .action(async (cmd: Record<string, unknown>) => {
    const { demoCommand } = await import('./demo.ts');
    process.exitCode = await demoCommand(cmd, globals().logLevel);
  });

program
  .command('sim')
  .description('run the embedded simulated cluster in the foreground until interrupted')
  .option('--nodes <n>', 'nodes in the simulated cluster (default: 24)')
  .option('--speed <x>', 'simulated seconds per real second', '1')
  .option('--seed <n>', 'seed of the generated cluster', '1')
  .requiredOption('--kubeconfig-out <file>', 'where to write the kubeconfig once the cluster is ready')
  .action(async (cmd: Record<string, unknown>) => {
    const { simCommand } = await import('./demo.ts');
    process.exitCode = await simCommand(cmd, globals().logLevel);
  });

// What-if planning: `kmaint snapshot`, `kmaint simulate` (cli/whatif/).
registerWhatIfCommands(program, () => ({ ...globals(), namespace: globals().kmaintNamespace }));

program
  .command('version')
  .description('the version and the API versions this kmaint serves (-o json|yaml for scripts)')
  .action(() => {
    const info = versionInfo(kmaintVersion());
    const format = globals().output;
    process.stdout.write(isDocumentFormat(format) ? renderDocuments([info], format) : renderVersionText(info));
  });

program
  .command('completion')
  .description(`print a shell completion script for kmaint and kubectl-kmaint (${SHELLS.join(', ')})`)
  .argument('<shell>', SHELLS.join(', '))
  .action((shell: string) => {
    const functions = [...PASS_FUNCTIONS];
    const args = { pass: functions, plan: functions, invoke: functions, run: [...functions, 'all'], completion: [...SHELLS] };
    process.stdout.write(completionScript(parseShell(shell), completionSpec(program, args, { '--output': OUTPUT_FORMATS })));
  });

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`${reasonLine(err)}\n`);
    return exitCodeOf(err);
  }
}

// `kmaint status | head`: the reader went away; stop quietly as other commands do, not with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await main(process.argv);
