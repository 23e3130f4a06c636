// `kmaint snapshot`: the cluster as a what-if snapshot, JSON on stdout.
import { loadKubeConfig } from '../../shared/kube/index.ts';
import { readClusterSnapshot } from '../../sim/whatif/index.ts';
import type { WhatIfGlobals } from './globals.ts';

export async function snapshotCommand(flags: WhatIfGlobals): Promise<number> {
  const kubeConfig = loadKubeConfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  const snapshot = await readClusterSnapshot(kubeConfig, flags.namespace, new Date());
  process.stdout.write(`${JSON.stringify(snapshot)}\n`);
  return 0;
}
