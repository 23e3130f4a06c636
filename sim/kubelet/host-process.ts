// Runs the container of a kmaint pod as a host process, as a kubelet would run it in a container: its command with
// the bundled CLI, its env (downward API included), the kubelet's service variables, and a ServiceAccount token from
// the TokenRequest API served at the fixed in-cluster path to that process only (a private mount namespace with a
// tmpfs over /run and a read-only bind mount: ../shared/reference/in-cluster-notes.md §5.3).
// A pod whose image names a registry on loopback (the tests' registry, test/helm-pods.test.ts) runs from that image
// instead: pulled by reference and unpacked (image-pull.ts), its entrypoint run chrooted into the image's root
// filesystem, so the image's own node and bundle run, not the host's.
import { errorMessage } from '../../shared/errors/index.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { containerArgv, containerEnv, containerUser, imageArgv, imageRegistry, imageUser, isHostPod, isLoopbackRegistry, type ApiServerAddress, type HostPodMatch } from './host-pod-spec.ts';
import { ImagePuller, type PulledImage } from './image-pull.ts';
import type { KubeletApi } from './kubelet-api.ts';
import type { SimLogger } from './logger.ts';
import type { HostFacts } from './pod-decision.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface HostProcessOptions extends HostPodMatch {
  /** The bundled CLI (dist/kmaint.mjs or the tests' build); a promise while it is still being built. */
  bundle: string | Promise<string>;
  /** Per-pod logs go to `<logDir>/pods/<namespace>_<name>_<uid>/<container>/0.log`, as a kubelet keeps them. */
  logDir: string;
  /** The apiserver as the host reaches it; the kubelet puts it in the KUBERNETES_SERVICE_* variables. */
  apiServer: ApiServerAddress;
  /** node, for the bundle. @default process.execPath */
  node?: string;
  /** The image tool (image/tool.ts) that pulls images from a loopback registry; unset: such pods fail to start. */
  imageTool?: string;
}

/** What a host process needs from the API: its ServiceAccount token and the cluster's CA (the projected volume's sources). */
export type TokenSource = Pick<KubeletApi, 'createPodToken' | 'readConfigMapKey'>;

export type HostProcessState =
  | { state: 'running'; startedMs: number; pid: number }
  | { state: 'exited'; startedMs: number; finishedMs: number; exitCode: number; message?: string };

/** Why this machine cannot run host processes (not root, or no unshare/setpriv), or undefined when it can. */
export function hostProcessUnsupported(): string | undefined {
  if (process.getuid?.() !== 0) return 'running a pod as a host process needs root (a private mount namespace for its ServiceAccount token)';
  for (const tool of ['unshare', 'setpriv', 'mount']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) return `running a pod as a host process needs ${tool} (util-linux)`;
  }
  return undefined;
}

// In the child's own mount namespace: a tmpfs over /run (/var/run links to it on Debian), the prepared directory
// bound read-only at the fixed path, then the container's user and command.
const ENTER = [
  'set -e',
  'mount -t tmpfs -o mode=0755 tmpfs /run',
  `mkdir -p ${SERVICE_ACCOUNT_DIR}`,
  `mount --bind -o ro "$1" ${SERVICE_ACCOUNT_DIR}`,
  'uid=$2; gid=$3; shift 3',
  'exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"',
].join('\n');

// The same for a container run from its pulled image: the root filesystem bound read-only over itself (pods share one
// unpacked copy, as readOnlyRootFilesystem), /proc, the host's /dev, tmpfs on /tmp and /run, the token at the fixed
// path under the new root (Debian's /var/run links to /run), then chroot as the container's user into the image's
// working directory. The host network stays: the apiserver is on the host's loopback.
const ENTER_ROOTFS = [
  'set -e',
  'root=$1; sa=$2; uid=$3; gid=$4; wd=$5; chroot=$6; shift 6',
  'mount --bind "$root" "$root"',
  'mount -o remount,bind,ro "$root"',
  'mount -t proc proc "$root/proc"',
  'mount --rbind /dev "$root/dev"',
  'mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"',
  'mount -t tmpfs -o mode=0755 tmpfs "$root/run"',
  `mkdir -p "$root${SERVICE_ACCOUNT_DIR.replace('/var/run', '/run')}"`,
  `mount --bind -o ro "$sa" "$root${SERVICE_ACCOUNT_DIR.replace('/var/run', '/run')}"`,
  'exec "$chroot" --userspec="$uid:$gid" --groups="$gid" "$root" /usr/bin/env --chdir="$wd" "$@"',
].join('\n');

/** The host's chroot (coreutils puts it in /usr/sbin, off a plain PATH). */
function chrootBinary(): string {
  const found = ['/usr/sbin/chroot', '/usr/bin/chroot', '/sbin/chroot'].find((p) => existsSync(p));
  if (!found) throw new Error('running a pod from its image needs chroot (coreutils)');
  return found;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? constants.signals[signal] : 0);
}

interface Entry {
  state: HostProcessState;
  child?: ChildProcess;
  workDir: string;
  killTimer?: NodeJS.Timeout;
  exited: Promise<void>;
}

export class HostProcesses {
  private readonly entries = new Map<string, Entry>();
  private readonly puller: ImagePuller | undefined;

  constructor(
    private readonly api: TokenSource,
    private readonly options: HostProcessOptions,
    private readonly log: SimLogger,
    private readonly onExit: (uid: string) => void,
  ) {
    this.puller = options.imageTool !== undefined ? new ImagePuller(options.imageTool, options.logDir) : undefined;
  }

  /** The pod's image pulled, when its reference names a registry; undefined for a bare name (the host's bundle runs). */
  private async pulledImage(image: string): Promise<PulledImage | undefined> {
    const registry = imageRegistry(image);
    if (registry === undefined) return undefined;
    if (!isLoopbackRegistry(registry)) throw new Error(`image ${image}: the simulated kubelet pulls only from a registry on loopback`);
    if (!this.puller) throw new Error(`image ${image}: no image tool to pull it with (npm run image:build builds it)`);
    return this.puller.pull(image);
  }

  matches(pod: V1Pod): boolean {
    return isHostPod(pod, this.options);
  }

  state(uid: string): HostProcessState | undefined {
    return this.entries.get(uid)?.state;
  }

  /** What the pod decision needs to know of the pod's process. */
  facts(uid: string): HostFacts {
    const entry = this.entries.get(uid);
    if (!entry) return { state: 'not-started' };
    const s = entry.state;
    if (s.state === 'exited') return { state: 'exited', finishedMs: s.finishedMs, exitCode: s.exitCode, ...(s.message !== undefined ? { message: s.message } : {}) };
    return { state: entry.killTimer ? 'stopping' : 'running' };
  }

  /** Starts the pod's container; a pod it cannot start is recorded as exited 128 with the reason. */
  async start(pod: V1Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    if (this.entries.has(uid)) return;
    const startedMs = Date.now();
    const workDir = mkdtempSync(join(tmpdir(), 'kmaint-pod-'));
    let resolveExited: () => void = () => undefined;
    const entry: Entry = { state: { state: 'running', startedMs, pid: 0 }, workDir, exited: new Promise((r) => (resolveExited = r)) };
    this.entries.set(uid, entry);
    try {
      entry.child = await this.spawnContainer(pod, workDir);
      entry.state = { state: 'running', startedMs, pid: entry.child.pid ?? 0 };
      entry.child.once('exit', (code, signal) => {
        clearTimeout(entry.killTimer);
        entry.state = { state: 'exited', startedMs, finishedMs: Date.now(), exitCode: exitCodeOf(code, signal) };
        this.log.info({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, exitCode: entry.state.exitCode }, 'simulated kubelet: host process exited');
        resolveExited();
        this.onExit(uid);
      });
    } catch (err) {
      const message = errorMessage(err);
      entry.state = { state: 'exited', startedMs, finishedMs: Date.now(), exitCode: 128, message };
      this.log.warn({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, err: message }, 'simulated kubelet: host process not started');
      resolveExited();
    }
  }

  private async spawnContainer(pod: V1Pod, workDir: string): Promise<ChildProcess> {
    const { namespace = '', name = '', uid = '' } = pod.metadata ?? {};
    const containers = pod.spec?.containers ?? [];
    const container = containers[0];
    if (!container || containers.length !== 1) throw new Error(`a host process runs pods of exactly one container, this one has ${containers.length}`);
    const pulled = await this.pulledImage(container.image ?? '');
    const user = containerUser(pod, container, pulled ? imageUser(pulled.config.User) : undefined);
    const home = join(workDir, 'home');
    mkdirSync(home);
    chownSync(home, user.uid, user.gid);
    chmodSync(workDir, 0o755);
    const saDir = join(workDir, 'serviceaccount');
    let env: Record<string, string>;
    let argv: string[];
    let spawnArgs: string[];
    if (pulled) {
      // HOME: what containerd gives a user without a usable home directory.
      env = containerEnv(pod, container, this.options.apiServer, '/', pulled.config.Env ?? []);
      argv = imageArgv(container, pulled.config);
      const workingDir = container.workingDir ?? (pulled.config.WorkingDir || '/');
      spawnArgs = ['/bin/sh', '-c', ENTER_ROOTFS, 'sh', pulled.rootfs, saDir, String(user.uid), String(user.gid), workingDir, chrootBinary(), ...argv];
    } else {
      env = containerEnv(pod, container, this.options.apiServer, home);
      // The image carries its own copy of the CLI; so does the pod here. The checkout may sit where the pod's user cannot
      // enter (a 0700 temporary directory, as a CI clone does), so the bundle is copied into the pod's own directory,
      // readable by that user, which mkdtemp creates 0700.
      const bundle = join(workDir, 'kmaint.mjs');
      copyFileSync(await this.options.bundle, bundle);
      chmodSync(bundle, 0o644);
      argv = containerArgv(container, this.options.node ?? process.execPath, bundle);
      spawnArgs = ['/bin/sh', '-c', ENTER, 'sh', saDir, String(user.uid), String(user.gid), ...argv];
    }
    mkdirSync(saDir, { mode: 0o755 });
    if (pod.spec?.automountServiceAccountToken !== false) {
      const serviceAccount = pod.spec?.serviceAccountName ?? 'default';
      const [token, ca] = await Promise.all([this.api.createPodToken(namespace, serviceAccount, { name, uid }), this.api.readConfigMapKey(namespace, 'kube-root-ca.crt', 'ca.crt')]);
      for (const [file, text] of [['token', token], ['ca.crt', ca], ['namespace', namespace]] as const) writeFileSync(join(saDir, file), text, { mode: 0o644 });
    }
    const logDir = join(this.options.logDir, 'pods', `${namespace}_${name}_${uid}`, container.name);
    mkdirSync(logDir, { recursive: true });
    const fd = openSync(join(logDir, '0.log'), 'a');
    try {
      const child = spawn('unshare', ['--mount', '--propagation', 'private', '--', ...spawnArgs], {
        env,
        cwd: pulled ? '/' : home,
        stdio: ['ignore', fd, fd],
        detached: true,
      });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      this.log.info({ pod: `${namespace}/${name}`, pid: child.pid, argv: pulled ? argv : argv.slice(1), ...(pulled ? { image: `${pulled.ref}@${pulled.digest}` } : {}) }, 'simulated kubelet: host process started');
      return child;
    } finally {
      closeSync(fd);
    }
  }

  /** SIGTERM to the process group, SIGKILL after `graceSeconds`, as a kubelet stops a container. */
  stop(uid: string, graceSeconds: number): void {
    const entry = this.entries.get(uid);
    if (!entry || entry.state.state !== 'running' || !entry.child?.pid || entry.killTimer) return;
    const pid = entry.child.pid;
    const signal = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-pid, sig);
      } catch {
        // Already gone.
      }
    };
    signal('SIGTERM');
    entry.killTimer = setTimeout(() => signal('SIGKILL'), graceSeconds * 1000);
    entry.killTimer.unref();
  }

  /** The pod is gone: its process is killed (if still running) and its token directory removed. */
  forget(uid: string): void {
    const entry = this.entries.get(uid);
    if (!entry) return;
    this.stop(uid, 0);
    this.entries.delete(uid);
    void entry.exited.then(() => rmSync(entry.workDir, { recursive: true, force: true }));
  }

  /** The kubelet stops: every process is stopped (SIGTERM, SIGKILL after 5 s) and awaited. */
  async stopAll(): Promise<void> {
    const entries = [...this.entries.entries()];
    for (const [uid] of entries) this.stop(uid, 5);
    await Promise.all(entries.map(([, e]) => e.exited));
    for (const [uid, e] of entries) {
      rmSync(e.workDir, { recursive: true, force: true });
      this.entries.delete(uid);
    }
    await this.puller?.removeAll();
  }
}
