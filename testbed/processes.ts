// Starting, watching and stopping the testbed's component processes, each by pid with its own log file.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

export class ComponentError extends Error {
  override readonly name = 'ComponentError';
  constructor(
    readonly component: string,
    readonly logFile: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${component}: ${message} (log: ${logFile})`, options);
  }
}

export interface RunningComponent {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  hasExited(): boolean;
}

/** Starts `binary args` in its own process group, stdout and stderr appended to `logFile`. */
export function startComponent(name: string, binary: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): RunningComponent {
  if (!existsSync(binary)) throw new ComponentError(name, logFile, `binary ${binary} is missing: run npm run testbed:build`);
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', fd, fd], env: env ?? process.env });
  closeSync(fd);
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      resolve(code ?? (signal ? 128 : null));
    });
    child.on('error', () => {
      done = true;
      resolve(null);
    });
  });
  child.unref();
  if (child.pid === undefined) throw new ComponentError(name, logFile, `could not start ${binary}`);
  return { name, pid: child.pid, logFile, exited, hasExited: () => done };
}

/** The log line that explains a failure: the last klog error/fatal line or etcd error entry, else the last line. */
export function failureLine(file: string): string {
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').trim().split('\n');
  } catch {
    return 'no log written';
  }
  const error = lines.findLast((line) => /^[EF]\d{4} |"level":"(?:error|fatal|panic)"/.test(line));
  return (error ?? lines.at(-1) ?? '').trim() || 'no output';
}

/** Polls `probe` until it returns true; fails early if the component exits or the deadline passes. */
export async function waitUntilReady(component: RunningComponent, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (component.hasExited()) {
      const code = await component.exited;
      throw new ComponentError(component.name, component.logFile, `exited during start (code ${code}): ${failureLine(component.logFile)}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new ComponentError(component.name, component.logFile, `not ready after ${Math.round(timeoutMs / 1000)} s: ${failureLine(component.logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM the process group, then SIGKILL after `graceMs`; resolves when the pid is gone. */
export async function stopPid(pid: number, graceMs = 5000): Promise<void> {
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  if (!isAlive(pid)) return;
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    signal('SIGKILL');
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));
  }
}

/** Ports freePort has handed out in this process. */
const handedOut = new Set<number>();

/**
 * Where freePort picks from: below Linux's default ephemeral range (32768-60999, /proc/sys/net/ipv4/ip_local_port_range).
 * A port picked here is free but not yet bound until its component starts, seconds later; had the OS picked it from the
 * ephemeral range (listen on port 0), any outgoing connection on the machine (the testbeds' own thousands, a second
 * testbed starting beside it) could take it as its source port in between, and the component would fail to bind.
 */
export const PICK_RANGE = { from: 10_000, to: 32_000 } as const;

/** Whether `port` can be bound on `host` right now. */
export function portBindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A port free on 127.0.0.1 and 0.0.0.0 right now, outside the ephemeral range (PICK_RANGE), never one this process was
 * handed before: testbeds started side by side in one process ask at once.
 */
export async function freePort(random: () => number = Math.random): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = PICK_RANGE.from + Math.floor(random() * (PICK_RANGE.to - PICK_RANGE.from));
    if (handedOut.has(port)) continue;
    if ((await portBindable(port, '127.0.0.1')) && (await portBindable(port, '0.0.0.0'))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new ComponentError('freePort', '-', `no free port found in ${PICK_RANGE.from}-${PICK_RANGE.to} after 500 tries`);
}

/** TCP ports in LISTEN state by socket inode (/proc/net/tcp and tcp6). Linux only. */
export function listeningSockets(): Map<string, number> {
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue;
      byInode.set(cols[9] ?? '', parseInt(cols[1]?.split(':')[1] ?? '', 16));
    }
  }
  return byInode;
}

/** The ports the given processes listen on, found through their socket file descriptors, ascending. */
export function portsOf(pids: number[]): number[] {
  const listening = listeningSockets();
  const ports = new Set<number>();
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' }))?.[1];
      const port = inode ? listening.get(inode) : undefined;
      if (port !== undefined) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}
