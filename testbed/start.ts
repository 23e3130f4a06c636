// startTestbed(): a real etcd + kube-apiserver + kube-controller-manager + kube-scheduler on 127.0.0.1.
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeCredentials, kubeconfigYaml } from './certs.ts';
import { freePort, startComponent, stopPid, waitUntilReady, isAlive, type RunningComponent } from './processes.ts';
import { binaryPath, binDir } from './versions.ts';
import { AuditLog } from './audit.ts';

/** Users with static tokens; each component gets its own so the audit log tells them apart. */
export const TESTBED_USERS = ['kmaint-testbed-admin', 'kmaint', 'kmaint-sim-kubelet', 'kmaint-kcm', 'kmaint-scheduler'] as const;
export type TestbedUser = (typeof TESTBED_USERS)[number];

export interface ControlPlane {
  dir: string;
  server: string;
  caFile: string;
  /** Admin kubeconfig (system:masters). */
  kubeconfigPath: string;
  /** Kubeconfig path per static-token user. */
  kubeconfigFor(user: TestbedUser): string;
  audit: AuditLog;
  components: RunningComponent[];
  stop(): Promise<void>;
}

interface PidRecord {
  name: string;
  pid: number;
  binary: string;
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["kmaint-sim-kubelet"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/version"]
- level: Metadata
`;

function pidFile(dir: string): string {
  return join(dir, 'pids.json');
}

function readPids(dir: string): PidRecord[] {
  try {
    return JSON.parse(readFileSync(pidFile(dir), 'utf8')) as PidRecord[];
  } catch {
    return [];
  }
}

function recordPid(dir: string, rec: PidRecord): void {
  writeFileSync(pidFile(dir), JSON.stringify([...readPids(dir), rec], null, 2));
}

/** Is `pid` still the process we started (not a recycled pid)? */
function isOurProcess(rec: PidRecord): boolean {
  if (!isAlive(rec.pid)) return false;
  try {
    return readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').split('\0')[0] === rec.binary || rec.binary === '';
  } catch {
    return false;
  }
}

/**
 * Stops every process a testbed in `dir` started (newest first) and removes `dir`, or keeps it
 * (`keepDir`) when a failed start has just named one of its log files.
 */
export async function stopTestbedDir(dir: string, options: { keepDir?: boolean } = {}): Promise<string[]> {
  const stopped: string[] = [];
  for (const rec of readPids(dir).reverse()) {
    if (isOurProcess(rec)) {
      await stopPid(rec.pid);
      stopped.push(`${rec.name} (pid ${rec.pid})`);
    }
  }
  if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
  return stopped;
}

function httpsOk(url: string, caFile: string, token?: string, insecure = false): Promise<boolean> {
  return new Promise((res) => {
    const req = request(
      url,
      {
        ca: insecure ? undefined : readFileSync(caFile),
        rejectUnauthorized: !insecure,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        timeout: 2000,
      },
      (r) => {
        r.resume();
        res(r.statusCode === 200);
      },
    );
    req.on('error', () => res(false));
    req.on('timeout', () => {
      req.destroy();
      res(false);
    });
    req.end();
  });
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((res) => {
    const req = httpRequest(url, { timeout: 2000 }, (r) => {
      r.resume();
      res(r.statusCode === 200);
    });
    req.on('error', () => res(false));
    req.end();
  });
}

export interface ControlPlaneOptions {
  dir: string;
  /** Binary directory; defaults to the build cache. */
  bin?: string;
  /** kube-apiserver's secure port. @default KMAINT_TESTBED_API_PORT when set, else a free port */
  apiPort?: number;
  /** Seconds without a heartbeat before node-lifecycle-controller marks a node NotReady. @default 50 */
  nodeMonitorGraceSeconds?: number;
  log?: (line: string) => void;
  /**
   * Feature gates of kube-apiserver, kube-controller-manager and kube-scheduler. DRADeviceTaintRules (alpha, new in
   * 1.35) also switches on the API it needs, resource.k8s.io/v1alpha3 (DeviceTaintRule), with --runtime-config; `{}`
   * leaves the API unserved (a cluster without device taints, for kmaint's refusal of device requests).
   * @default TESTBED_FEATURE_GATES (DRADeviceTaints and DRADeviceTaintRules on)
   */
  featureGates?: Record<string, boolean>;
  /**
   * GOMAXPROCS of etcd, kube-apiserver, kube-controller-manager and kube-scheduler: the cores each runs on at once
   * (several testbeds on one machine share it out). @default Go's own: every core
   */
  goMaxProcs?: number;
}

/** The gates every testbed runs with: device taints, for kmaint's device-scoped requests (docs/device-maintenance.md). */
export const TESTBED_FEATURE_GATES: Readonly<Record<string, boolean>> = { DRADeviceTaints: true, DRADeviceTaintRules: true };

/** The --feature-gates flag (empty list: no flag) and the apiserver's --runtime-config for the gates. */
export function featureGateFlags(gates: Readonly<Record<string, boolean>>): { featureGates: string[]; runtimeConfig: string[] } {
  const entries = Object.entries(gates).sort(([a], [b]) => a.localeCompare(b));
  const featureGates = entries.length > 0 ? [`--feature-gates=${entries.map(([k, v]) => `${k}=${v}`).join(',')}`] : [];
  const runtimeConfig = gates['DRADeviceTaintRules'] === true ? ['--runtime-config=resource.k8s.io/v1alpha3=true'] : [];
  return { featureGates, runtimeConfig };
}

/** The port forced by KMAINT_TESTBED_API_PORT (bad-input tests occupy it on purpose), if any. */
function apiPortFromEnv(): number | undefined {
  const raw = process.env['KMAINT_TESTBED_API_PORT'];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`KMAINT_TESTBED_API_PORT must be a port number (1-65535), got "${raw}"`);
  return port;
}

/** Starts the four control-plane components; returns once all answer their health checks. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = resolve(opts.dir);
  const bin = opts.bin ?? binDir();
  const forcedApiPort = opts.apiPort ?? apiPortFromEnv();
  const log = opts.log ?? (() => undefined);
  const gates = featureGateFlags(opts.featureGates ?? TESTBED_FEATURE_GATES);
  if (opts.goMaxProcs !== undefined && !(Number.isInteger(opts.goMaxProcs) && opts.goMaxProcs >= 1)) throw new RangeError(`goMaxProcs must be a whole number of at least 1, got ${opts.goMaxProcs}`);
  if (existsSync(dir)) {
    const stopped = await stopTestbedDir(dir);
    if (stopped.length > 0) log(`stale testbed in ${dir}: stopped ${stopped.join(', ')}`);
  }
  mkdirSync(dir, { recursive: true });
  const creds = writeCredentials(dir);
  // Extra static-token users besides the admin.
  const tokens: Record<string, string> = { 'kmaint-testbed-admin': creds.adminToken };
  for (const user of TESTBED_USERS.slice(1)) {
    tokens[user] = `${user}-${creds.adminToken.slice(0, 16)}`;
  }
  writeFileSync(
    creds.tokenFile,
    Object.entries(tokens)
      .map(([user, token]) => `${token},${user},${user},"system:masters"`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
  writeFileSync(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  const [etcdClient, etcdPeer, freeApiPort, kcmPort, schedPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const apiPort = forcedApiPort ?? freeApiPort;
  const server = `https://127.0.0.1:${apiPort}`;
  const kubeconfigs: Record<string, string> = {};
  for (const [user, token] of Object.entries(tokens)) {
    const path = join(dir, user === 'kmaint-testbed-admin' ? 'kubeconfig' : `kubeconfig-${user}`);
    writeFileSync(path, kubeconfigYaml({ server, caFile: creds.caFile, token, user }), { mode: 0o600 });
    kubeconfigs[user] = path;
  }
  const components: RunningComponent[] = [];
  const goEnv = opts.goMaxProcs === undefined ? undefined : { ...process.env, GOMAXPROCS: String(opts.goMaxProcs) };
  const launch = (name: 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler', args: string[]): RunningComponent => {
    const binary = binaryPath(name, bin);
    const c = startComponent(name, binary, args, join(dir, `${name}.log`), goEnv);
    recordPid(dir, { name, pid: c.pid, binary });
    components.push(c);
    return c;
  };
  const stop = async (): Promise<void> => {
    await stopTestbedDir(dir);
  };
  try {
    const etcd = launch('etcd', [
      `--data-dir=${join(dir, 'etcd-data')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      '--unsafe-no-fsync=true',
      '--quota-backend-bytes=8589934592',
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=5m',
      '--log-level=warn',
    ]);
    await waitUntilReady(etcd, () => httpOk(`http://127.0.0.1:${etcdClient}/health`), 30_000);
    log(`etcd ready on 127.0.0.1:${etcdClient}`);
    const api = launch('kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${creds.certFile}`,
      `--tls-private-key-file=${creds.keyFile}`,
      `--client-ca-file=${creds.caFile}`,
      `--token-auth-file=${creds.tokenFile}`,
      '--authorization-mode=RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${creds.saPubFile}`,
      `--service-account-signing-key-file=${creds.saKeyFile}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--endpoint-reconciler-type=none',
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${join(dir, 'audit.log')}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
      '--audit-log-maxsize=0',
      '--max-requests-inflight=0',
      '--max-mutating-requests-inflight=0',
      '--enable-priority-and-fairness=false',
      ...gates.featureGates,
      ...gates.runtimeConfig,
      '--v=0',
    ]);
    await waitUntilReady(api, () => httpsOk(`${server}/readyz`, creds.caFile, creds.adminToken), 90_000);
    log(`kube-apiserver ready at ${server}`);
    const grace = opts.nodeMonitorGraceSeconds ?? 50;
    const kcm = launch('kube-controller-manager', [
      `--kubeconfig=${kubeconfigs['kmaint-kcm']}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      `--cert-dir=${join(dir, 'kcm-certs')}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      '--authentication-skip-lookup=true',
      `--service-account-private-key-file=${creds.saKeyFile}`,
      `--root-ca-file=${creds.caFile}`,
      '--controllers=*,-node-ipam-controller,-node-route-controller,-service-lb-controller,-cloud-node-lifecycle-controller,-persistentvolume-attach-detach-controller,-persistentvolume-expander-controller,-horizontal-pod-autoscaler-controller',
      '--node-monitor-period=5s',
      `--node-monitor-grace-period=${grace}s`,
      '--concurrent-deployment-syncs=10',
      '--concurrent-replicaset-syncs=10',
      '--kube-api-qps=500',
      '--kube-api-burst=1000',
      ...gates.featureGates,
      '--v=0',
    ]);
    const sched = launch('kube-scheduler', [
      `--kubeconfig=${kubeconfigs['kmaint-scheduler']}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${schedPort}`,
      `--cert-dir=${join(dir, 'scheduler-certs')}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      '--authentication-skip-lookup=true',
      '--kube-api-qps=500',
      '--kube-api-burst=1000',
      ...gates.featureGates,
      '--v=0',
    ]);
    await Promise.all([
      waitUntilReady(kcm, () => httpsOk(`https://127.0.0.1:${kcmPort}/healthz`, creds.caFile, undefined, true), 60_000),
      waitUntilReady(sched, () => httpsOk(`https://127.0.0.1:${schedPort}/healthz`, creds.caFile, undefined, true), 60_000),
    ]);
    log('kube-controller-manager and kube-scheduler healthy');
  } catch (err) {
    // Keep the directory: the error names a log file in it. The next `up` or `down` clears it.
    await stopTestbedDir(dir, { keepDir: true }).catch(() => undefined);
    throw err;
  }
  return {
    dir,
    server,
    caFile: creds.caFile,
    kubeconfigPath: join(dir, 'kubeconfig'),
    kubeconfigFor: (user) => kubeconfigs[user] ?? join(dir, 'kubeconfig'),
    audit: new AuditLog(join(dir, 'audit.log'), { server, caFile: creds.caFile, token: creds.adminToken }),
    components,
    stop,
  };
}

export { readPids as testbedPids };
