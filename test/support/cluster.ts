// Test-side helpers for talking to the shared testbed as a real client would: kubectl, client-node, the audit log.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { AuditLog } from '../../testbed/audit.ts';
import type { TestbedInfo } from './testbed-info.ts';

const run = promisify(execFile);

export function testbed(): TestbedInfo {
  return inject('testbed');
}

export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testbed().kubeconfigPath);
  return kc;
}

export function kmaintKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testbed().kmaintKubeconfigPath);
  return kc;
}

export function auditLog(): AuditLog {
  const tb = testbed();
  const token = /token: (\S+)/.exec(readFileSync(tb.kubeconfigPath, 'utf8'))?.[1] ?? '';
  return new AuditLog(tb.auditPath, { server: tb.server, caFile: tb.caFile, token });
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the testbed's kubectl with the admin kubeconfig; never throws on a non-zero exit. */
export async function kubectl(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
  const tb = testbed();
  const child = run(tb.kubectl, ['--kubeconfig', tb.kubeconfigPath, ...args], { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 });
  if (opts.input !== undefined) {
    child.child.stdin?.end(opts.input);
  }
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
