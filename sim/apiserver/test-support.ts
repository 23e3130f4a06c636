// Test helpers for sim/apiserver: a server per test file, raw HTTP calls, and the testbed's kubectl.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { binaryPath } from '../../testbed/versions.ts';
import type { Json, JsonObject } from './json-value.ts';
import type { SimApiServer } from './server.ts';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CRD_DIR = join(REPO, 'crds');

export interface HttpResult {
  status: number;
  body: JsonObject;
  text: string;
  headers: Headers;
}

/** One request to the simulated server; JSON bodies are sent as given (objects are serialised). */
export async function call(server: SimApiServer, method: string, path: string, body?: Json | string, contentType = 'application/json', headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': contentType } : {}), authorization: 'Bearer test', ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: JsonObject = {};
  try {
    parsed = JSON.parse(text) as JsonObject;
  } catch {
    // not JSON (health checks)
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** A value at a dotted path of a parsed response, for compact assertions. */
export function at(obj: Json | undefined, path: string): Json | undefined {
  let cur: Json | undefined = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(p)] : cur[p];
  }
  return cur;
}

const run = promisify(execFile);

/** The kubectl the testbed builds (same version as its apiserver), else the first kubectl on PATH, else undefined. */
export function kubectlBinary(): string | undefined {
  const built = binaryPath('kubectl');
  if (existsSync(built)) return built;
  return (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, 'kubectl'))
    .find((p) => existsSync(p));
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against `server` with a fresh discovery cache; never throws on a non-zero exit. */
export async function kubectl(server: SimApiServer, args: string[], input?: string): Promise<KubectlResult> {
  const bin = kubectlBinary();
  if (!bin) throw new Error('no kubectl binary (npm run testbed:build builds one)');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-sim-kubectl-'));
  const child = run(bin, ['--kubeconfig', server.kubeconfigPath(dir), '--cache-dir', join(dir, 'cache'), ...args], { timeout: 60_000 });
  if (input !== undefined) child.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function aPod(name: string, extra: { namespace?: string; node?: string; labels?: Record<string, string>; grace?: number; finalizers?: string[] } = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: extra.namespace ?? 'default', labels: extra.labels ?? {}, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
    spec: { ...(extra.node ? { nodeName: extra.node } : {}), terminationGracePeriodSeconds: extra.grace ?? 30, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

export function aNodeMaintenance(name: string, spec: JsonObject, namespace = 'default'): JsonObject {
  return { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', metadata: { name, namespace }, spec };
}

export const NM_PATH = '/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances';
