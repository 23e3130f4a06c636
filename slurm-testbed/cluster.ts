// A real Slurm cluster on 127.0.0.1: slurmctld, N slurmd (n1..nN) and slurmrestd with JWT (as nobody: 26.05 refuses
// to serve as root), run from a cached Debian rootfs (trixie's Slurm 24.11, or forky's 26.05) in a private mount and
// pid namespace, so nothing stays mounted or running once it stops.
import { errorMessage } from '../shared/errors/index.ts';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintSlurmJwt } from './jwt.ts';
import { checkHostTools, ensureRootfs, SlurmRunnerError, type SlurmRelease } from './rootfs.ts';
import { PICK_RANGE, portBindable } from '../testbed/processes.ts';

/**
 * How long a start may take until every node is IDLE, and slurmrestd to come or go: generous, for a loaded machine
 * (0.2-5 s when quiet, at most 3.2 s with six busy loops on two cores beside three starting clusters); only a cluster
 * that never gets there fails, with its logs. The wait is split over READY_ATTEMPTS starts, each with fresh ports and
 * state: a CI run once saw a start whose nodes never came IDLE in 90 s that no loaded machine here reproduced.
 */
const READY_WAIT_MS = 90_000;
const READY_ATTEMPTS = 2;
const RESTD_WAIT_MS = 60_000;

export interface SlurmOptions {
  /** State directory: config, keys, spool, logs, pid files. A running cluster there is stopped first. */
  dir: string;
  /** @default 3 */
  nodes?: number;
  /** Which Debian release's Slurm: trixie (24.11) or forky (26.05). @default "trixie" */
  release?: SlurmRelease;
  /** @default defaultRootfs(release) */
  rootfs?: string;
  /** Picks the first of `count` consecutive free ports (tests give a taken one). @default a random free run below the ephemeral range */
  pickPorts?: (count: number) => Promise<number>;
  /** How long all starts together may take until every node is IDLE, split over the attempts. @default 90000 */
  readyWaitMs?: number;
  /** Seconds each job's epilog sleeps, which keeps a node COMPLETING that long. @default 0 */
  epilogSeconds?: number;
  log?: (line: string) => void;
}

/** What `up` writes to DIR/slurm.json. */
export interface SlurmInfo {
  url: string;
  jwtKeyPath: string;
  nodes: string[];
  ports: { slurmctld: number; slurmd: number[]; slurmrestd: number };
  /** Host pids of unshare and of the namespace's init. */
  pids: { unshare: number; init: number };
}

export interface SlurmCluster extends SlurmInfo {
  dir: string;
  /** A token for `user` (default root), signed with the cluster's key. */
  token(user?: string): string;
  /** One REST call as root; returns the status and parsed JSON body (or text). */
  rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops slurmrestd alone (the rest keeps running) until startRestd(). */
  stopRestd(): Promise<void>;
  startRestd(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `count` consecutive free ports (slurmd binds 0.0.0.0, so checked there and on 127.0.0.1), below the ephemeral range
 * as the testbed's (testbed/processes.ts PICK_RANGE): an outgoing connection can never take one before Slurm binds it.
 */
async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PICK_RANGE.from + Math.floor(Math.random() * (PICK_RANGE.to - PICK_RANGE.from - count));
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = (await portBindable(p, '0.0.0.0')) && (await portBindable(p, '127.0.0.1'));
    if (ok) return base;
  }
  throw new SlurmRunnerError(`no ${count} consecutive free ports found`);
}

function slurmConf(n: number, ports: SlurmInfo['ports'], epilog: boolean): string {
  const nodePorts = n === 1 ? `${ports.slurmd[0]}` : `${ports.slurmd[0]}-${ports.slurmd[n - 1]}`;
  return [
    'ClusterName=kmaint',
    'SlurmctldHost=localhost(127.0.0.1)',
    `SlurmctldPort=${ports.slurmctld}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/slurm',
    'CredType=auth/slurm',
    'AuthInfo=keyfile=/kmt/etc/slurm.key',
    'AuthAltTypes=auth/jwt',
    'AuthAltParameters=jwt_key=/kmt/etc/jwt_hs256.key',
    'StateSaveLocation=/kmt/state/ctld',
    'SlurmdSpoolDir=/kmt/state/d-%n',
    'SlurmctldPidFile=/kmt/run/slurmctld.pid',
    'SlurmdPidFile=/kmt/run/slurmd-%n.pid',
    'SlurmctldLogFile=/kmt/log/slurmctld.log',
    'SlurmdLogFile=/kmt/log/slurmd-%n.log',
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'SelectType=select/cons_tres',
    'MpiDefault=none',
    'ReturnToService=2',
    'MailProg=/bin/true',
    'SlurmdParameters=config_overrides',
    ...(epilog ? ['Epilog=/kmt/etc/epilog.sh'] : []),
    `NodeName=n[1-${n}] NodeHostname=localhost NodeAddr=127.0.0.1 Port=${nodePorts} CPUs=1 State=UNKNOWN`,
    'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
    '',
  ].join('\n');
}

/** pid 1 of the pid namespace: starts the daemons, keeps slurmrestd as run/restd.want says, stops all on SIGTERM. */
function initScript(n: number, restdPort: number): string {
  return `#!/bin/sh
export SLURM_CONF=/kmt/etc/slurm.conf
stop_all() {
  kill -TERM -1 2>/dev/null
  i=0
  while [ $i -lt 30 ] && kill -0 -1 2>/dev/null; do sleep 0.1; i=$((i+1)); done
  exit 0
}
trap stop_all TERM INT
slurmctld || exit 1
for i in $(seq 1 ${n}); do slurmd -N n$i || exit 1; done
R=
while :; do
  want=$(cat /kmt/run/restd.want 2>/dev/null || echo up)
  if [ "$want" = up ] && [ -z "$R" ]; then
    SLURM_JWT=daemon setpriv --reuid=nobody --regid=nogroup --clear-groups slurmrestd -a rest_auth/jwt -s openapi/slurmctld 127.0.0.1:${restdPort} >>/kmt/log/slurmrestd.log 2>&1 &
    R=$!
  fi
  if [ "$want" = down ] && [ -n "$R" ]; then kill -TERM "$R"; wait "$R"; R=; fi
  sleep 0.1 & wait $!
done
`;
}

function readInfo(dir: string): SlurmInfo | undefined {
  const file = join(dir, 'slurm.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as SlurmInfo;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Stops the cluster recorded in DIR (pid files read now), waiting until its namespace is empty. Idempotent. */
export async function stopSlurmDir(dirArg: string, log: (line: string) => void = () => undefined): Promise<boolean> {
  const dir = resolve(dirArg);
  const info = readInfo(dir);
  if (!info) return false;
  const started = Date.now();
  const { unshare, init } = info.pids;
  // Pids are checked against their command line: a recycled pid is someone else's process.
  const initAlive = (): boolean => cmdline(init).includes('/kmt/init.sh');
  if (cmdline(unshare).includes('unshare')) process.kill(unshare, 'SIGTERM');
  if (initAlive()) process.kill(init, 'SIGTERM');
  for (let i = 0; i < 100 && initAlive(); i++) await sleep(100);
  if (initAlive()) process.kill(init, 'SIGKILL');
  for (let i = 0; i < 50 && initAlive(); i++) await sleep(100);
  rmSync(join(dir, 'slurm.json'), { force: true });
  log(`slurm stopped in ${((Date.now() - started) / 1000).toFixed(2)} s`);
  return true;
}

async function restCall(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'X-SLURM-USER-TOKEN': token, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Each expected node's state as slurmrestd answered, e.g. "n1 IDLE, n2 IDLE+NOT_RESPONDING, n3 (not listed)". */
export function nodeStates(expected: readonly string[], listed: ReadonlyArray<{ name: string; state: string[] }>): string {
  const byName = new Map(listed.map((x) => [x.name, x.state]));
  return expected.map((name) => `${name} ${byName.get(name)?.join('+') ?? '(not listed)'}`).join(', ');
}

/** The lines of a log that match `pattern` (undefined when there is no log). */
function matchingLines(dir: string, file: string, pattern: RegExp): string[] | undefined {
  try {
    return readFileSync(join(dir, 'log', file), 'utf8').trim().split('\n').filter((l) => pattern.test(l));
  } catch {
    return undefined;
  }
}

/** The last 6 lines of a log that match `pattern`, joined by " | " ("(no log)" when absent). */
function logLines(dir: string, file: string, pattern: RegExp): string {
  const lines = matchingLines(dir, file, pattern);
  if (lines === undefined) return '(no log)';
  return lines.length > 0 ? lines.slice(-6).join(' | ') : '(no matching line)';
}

function logTail(dir: string, file: string): string {
  try {
    return readFileSync(join(dir, 'log', file), 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** Starts the cluster and waits until slurmrestd answers and every node is IDLE. */
export async function startSlurm(opts: SlurmOptions): Promise<SlurmCluster> {
  const log = opts.log ?? (() => undefined);
  const dir = resolve(opts.dir);
  const n = opts.nodes ?? 3;
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new SlurmRunnerError(`--nodes must be 1..64, got ${n}`);
  checkHostTools(false);
  const rootfs = await ensureRootfs({ ...(opts.rootfs !== undefined ? { rootfs: opts.rootfs } : {}), ...(opts.release !== undefined ? { release: opts.release } : {}), log });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, { dir, n, rootfs, log, waitMs: (opts.readyWaitMs ?? READY_WAIT_MS) / READY_ATTEMPTS });
    } catch (err) {
      if (!(err instanceof SlurmNotIdleError) || attempt >= READY_ATTEMPTS) throw err;
      log(`${err.message}; starting again with fresh ports and state (attempt ${attempt + 1} of ${READY_ATTEMPTS})`);
    }
  }
}

/** A start whose nodes were not all IDLE in time (a quiet start takes 0.2-3 s): startSlurm tries once more. */
class SlurmNotIdleError extends SlurmRunnerError {}

async function startOnce(opts: SlurmOptions, at: { dir: string; n: number; rootfs: string; log: (line: string) => void; waitMs: number }): Promise<SlurmCluster> {
  const { dir, n, rootfs, log } = at;
  if (await stopSlurmDir(dir, log)) log(`stopped the cluster left running in ${dir}`);
  const started = Date.now();
  for (const sub of ['state', 'log', 'run']) rmSync(join(dir, sub), { recursive: true, force: true });
  for (const sub of ['etc', 'state/ctld', 'log', 'run']) mkdirSync(join(dir, sub), { recursive: true });
  // slurmrestd runs as nobody and reads /kmt/etc/slurm.conf: the directory (a caller's mkdtemp is 0700) must let it in.
  // The keys stay 0600, root's.
  chmodSync(dir, 0o755);
  for (let i = 1; i <= n; i++) mkdirSync(join(dir, 'state', `d-n${i}`), { recursive: true });

  const base = await (opts.pickPorts ?? freePorts)(n + 2);
  const ports = { slurmctld: base, slurmd: Array.from({ length: n }, (_, i) => base + 1 + i), slurmrestd: base + n + 1 };
  const keyFile = (name: string, bytes: number): string => {
    const p = join(dir, 'etc', name);
    writeFileSync(p, randomBytes(bytes), { mode: 0o600 });
    chmodSync(p, 0o600);
    return p;
  };
  keyFile('slurm.key', 1024);
  const jwtKeyPath = keyFile('jwt_hs256.key', 32);
  const epilog = (opts.epilogSeconds ?? 0) > 0;
  writeFileSync(join(dir, 'etc', 'slurm.conf'), slurmConf(n, ports, epilog));
  writeFileSync(join(dir, 'etc', 'cgroup.conf'), 'CgroupPlugin=disabled\n');
  if (epilog) writeFileSync(join(dir, 'etc', 'epilog.sh'), `#!/bin/sh\nsleep ${opts.epilogSeconds}\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'init.sh'), initScript(n, ports.slurmrestd), { mode: 0o755 });
  writeFileSync(join(dir, 'run', 'restd.want'), 'up\n');
  // The chroot has no /etc/hosts of its own: the host's is bind-mounted over this one.
  if (!existsSync(join(rootfs, 'etc', 'hosts'))) writeFileSync(join(rootfs, 'etc', 'hosts'), '');
  mkdirSync(join(rootfs, 'kmt'), { recursive: true });

  const q = (p: string): string => `'${p.replaceAll("'", "'\\''")}'`;
  const R = q(rootfs);
  const mounts = [
    `mount -t proc proc ${R}/proc`,
    `mount --rbind /sys ${R}/sys`,
    `mount --rbind /dev ${R}/dev`,
    `mount --bind /etc/hosts ${R}/etc/hosts`,
    `mount --bind ${q(dir)} ${R}/kmt`,
    `mount -t tmpfs tmpfs ${R}/run`,
    `mount -t tmpfs tmpfs ${R}/tmp`,
    `exec chroot ${R} /bin/sh /kmt/init.sh`,
  ].join(' && ');
  const out = openSync(join(dir, 'log', 'init.log'), 'a');
  const child = spawn('unshare', ['--mount', '--propagation', 'private', '--pid', '--kill-child=SIGTERM', '--', 'sh', '-c', mounts], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  child.unref();
  const unsharePid = child.pid ?? 0;
  let init = 0;
  for (let i = 0; i < 50 && init === 0; i++) {
    await sleep(20);
    try {
      init = Number(readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8').trim().split(/\s+/)[0] ?? 0) || 0;
    } catch {
      break;
    }
  }
  const url = `http://127.0.0.1:${ports.slurmrestd}`;
  const nodes = Array.from({ length: n }, (_, i) => `n${i + 1}`);
  const info: SlurmInfo = { url, jwtKeyPath, nodes, ports, pids: { unshare: unsharePid, init } };
  writeFileSync(join(dir, 'slurm.json'), `${JSON.stringify(info, null, 2)}\n`);
  writeFileSync(join(dir, 'slurm.pid'), `${unsharePid}\n`);

  const token = (user?: string): string => mintSlurmJwt(jwtKeyPath, user !== undefined ? { user } : {});
  const rest = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => restCall(url, token(), method, path, body);
  const restUp = async (): Promise<boolean> => {
    try {
      return (await rest('GET', '/slurm/v0.0.42/ping')).status === 200;
    } catch {
      return false;
    }
  };
  /** Asks init.sh to keep slurmrestd up or down and waits until it answers so (or not), failing with its log after 60 s. */
  const restdBecomes = async (up: boolean): Promise<void> => {
    writeFileSync(join(dir, 'run', 'restd.want'), up ? 'up\n' : 'down\n');
    const deadline = Date.now() + RESTD_WAIT_MS;
    while ((await restUp()) !== up) {
      if (Date.now() > deadline) throw new SlurmRunnerError(`slurmrestd still ${up ? 'down' : 'up'} ${RESTD_WAIT_MS / 1000} s after asking for it ${up ? 'up' : 'down'}: slurmrestd.log: ${logTail(dir, 'slurmrestd.log')}`);
      await sleep(100);
    }
  };
  const cluster: SlurmCluster = {
    ...info,
    dir,
    token,
    rest,
    stopRestd: () => restdBecomes(false),
    startRestd: () => restdBecomes(true),
    stop: async () => {
      await stopSlurmDir(dir, log);
    },
  };

  // Ready: slurmrestd answers and every node is IDLE (slurmd registered).
  const deadline = Date.now() + at.waitMs;
  /** What the last look saw: each node's state, or why there was no answer; the error says it. */
  let seen: string;
  for (;;) {
    if (!cmdline(init).includes('/kmt/init.sh') && Date.now() - started > 500) {
      await cluster.stop();
      throw new SlurmRunnerError(`slurm did not start: init.log: ${logTail(dir, 'init.log')}; slurmctld.log: ${logTail(dir, 'slurmctld.log')}`);
    }
    try {
      const r = await rest('GET', '/slurm/v0.0.42/nodes');
      const list = (r.body as { nodes?: Array<{ name: string; state: string[] }> }).nodes ?? [];
      if (r.status === 200 && list.length === n && list.every((x) => x.state.includes('IDLE') && !x.state.includes('NOT_RESPONDING'))) break;
      seen = r.status === 200 ? nodeStates(nodes, list) : `HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
    } catch (err) {
      seen = `no answer: ${errorMessage(err)}`;
    }
    // A daemon that died at start (slurmd: "fatal: Unable to bind listen port") never comes: no need to wait it out.
    const fatal = ['slurmctld.log', ...nodes.map((name) => `slurmd-${name}.log`)].find((file) => (matchingLines(dir, file, /\bfatal:/) ?? []).length > 0);
    if (fatal !== undefined || Date.now() > deadline) {
      await cluster.stop();
      throw new SlurmNotIdleError(
        `slurm nodes not IDLE ${fatal !== undefined ? `(${fatal}: ${logLines(dir, fatal, /\bfatal:/)})` : `within ${at.waitMs / 1000} s`}; last seen: ${seen}; slurmctld.log: ${logLines(dir, 'slurmctld.log', /error|node|respond|regist/i)}; ` +
          nodes.map((name) => `slurmd-${name}.log: ${logLines(dir, `slurmd-${name}.log`, /./)}`).join('; ') +
          `; slurmrestd.log: ${logTail(dir, 'slurmrestd.log')}; init.log: ${logTail(dir, 'init.log')}`,
      );
    }
    await sleep(50);
  }
  log(`slurm up in ${((Date.now() - started) / 1000).toFixed(2)} s: ${n} nodes, REST ${url}`);
  return cluster;
}
