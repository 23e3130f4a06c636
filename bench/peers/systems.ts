// The three systems the peer benchmark compares, each installed on a fresh testbed and started as its own
// process(es) logged in as its own ServiceAccount, so the audit log and /proc tell their work apart.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../../esbuild-options.ts';
import { installKmaint, writeServiceAccountKubeconfig, KMAINT_SERVICE_ACCOUNT_USER } from '../../test/setup/install-kmaint.ts';
import { binaryPath } from '../../testbed/versions.ts';
import type { NvidiaOperator } from '../../testbed/peers/build-nvidia.ts';
import { KMAINT_NS, setConfig } from '../cluster-setup.ts';
import type { BenchCluster } from './cluster.ts';
import { serviceAccountLogin } from './cluster.ts';
import type { Scenario } from './scenario.ts';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const NVIDIA_NS = 'nvidia-maintenance';

export type SystemName = 'kmaint' | 'kmaint-cron' | 'kmaint-watch' | 'nvidia-operator' | 'kubectl-drain';
/**
 * kmaint-cron: the in-cluster CronJob cadence, one `kmaint run all` started on every minute boundary. kmaint-watch: the
 * loop with `--wake watch`, its ServiceAccount also granted `watch` on what it watches (not in infra/base).
 */
export const SYSTEMS: readonly SystemName[] = ['kmaint', 'kmaint-cron', 'kmaint-watch', 'nvidia-operator', 'kubectl-drain'];
const KMAINT_SYSTEMS: ReadonlySet<SystemName> = new Set(['kmaint', 'kmaint-cron', 'kmaint-watch']);
export const isKmaint = (system: string): boolean => KMAINT_SYSTEMS.has(system as SystemName);


export interface Coordinator {
  /** Audit-log user name of the coordinator. */
  user: string;
  /** Stops it (if still running) and returns the CPU seconds (user + system) its process(es) used. */
  stop(): Promise<number>;
  /** Stops it at once, mid-pass or mid-drain as a removed pod would be (SIGTERM, then SIGKILL), measuring nothing. */
  kill(): Promise<void>;
  /** Resolves when it exits on its own (the kubectl script). */
  exited: Promise<number | null>;
  /** Lines the kubectl script prints: "<phase> <node> <epoch ms>". */
  onLine(cb: (line: string) => void): void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** User + system CPU seconds of the shell's children, from the `times` builtin's second line ("0m1.230s 0m0.120s"). */
function childTimes(output: string): number {
  const line = output.trim().split('\n').at(-1) ?? '';
  const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return (secs[0] ?? Number.NaN) + (secs[1] ?? Number.NaN);
}

function cpuOfPid(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Shell {
  child: ChildProcess;
  exited: Promise<number | null>;
  out: () => string;
  onLine(cb: (l: string) => void): void;
  /** Waits up to `ms` for the exit, then kills the whole group. */
  settle(ms: number): Promise<void>;
}

function shell(script: string, args: string[], env: Record<string, string>, logFile: string): Shell {
  // A process group of its own, so a run that overstays is stopped with everything it started.
  const child = spawn('bash', ['-c', script, 'bench', ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  let buf = '';
  const listeners: Array<(l: string) => void> = [];
  const seen: string[] = [];
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    seen.push(...lines);
    for (const l of lines) for (const cb of listeners) cb(l);
  });
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => {
    writeFileSync(logFile, `${out}\n--- stderr ---\n${err}`);
    r(code);
  }));
  let done = false;
  void exited.then(() => (done = true));
  const settle = async (ms: number): Promise<void> => {
    await Promise.race([exited, sleep(ms)]);
    if (!done && child.pid) process.kill(-child.pid, 'SIGKILL');
    await exited;
  };
  return { child, exited, out: () => out, onLine: (cb) => {
    // Lines printed before anyone listened are replayed.
    for (const l of seen) cb(l);
    listeners.push(cb);
  }, settle };
}

let bundle: string | undefined;

/** The kmaint CLI bundled into one ES module, as the container image runs it (plain node, no tsx). */
async function kmaintBundle(): Promise<string> {
  if (bundle) return bundle;
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-peers-cli-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'kmaint.mjs');
  await build({
    entryPoints: [join(REPO, 'cli/main.ts')],
    outfile,
    ...NODE_ESM_BUNDLE,
  });
  bundle = outfile;
  return outfile;
}

/**
 * `kmaint run all` again and again, 1 s apart once idle (CADENCE 0), or started on every minute boundary as the
 * CronJobs of infra/base are (CADENCE 60; a run still going at the boundary delays the next: under the CronJobs'
 * concurrencyPolicy Allow a second copy would start and, finding the pass leases held, do nothing). CPU of all the runs.
 */
const KMAINT_LOOP = `
boundary() {
  left=$(( CADENCE - $(date +%s) % CADENCE ))
  while [ "$left" -gt 0 ] && [ ! -e "$STOP" ]; do sleep 1; left=$((left - 1)); done
}
if [ "$CADENCE" -gt 0 ]; then boundary; fi
while [ ! -e "$STOP" ]; do
  node "$CLI" --kubeconfig "$KCFG" --kmaint-namespace "$NS" -o json run all --timeout 60m --wake "$WAKE" >>"$RUNLOG" 2>&1
  if [ "$CADENCE" -gt 0 ]; then boundary; else sleep 1; fi
done
times`;

/** `extraConfig`: more MaintenanceOperatorConfig spec for kmaint's rows (e.g. { nodeConditions: false }), from --kmaint-config. */
export async function installSystem(system: SystemName, c: BenchCluster, scenario: Scenario, nvidia: NvidiaOperator | undefined, extraConfig: Record<string, unknown> = {}): Promise<{ kubeconfig: string; user: string }> {
  if (isKmaint(system)) {
    const target = { kubectl: binaryPath('kubectl'), kubeconfigPath: c.cp.kubeconfigPath, server: c.cp.server, caFile: c.cp.caFile, dir: c.cp.dir };
    await installKmaint(target);
    // What `kmaint run --wake watch` needs beyond infra/base: the opt-in grant the repository ships.
    if (system === 'kmaint-watch') await c.kubectl(['apply', '-k', 'infra/wake-watch']);
    await setConfig(c.admin, { ...extraConfig, maxParallelOperations: scenario.maxParallelOperations });
    return { kubeconfig: await writeServiceAccountKubeconfig(target), user: KMAINT_SERVICE_ACCOUNT_USER };
  }
  if (system === 'nvidia-operator') {
    if (!nvidia) throw new Error('the NVIDIA operator was not built');
    await c.kubectl(['apply', '-f', nvidia.crdDir]);
    await c.kubectl(['wait', '--for=condition=Established', '-f', nvidia.crdDir, '--timeout=60s']);
    await c.kubectl(['apply', '-f', nvidia.roleFile]);
    const login = await serviceAccountLogin(c, { namespace: NVIDIA_NS, name: 'maintenance-operator', clusterRole: 'manager-role' });
    await c.kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'maintenance.nvidia.com/v1alpha1',
      kind: 'MaintenanceOperatorConfig',
      metadata: { name: 'default', namespace: NVIDIA_NS },
      spec: { maxParallelOperations: scenario.maxParallelOperations },
    }));
    return login;
  }
  return serviceAccountLogin(c, { namespace: 'bench-drain', name: 'kubectl-drain', clusterRole: 'cluster-admin' });
}

export async function startCoordinator(system: SystemName, c: BenchCluster, login: { kubeconfig: string; user: string }, scenario: Scenario, nvidia: NvidiaOperator | undefined, log: (l: string) => void): Promise<Coordinator> {
  const dir = c.cp.dir;
  if (isKmaint(system)) {
    const stopFile = join(dir, 'kmaint-loop.stop');
    const env = {
      STOP: stopFile,
      CLI: await kmaintBundle(),
      KCFG: login.kubeconfig,
      NS: KMAINT_NS,
      RUNLOG: join(dir, 'kmaint-runs.log'),
      CADENCE: system === 'kmaint-cron' ? '60' : '0',
      WAKE: system === 'kmaint-watch' ? 'watch' : 'poll',
    };
    const sh = shell(KMAINT_LOOP, [], env, join(dir, 'kmaint-loop.log'));
    return {
      user: login.user,
      exited: sh.exited,
      onLine: sh.onLine,
      stop: async () => {
        writeFileSync(stopFile, '');
        await sh.settle(60_000);
        return childTimes(sh.out());
      },
      kill: () => sh.settle(0),
    };
  }
  if (system === 'nvidia-operator') {
    if (!nvidia) throw new Error('the NVIDIA operator was not built');
    const child = spawn(nvidia.binary, ['--kubeconfig', login.kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--zap-log-level', 'info'], {
      env: { ...process.env, ENABLE_WEBHOOKS: 'false', OPERATOR_NAMESPACE: NVIDIA_NS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let done = false;
    void exited.then(() => (done = true));
    // Ready once every controller's workers run (its caches are synced).
    const deadline = Date.now() + 60_000;
    while ((out.match(/Starting workers/g) ?? []).length < 3) {
      if (done || Date.now() > deadline) throw new Error(`the NVIDIA operator did not start: ${out.trim().split('\n').slice(-5).join(' | ')}`);
      await sleep(200);
    }
    log(`NVIDIA operator pid ${child.pid} running`);
    return {
      user: login.user,
      exited,
      onLine: () => undefined,
      stop: async () => {
        const cpu = done ? Number.NaN : cpuOfPid(child.pid ?? 0);
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(10_000)]);
        if (!done) child.kill('SIGKILL');
        writeFileSync(join(dir, 'nvidia-operator.log'), out);
        return cpu;
      },
      kill: async () => {
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(10_000)]);
        if (!done) child.kill('SIGKILL');
        writeFileSync(join(dir, `nvidia-operator-${child.pid ?? 0}.log`), out);
      },
    };
  }
  const script = `
K() { kubectl --kubeconfig "$KCFG" "$@"; }
for node in "$@"; do
  echo "Scheduled $node $(date +%s%3N)"
  K cordon "$node" >/dev/null
  if [ -n "$WAIT_SELECTOR" ]; then
    K wait --for=delete pod -n bench -l "$WAIT_SELECTOR" --field-selector "spec.nodeName=$node" --timeout=-1s >/dev/null 2>&1 || true
  fi
  K drain "$node" --ignore-daemonsets --delete-emptydir-data --force --pod-selector "$SELECTOR" --timeout=0s >/dev/null 2>&1 || echo "FAILED $node $(date +%s%3N)"
  echo "Ready $node $(date +%s%3N)"
  K uncordon "$node" >/dev/null
  echo "Gone $node $(date +%s%3N)"
done
times`;
  const sh = shell(script, c.targets, {
    KCFG: login.kubeconfig,
    SELECTOR: scenario.kubectl.podSelector,
    WAIT_SELECTOR: scenario.kubectl.waitForDeleteSelector ?? '',
    PATH: `${binaryPath('kubectl').replace(/\/kubectl$/, '')}:${process.env['PATH'] ?? ''}`,
  }, join(dir, 'kubectl-drain.log'));
  return {
    user: login.user,
    exited: sh.exited,
    onLine: sh.onLine,
    stop: async () => {
      await sh.settle(0);
      return childTimes(sh.out());
    },
    kill: () => sh.settle(0),
  };
}
