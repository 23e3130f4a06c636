// Where the testbed's pinned versions live (testbed/go.mod, testbed/etcd/go.mod) and where binaries are cached.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TESTBED_DIR = dirname(fileURLToPath(import.meta.url));

export interface PinnedVersions {
  kubernetes: string;
  etcd: string;
}

function requiredVersion(goModPath: string, module: string): string {
  const text = readFileSync(goModPath, 'utf8');
  const line = new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[.]/g, '\\.')}\\s+(v\\S+)`, 'm').exec(text);
  if (!line?.[1]) throw new Error(`no "require ${module}" line in ${goModPath}`);
  return line[1];
}

export function pinnedVersions(): PinnedVersions {
  return {
    kubernetes: requiredVersion(join(TESTBED_DIR, 'go.mod'), 'k8s.io/kubernetes'),
    etcd: requiredVersion(join(TESTBED_DIR, 'etcd', 'go.mod'), 'go.etcd.io/etcd/server/v3'),
  };
}

/** `KMAINT_TESTBED_BIN`, else `~/.cache/kmaint-testbed/<kubernetes version>/`. */
export function binDir(versions: PinnedVersions = pinnedVersions()): string {
  const override = process.env['KMAINT_TESTBED_BIN'];
  if (override) return override;
  return join(homedir(), '.cache', 'kmaint-testbed', versions.kubernetes);
}

export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'] as const;
export type Component = (typeof COMPONENTS)[number];

export function binaryPath(component: Component, dir: string = binDir()): string {
  return join(dir, component);
}
