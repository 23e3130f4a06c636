// `npm run soak -- --seed S --minutes M [--nodes N] [--fault-rate R]`: a seeded soak of kmaint on a fresh testbed
// (issue 8). Progress on stderr, the table on stdout; exit 0 with no violation, 1 with any, 2 on bad usage.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { installKmaint, writeServiceAccountKubeconfig } from '../test/setup/install-kmaint.ts';
import { kubeConfigFrom, startTestbed } from '../testbed/testbed.ts';
import { binaryPath } from '../testbed/versions.ts';
import { formatSoakTable, runSoak } from './run-soak.ts';

const log = (line: string): void => void process.stderr.write(`[soak] ${line}\n`);

function numberOption(name: string, check: (n: number) => boolean, what: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!check(n)) throw new InvalidArgumentError(`--${name} must be ${what}`);
    return n;
  };
}

interface Options {
  seed: number;
  minutes: number;
  nodes: number;
  faultRate: number;
  cluster: 'testbed' | 'sim';
  copies: number;
}

async function main(opts: Options): Promise<number> {
  if (opts.cluster === 'sim') {
    process.stderr.write('soak: --cluster sim is not built yet; use --cluster testbed\n');
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-soak-'));
  log(`starting a testbed of ${opts.nodes} nodes in ${dir}`);
  const tb = await startTestbed({ dir, profile: 'small', seed: opts.seed, nodes: opts.nodes, heartbeatIntervalMs: 5000, readyTimeoutMs: 600_000, log: (l) => log(`testbed: ${l}`) });
  const stopOnSignal = (): void => {
    void tb.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const target = { kubectl: binaryPath('kubectl'), kubeconfigPath: tb.kubeconfigPath, server: tb.controlPlane.server, caFile: tb.controlPlane.caFile, dir };
    await installKmaint(target);
    const kmaintPath = await writeServiceAccountKubeconfig(target);
    const report = await runSoak({
      seed: opts.seed,
      activeMs: opts.minutes * 60_000,
      admin: tb.kubeConfig,
      kmaint: kubeConfigFrom(kmaintPath),
      server: tb.controlPlane.server,
      caPem: readFileSync(tb.controlPlane.caFile, 'utf8'),
      kmaintNamespace: 'kmaint',
      faultRate: opts.faultRate,
      copies: opts.copies,
      nodeControl: {
        setNodeReady: (name, ready) => tb.kubelet.setNodeReady(name, ready),
        deleteNode: (name) => tb.kubelet.deleteNode(name),
      },
      log,
    });
    process.stdout.write(`${formatSoakTable(report)}\n`);
    return report.violations.length === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    await tb.stop();
  }
}

const program = new Command('soak')
  .exitOverride()
  .option('--seed <s>', 'seed of the cluster, the faults and every actor', numberOption('seed', (n) => Number.isInteger(n) && n >= 0, 'a whole number'), 1)
  .option('--minutes <m>', 'active time (requestors creating, administrator at work); a wind-down follows', numberOption('minutes', (n) => n > 0 && n <= 24 * 60, 'a number of minutes above 0'), 10)
  .option('--nodes <n>', 'nodes of the generated cluster', numberOption('nodes', (n) => Number.isInteger(n) && n >= 3, 'a whole number of at least 3'), 200)
  .option('--fault-rate <r>', 'share of API requests given a fault', numberOption('fault-rate', (n) => n >= 0 && n <= 1, 'between 0 and 1'), 0.05)
  .option('--copies <c>', 'copies of each pass function running at once', numberOption('copies', (n) => Number.isInteger(n) && n >= 1 && n <= 5, 'a whole number from 1 to 5'), 3)
  .addOption(new Option('--cluster <c>', 'where to run').choices(['testbed', 'sim']).default('testbed'));

try {
  program.parse();
  process.exitCode = await main(program.opts<Options>());
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`soak: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
// The testbed is down by now; connection pools of the clients used during the soak would keep the process alive.
process.exit(process.exitCode ?? 0);
