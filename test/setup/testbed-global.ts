// Vitest global setup: the testbed project's control planes (real control plane + simulated kubelet, small profile),
// `KMAINT_TESTBEDS` of them (default 3), each with kmaint installed from crds/ and infra/base; tests run kmaint as its
// ServiceAccount, not as an admin. Each test file claims one for its whole run (test/support/testbed-claim.ts).
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestbed, type Testbed } from '../../testbed/testbed.ts';
import { binaryPath } from '../../testbed/versions.ts';
import { controlPlaneProcs, testbedCount, type TestbedInfo } from '../support/testbed-info.ts';
import { KMAINT_SERVICE_ACCOUNT_USER, installKmaint, writeServiceAccountKubeconfig } from './install-kmaint.ts';
import { provideCliBundle } from './cli-bundle.ts';
import { projectTiming } from './project-timing.ts';

/** Starts one testbed and installs kmaint on it; stops it again if the install fails. */
async function startOne(index: number, count: number, kmaintBundle: Promise<string>): Promise<{ tb: Testbed; info: TestbedInfo }> {
  const tag = count === 1 ? '[testbed]' : `[testbed ${index + 1}]`;
  const log = (line: string): boolean => process.stderr.write(`${tag} ${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-testbed-'));
  const started = Date.now();
  // The simulated kubelet runs kmaint's own pods (the CronJobs') as host processes of the tests' bundle.
  // Each control plane's Go processes run on its share of the cores (controlPlaneProcs).
  const goMaxProcs = controlPlaneProcs(count, availableParallelism());
  const tb = await startTestbed({ dir, profile: 'small', seed: 1, heartbeatIntervalMs: 5000, log, kmaintBundle, goMaxProcs });
  try {
    const target = { kubectl: binaryPath('kubectl'), kubeconfigPath: tb.kubeconfigPath, server: tb.controlPlane.server, caFile: tb.controlPlane.caFile, dir };
    await installKmaint(target);
    const kmaintKubeconfigPath = await writeServiceAccountKubeconfig(target);
    log(`up with kmaint installed in ${((Date.now() - started) / 1000).toFixed(1)} s at ${tb.controlPlane.server} (${dir})`);
    return {
      tb,
      info: {
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
      },
    };
  } catch (err) {
    await tb.stop();
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const count = testbedCount();
  const started = Date.now();
  const bundle = provideCliBundle(project);
  const [results] = await Promise.all([Promise.allSettled(Array.from({ length: count }, (_, i) => startOne(i, count, bundle))), bundle]);
  const up = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length > 0) {
    await Promise.all(up.map((u) => u.tb.stop()));
    throw failed[0];
  }
  project.provide(
    'testbeds',
    up.map((u) => u.info),
  );
  const timing = projectTiming(project, up[0]?.info.dir ?? mkdtempSync(join(tmpdir(), 'kmaint-testbed-')));
  return async () => {
    const files = timing();
    await Promise.all(up.map((u) => u.tb.stop()));
    process.stderr.write(`[testbed] ${files}; ${count === 1 ? 'testbed' : `${count} testbeds`} up ${((Date.now() - started) / 1000).toFixed(1)} s in all\n`);
  };
}
