// Vitest global setup: one testbed (real control plane + simulated kubelet, small profile) for the whole run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestbed } from '../../testbed/testbed.ts';
import { binaryPath } from '../../testbed/versions.ts';
import type { TestbedInfo } from '../support/testbed-info.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-testbed-'));
  const started = Date.now();
  const tb = await startTestbed({
    dir,
    profile: 'small',
    seed: 1,
    heartbeatIntervalMs: 5000,
    log: (line) => process.stderr.write(`[testbed] ${line}\n`),
  });
  process.stderr.write(`[testbed] up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${tb.controlPlane.server} (${dir})\n`);
  const info: TestbedInfo = {
    dir,
    server: tb.controlPlane.server,
    caFile: tb.controlPlane.caFile,
    kubeconfigPath: tb.kubeconfigPath,
    kmaintKubeconfigPath: tb.controlPlane.kubeconfigFor('kmaint'),
    auditPath: tb.audit.path,
    kubectl: binaryPath('kubectl'),
    nodes: tb.cluster.nodes.map((n) => n.metadata?.name ?? ''),
  };
  project.provide('testbed', info);
  return async () => {
    await tb.stop();
  };
}
