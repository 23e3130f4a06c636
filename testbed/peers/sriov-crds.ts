// The SR-IOV network operator's CRDs for the testbed (issue 22): SriovNetworkNodeState, SriovNetworkPoolConfig and
// SriovNetworkNodePolicy of the pinned release, taken from its Go module through the module proxy (GOPROXY from the
// environment) and cached in ~/.cache/kmaint-testbed/peers/. Nothing of the module enters this repository. The
// release has no external-drainer code (interop sheet §1.7): tests play the config daemon's part with kubectl.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const SRIOV_MODULE = 'github.com/k8snetworkplumbingwg/sriov-network-operator';
/** The newest tag the module proxy serves (v1.6.0, 2025-08-05); the list endpoint is refused, so the pin is exact. */
export const SRIOV_VERSION = 'v1.6.0';
const CRDS = ['sriovnetworknodestates', 'sriovnetworkpoolconfigs', 'sriovnetworknodepolicies'].map((plural) => `sriovnetwork.openshift.io_${plural}.yaml`);

export function sriovCrdDir(version: string = SRIOV_VERSION): string {
  return join(homedir(), '.cache', 'kmaint-testbed', 'peers', 'sriov-network-operator', version, 'crds');
}

/** The directory holding the three CRDs, fetched on first use; or why they cannot be had (one sentence). */
export function ensureSriovCrds(): { dir: string } | { problem: string } {
  const dir = sriovCrdDir();
  if (existsSync(dir) && CRDS.every((f) => readdirSync(dir).includes(f))) return { dir };
  // Outside any module, so the repository's own go.mod files play no part.
  const out = spawnSync('go', ['mod', 'download', '-json', `${SRIOV_MODULE}@${SRIOV_VERSION}`], { cwd: tmpdir(), encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  if (out.error !== undefined) return { problem: `cannot run go to fetch ${SRIOV_MODULE}@${SRIOV_VERSION} (${out.error.message})` };
  const moduleDir = moduleDirOf(out.stdout);
  if (out.status !== 0 || moduleDir === '') return { problem: `go mod download ${SRIOV_MODULE}@${SRIOV_VERSION} failed: ${(out.stderr || out.stdout).trim().split('\n').slice(-2).join(' ')}` };
  mkdirSync(dir, { recursive: true });
  for (const file of CRDS) copyFileSync(join(moduleDir, 'config', 'crd', 'bases', file), join(dir, file));
  return { dir };
}

/** `Dir` of `go mod download -json`'s answer; '' when it is not one. */
function moduleDirOf(json: string): string {
  try {
    return (JSON.parse(json) as { Dir?: string }).Dir ?? '';
  } catch {
    return '';
  }
}
