// Test-side helpers for talking to the cluster under test as a real client would: kubectl, client-node, and the
// request log (the testbed's audit log, or the sim's in-process request log, behind one interface).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { holdKubeletStatusPosts as holdKubeletStatusPostsAt, setKubeletNodeReady as setKubeletNodeReadyAt } from '../../sim/kubelet/control.ts';
import { AuditLog, type AuditEntry, type AuditFilter } from '../../testbed/audit.ts';
import { sharingConnections } from './shared-connections.ts';
import type { TestbedInfo, TestClusterKind } from './testbed-info.ts';

const run = promisify(execFile);

/** What tests read where the testbed has its audit log: requests by user, verb, resource and code since a mark. */
export interface ClusterAudit {
  /** Current end of the log; pass it as `since`. Call `sync()` first. */
  mark(): number;
  entries(filter?: AuditFilter): AuditEntry[];
  /** Requests counted by "verb resource" (e.g. `{ "list nodes": 1, "patch nodes": 2 }`). */
  countByVerb(filter?: AuditFilter): Record<string, number>;
  /** Resolves once every request answered before the call is in the log. */
  sync(timeoutMs?: number): Promise<void>;
}

/** A cluster started for one test file (the sim project starts one per file, in the file's worker). */
export interface FileCluster {
  info: TestbedInfo;
  audit(): ClusterAudit;
}

let fileCluster: FileCluster | undefined;
let claimed: TestbedInfo | undefined;

/** Called by a per-file setup (test/setup/sim-file.ts) before the test file is collected. */
export function useFileCluster(cluster: FileCluster): void {
  fileCluster = cluster;
}

/** Called by test/setup/testbed-claim.ts with the testbed (or e2e cluster) this file holds for itself. */
export function useClaimedTestbed(info: TestbedInfo): void {
  claimed = info;
}

/**
 * The cluster this test file runs on (the name is historical: on the sim project it is the sim's info, on the e2e
 * project the one cluster of KMAINT_E2E_KUBECONFIG, a one-element `testbeds` list).
 */
export function testbed(): TestbedInfo {
  if (fileCluster) return fileCluster.info;
  const info = claimed;
  if (!info) throw new Error('no cluster for this test file: run it in the testbed, sim or e2e vitest project (see vitest.config.ts)');
  return info;
}

/** Which cluster this test file runs on. */
export function clusterKind(): TestClusterKind {
  return testbed().cluster;
}

export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testbed().kubeconfigPath);
  return sharingConnections(kc);
}

/** A KubeConfig that authenticates to the testbed as `user` with a bearer `token` (a ServiceAccount's, from TokenRequest). */
export function tokenKubeConfig(token: string, user: string): KubeConfig {
  const tb = testbed();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'testbed', server: tb.server, caFile: tb.caFile, skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: 'testbed', user }],
    currentContext: user,
  });
  return sharingConnections(kc);
}

export function kmaintKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testbed().kmaintKubeconfigPath);
  return sharingConnections(kc);
}

export function auditLog(): ClusterAudit {
  if (fileCluster) return fileCluster.audit();
  const tb = testbed();
  if (!tb.auditPath) throw new Error(`the ${tb.cluster} cluster offers no API server audit log: declare the test with testbedOnlyTests() (test/support/testbed-only.ts)`);
  const token = /token: (\S+)/.exec(readFileSync(tb.kubeconfigPath, 'utf8'))?.[1] ?? '';
  return new AuditLog(tb.auditPath, { server: tb.server, caFile: tb.caFile, token });
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the cluster's kubectl with the admin kubeconfig; never throws on a non-zero exit. The discovery cache lives in
 * the run's directory: both clusters listen on 127.0.0.1 and a port reused by the other would find stale entries.
 * `onStderr` sees kubectl's stderr as it comes, for a test that acts on what a running command has said.
 */
export async function kubectl(args: string[], opts: { input?: string; timeoutMs?: number; onStderr?: (chunk: string) => void } = {}): Promise<KubectlResult> {
  const tb = testbed();
  const child = run(tb.kubectl, ['--kubeconfig', tb.kubeconfigPath, '--cache-dir', join(tb.dir, 'kubectl-cache'), ...args], { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 });
  if (opts.input !== undefined) {
    child.child.stdin?.end(opts.input);
  }
  const { onStderr } = opts;
  if (onStderr) child.child.stderr?.on('data', (chunk: Buffer | string) => onStderr(String(chunk)));
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Polls `fn` until it returns a value other than undefined, or fails with `what`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Makes one Node's simulated kubelet report Ready=False (heartbeats go on, so the Node stays NotReady rather than
 * Unknown), or Ready again. Only where the cluster offers the kubelet's control handle (the testbed).
 */
export async function setKubeletNodeReady(node: string, ready: boolean): Promise<void> {
  const url = testbed().kubeletControl;
  if (!url) throw new Error(`the ${clusterKind()} cluster offers no simulated-kubelet control handle`);
  await setKubeletNodeReadyAt(url, node, ready, { stopHeartbeats: false, ...(ready ? {} : { message: 'test: kubelet reports NotReady' }) });
}

/**
 * Holds one Node's periodic status posts (its Lease is still renewed, so it stays Ready), or lets them go: a test that
 * counts kmaint's requests holds them, so no heartbeat races a write preconditioned on the Node's resourceVersion.
 * Only where the kubelet's control handle is offered.
 */
export async function holdKubeletStatusPosts(node: string, held: boolean): Promise<void> {
  const url = testbed().kubeletControl;
  if (!url) throw new Error(`the ${clusterKind()} cluster offers no simulated-kubelet control handle`);
  await holdKubeletStatusPostsAt(url, node, held);
}

/**
 * Makes one Node's simulated kubelet play a dead machine: Ready=False, then no heartbeats, and its deleted pods stay
 * Terminating; `setKubeletNodeReady(node, true)` brings it back. Only where the kubelet's control handle is offered.
 */
export async function killKubeletNode(node: string): Promise<void> {
  const url = testbed().kubeletControl;
  if (!url) throw new Error(`the ${clusterKind()} cluster offers no simulated-kubelet control handle`);
  await setKubeletNodeReadyAt(url, node, false, { stopHeartbeats: true, freezePods: true, message: 'test: the machine is off' });
}
