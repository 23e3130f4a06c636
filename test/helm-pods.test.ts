// kmaint installed with Helm finishes a maintenance by itself on the testbed (issue 23 point 3): the simulated kubelet
// runs the chart's CronJob pods as host processes of the bundled CLI, each with its ServiceAccount's pod-bound token at
// the in-cluster path; the test installs, creates the seed request and deletes it, and starts no kmaint process. The
// chart's schedule (every minute) is kept; the CronJobs are installed suspended and resumed with the current minute's
// tick due, which saves only the wait for the first tick. A run takes three ticks (admit, drain, cleanup).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { SEED, inClusterPodsUnsupported, maintainSeedByCronJobs } from './support/in-cluster-pods.ts';
import { deleteNM, generalNodes, getNM } from './support/kmaint.ts';

const NS = 'kmaint-pods-helm';
const RELEASE = 'kmp';
const NAME = 'kmp-kmaint';

function helm(args: string[]): Promise<HelmResult> {
  return runHelm(['--kubeconfig', testbed().kubeconfigPath, ...args], { home: join(testbed().dir, 'helm-home') });
}

const unsupported = !helmIsCurrent() ? `the test needs helm (${helmBinary()}): npm run testbed:build builds it` : inClusterPodsUnsupported();
if (unsupported !== undefined) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/helm-pods] NOT RUN: ${unsupported}; counted as skipped\n`);
}

describe.skipIf(unsupported !== undefined)('kmaint installed with Helm runs a maintenance by itself on the testbed (release kmp in namespace kmaint-pods-helm)', () => {
  afterAll(async () => {
    await deleteNM(SEED.namespace, SEED.name);
    await waitFor(`${SEED.namespace}/${SEED.name} gone`, async () => ((await getNM(SEED.namespace, SEED.name)) === undefined ? true : undefined), 150_000, 1000).catch(() => undefined);
    await helm(['uninstall', RELEASE, '-n', NS, '--ignore-not-found', '--wait']);
    await kubectl(['delete', 'jobs', '-n', NS, '--all', '--ignore-not-found', '--cascade=foreground', '--wait=true']);
    await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true']);
  });

  it(
    "helm install, then the seed request reaches Ready and is released after its deletion, driven only by the chart's CronJobs run as host processes; the audit log shows their pods' tokens",
    async () => {
      const installed = await helm(['install', RELEASE, 'charts/kmaint', '-n', NS, '--create-namespace', '--set', 'cronJobs.suspend=true']);
      expect([installed.code, installed.stderr]).toEqual([0, '']);
      await maintainSeedByCronJobs({ namespace: NS, cronJobPrefix: NAME, user: `system:serviceaccount:${NS}:${NAME}`, serviceAccount: NAME }, (await generalNodes())[1] ?? '');
    },
    480_000,
  );
});
