// `npm run soak -- --seed S --minutes M [--wind-down-minutes W] [--nodes N] [--fault-rate R] [--cluster testbed|sim] [--profile basic|all-features]`: a seeded soak of kmaint on a
// fresh testbed (default) or the embedded simulated cluster (issue 8). Progress on stderr, the table on stdout; exit 0 with no
// violation, 1 with any, 2 on bad usage.
import { errorMessage } from '../shared/errors/index.ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { installKmaint, KMAINT_SERVICE_ACCOUNT_USER, writeServiceAccountKubeconfig } from '../test/setup/install-kmaint.ts';
import { AuditLog } from '../testbed/audit.ts';
import { kubeConfigFrom, startTestbed } from '../testbed/testbed.ts';
import { binaryPath } from '../testbed/versions.ts';
import { startSlurm, type SlurmCluster } from '../slurm-testbed/index.ts';
import { SOAK_PROFILES, type SoakProfile } from './features.ts';
import { runSoakOnSim } from './on-sim.ts';
import { formatSoakTable, runSoak, type SoakOptions, type SoakReport } from './run-soak.ts';

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
  windDownMinutes: number;
  nodes: number;
  faultRate: number;
  cluster: 'testbed' | 'sim';
  copies: number;
  profile: SoakProfile;
}

/** The soak's settings that do not depend on the cluster. */
function common(opts: Options): Pick<SoakOptions, 'seed' | 'activeMs' | 'windDownMs' | 'kmaintNamespace' | 'faultRate' | 'copies' | 'log' | 'profile'> {
  return { seed: opts.seed, activeMs: opts.minutes * 60_000, windDownMs: opts.windDownMinutes * 60_000, kmaintNamespace: 'kmaint', faultRate: opts.faultRate, copies: opts.copies, log, profile: opts.profile };
}

function finish(report: SoakReport): number {
  process.stdout.write(`${formatSoakTable(report)}\n`);
  return report.violations.length === 0 ? 0 : 1;
}

/** The embedded simulated cluster (sim/): soak/on-sim.ts. */
async function onSim(opts: Options): Promise<number> {
  log(`starting the embedded simulated cluster of ${opts.nodes} nodes`);
  return finish(await runSoakOnSim(opts.nodes, common(opts)));
}

async function main(opts: Options): Promise<number> {
  if (opts.cluster === 'sim') return onSim(opts);
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-soak-'));
  log(`starting a testbed of ${opts.nodes} nodes in ${dir}`);
  let slurm: { cluster: SlurmCluster } | { problem: string } | undefined;
  const tb = await startTestbed({ dir, profile: 'small', seed: opts.seed, nodes: opts.nodes, heartbeatIntervalMs: 5000, readyTimeoutMs: 600_000, log: (l) => log(`testbed: ${l}`) });
  const stopOnSignal = (): void => {
    void Promise.all([slurm && 'cluster' in slurm ? slurm.cluster.stop() : undefined, tb.stop()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const target = { kubectl: binaryPath('kubectl'), kubeconfigPath: tb.kubeconfigPath, server: tb.controlPlane.server, caFile: tb.controlPlane.caFile, dir };
    await installKmaint(target);
    const kmaintPath = await writeServiceAccountKubeconfig(target);
    const token = /token: (\S+)/.exec(readFileSync(tb.kubeconfigPath, 'utf8'))?.[1] ?? '';
    if (opts.profile === 'all-features') slurm = await startSoakSlurm(dir);
    const report = await runSoak({
      ...(slurm && 'cluster' in slurm ? { slurm: { url: slurm.cluster.url, token: slurm.cluster.token('root'), nodes: slurm.cluster.nodes, rest: (m, p, b) => slurm && 'cluster' in slurm ? slurm.cluster.rest(m, p, b) : Promise.reject(new Error('Slurm stopped')) } } : {}),
      ...(slurm && 'problem' in slurm ? { slurmProblem: slurm.problem } : {}),
      ...common(opts),
      admin: tb.kubeConfig,
      kmaint: kubeConfigFrom(kmaintPath),
      server: tb.controlPlane.server,
      caPem: readFileSync(tb.controlPlane.caFile, 'utf8'),
      nodeControl: {
        setNodeReady: (name, ready) => tb.kubelet.setNodeReady(name, ready),
        killNode: (name) => tb.kubelet.setNodeReady(name, false, { freezePods: true }),
        deleteNode: (name) => tb.kubelet.deleteNode(name),
      },
      // kmaint's grants in the SR-IOV operator's namespace and medik8s-leases, as an operator installs them (README).
      afterFeatureSetup: async () => {
        for (const dir of ['infra/sriov', 'infra/medik8s']) await promisify(execFile)(binaryPath('kubectl'), ['--kubeconfig', tb.kubeconfigPath, 'apply', '-k', dir], { timeout: 60_000 });
      },
      audit: { log: new AuditLog(tb.audit.path, { server: tb.controlPlane.server, caFile: tb.controlPlane.caFile, token }), kmaintUser: KMAINT_SERVICE_ACCOUNT_USER },
    });
    return finish(report);
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    if (slurm && 'cluster' in slurm) await slurm.cluster.stop();
    await tb.stop();
  }
}

/** Slurm nodes of the all-features soak's Slurm: each gets one worker pod on its own worker node. */
const SOAK_SLURM_NODES = 8;

/**
 * The all-features profile's real Slurm: 26.05 from the cached forky rootfs (slurm/; the release that creates
 * reservations), in DIR/slurm. When it cannot start (no rootfs and no way to build one, no unshare), the soak runs
 * without it and says so loudly: the Slurm switch stays off and the report names why.
 */
async function startSoakSlurm(dir: string): Promise<{ cluster: SlurmCluster } | { problem: string }> {
  try {
    const cluster = await startSlurm({ dir: join(dir, 'slurm'), nodes: SOAK_SLURM_NODES, release: 'forky', log: (l) => log(`slurm: ${l}`) });
    log(`Slurm 26.05 up at ${cluster.url} with nodes ${cluster.nodes.join(', ')}`);
    return { cluster };
  } catch (err) {
    const problem = errorMessage(err);
    log(`NOT RUN: Slurm in the all-features profile: ${problem}; the soak goes on without it`);
    return { problem };
  }
}

const program = new Command('soak')
  .exitOverride()
  .option('--seed <s>', 'seed of the cluster, the faults and every actor', numberOption('seed', (n) => Number.isInteger(n) && n >= 0, 'a whole number'), 1)
  .option('--minutes <m>', 'active time (requestors creating, administrator at work); a wind-down follows', numberOption('minutes', (n) => n > 0 && n <= 24 * 60, 'a number of minutes above 0'), 10)
  .option('--wind-down-minutes <w>', 'longest wind-down: every request must be Ready and released within it (a loaded machine needs more)', numberOption('wind-down-minutes', (n) => n > 0 && n <= 24 * 60, 'a number of minutes above 0'), 3)
  .option('--nodes <n>', 'nodes of the generated cluster', numberOption('nodes', (n) => Number.isInteger(n) && n >= 3, 'a whole number of at least 3'), 200)
  .option('--fault-rate <r>', 'share of API requests given a fault', numberOption('fault-rate', (n) => n >= 0 && n <= 1, 'between 0 and 1'), 0.05)
  .option('--copies <c>', 'copies of each pass function running at once', numberOption('copies', (n) => Number.isInteger(n) && n >= 1 && n <= 5, 'a whole number from 1 to 5'), 3)
  .addOption(new Option('--cluster <c>', 'where to run').choices(['testbed', 'sim']).default('testbed'))
  .addOption(new Option('--profile <p>', 'basic: requests, config changes, hand cordons, NotReady nodes; all-features: also gangs, deadlines, not-before, SR-IOV, DRA, medik8s leases, dead kubelets, cloud events, each switch flipped').choices([...SOAK_PROFILES]).default('basic'));

try {
  program.parse();
  process.exitCode = await main(program.opts<Options>());
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`soak: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  }
}
// The testbed is down by now; connection pools of the clients used during the soak would keep the process alive.
process.exit(process.exitCode ?? 0);
