// Vitest global setup: one testbed (real control plane + simulated kubelet, small profile) for the whole run,
// with kmaint installed from crds/ and infra/base; tests run kmaint as its ServiceAccount, not as an admin.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestbed } from '../../testbed/testbed.ts';
import { binaryPath } from '../../testbed/versions.ts';
import type { TestbedInfo } from '../support/testbed-info.ts';
import { KMAINT_SERVICE_ACCOUNT_USER, installKmaint, writeServiceAccountKubeconfig } from './install-kmaint.ts';
import { projectTiming } from './project-timing.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-testbed-'));
  const started = Date.now();
  let timing: () => string = () => '';
  const tb = await startTestbed({
    dir,
    profile: 'small',
    seed: 1,
    heartbeatIntervalMs: 5000,
    log: (line) => process.stderr.write(`[testbed] ${line}\n`),
  });
  try {
    const target = { kubectl: binaryPath('kubectl'), kubeconfigPath: tb.kubeconfigPath, server: tb.controlPlane.server, caFile: tb.controlPlane.caFile, dir };
    await installKmaint(target);
    const kmaintKubeconfigPath = await writeServiceAccountKubeconfig(target);
    process.stderr.write(`[testbed] up with kmaint installed in ${((Date.now() - started) / 1000).toFixed(1)} s at ${tb.controlPlane.server} (${dir})\n`);
    const info: TestbedInfo = {
      cluster: 'testbed',
      dir,
      server: tb.controlPlane.server,
      caFile: tb.controlPlane.caFile,
      kubeconfigPath: tb.kubeconfigPath,
      kmaintKubeconfigPath,
      kmaintUser: KMAINT_SERVICE_ACCOUNT_USER,
      auditPath: tb.audit.path,
      kubectl: target.kubectl,
      nodes: tb.cluster.nodes.map((n) => n.metadata?.name ?? ''),
      kubeletControl: tb.kubeletControlUrl,
    };
    project.provide('testbed', info);
    timing = projectTiming(project, dir);
  } catch (err) {
    await tb.stop();
    throw err;
  }
  return async () => {
    const files = timing();
    await tb.stop();
    process.stderr.write(`[testbed] ${files}; testbed up ${((Date.now() - started) / 1000).toFixed(1)} s in all\n`);
  };
}
