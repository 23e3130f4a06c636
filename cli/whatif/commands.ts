// `kmaint snapshot` and `kmaint simulate`: what-if planning. Flags are declared here; the work is loaded only when
// one of them runs (the simulated cluster is not needed by any other command).
import { Option, type Command } from 'commander';
import type { WhatIfGlobals } from './globals.ts';

/** `globals` gives the global flags once checked for the command (cli/global-options.ts). */
export function registerWhatIfCommands(program: Command, globals: () => WhatIfGlobals): void {
  program
    .command('snapshot')
    .description('write the cluster as a what-if snapshot (JSON on stdout): nodes, pods, budgets and the config; no secrets, images or env')
    .action(async () => {
      const { snapshotCommand } = await import('./snapshot.ts');
      process.exitCode = await snapshotCommand(globals());
    });
  program
    .command('simulate')
    .description('replay a rolling maintenance of a snapshot (or a generated profile) on the simulated cluster and predict how long it takes')
    .addOption(new Option('--from <file>', 'a snapshot written by `kmaint snapshot`').conflicts('profile'))
    .addOption(new Option('--profile <name>', 'a generated cluster instead of a snapshot').choices(['small', 'demo', 'large']))
    .option('--seed <n>', 'seed of the generated profile', '1')
    .option('--config <file>', "MaintenanceOperatorConfig (YAML or JSON, the object or its spec) to plan with (default: the snapshot's)")
    .addOption(new Option('--all-nodes', 'a request for every node').conflicts('nodes'))
    .option('--nodes <selector>', 'a request for each node this label selector picks')
    .option('--devices <list>', "device requests: driver/pool/device entries, comma-separated, one request per node (the snapshot's ResourceSlices publish them)")
    .option('--hold <duration>', 'how long the requestor works on a node once its request is Ready, then deletes it', '0s')
    .option('--pod-start <duration>', 'how long a replacement pod takes from binding to Ready', '10s')
    .option('--pass-time <duration>', "how long each of kmaint's passes takes on the cluster (seconds at thousands of nodes)", '100ms')
    .option('--top <n>', 'budgets listed under budget waits', '5')
    .option('--pool-label <key>', 'node label naming the pools when the config defines none', 'kmaint.io/pool')
    .option('--max-simulated <duration>', 'stop after this much simulated time', '168h')
    .option('--report <file>', 'also write a self-contained HTML timeline report (Gantt chart of every node, unavailable nodes against the limits)')
    .addOption(new Option('--transport <kind>', "kmaint's API calls in-process or over loopback HTTP").choices(['local', 'http']).default('local'))
    .action(async (cmd: Record<string, unknown>) => {
      const { simulateCommand } = await import('./simulate.ts');
      process.exitCode = await simulateCommand(cmd, globals());
    });
}
