// kmaint installed with Helm finishes a maintenance by itself on the testbed (issue 23 point 3): the simulated kubelet
// runs the chart's CronJob pods as host processes of the bundled CLI, each with its ServiceAccount's pod-bound token at
// the in-cluster path; the test only installs, creates the seed request and deletes it. No kmaint process is started by
// the test. The chart's default schedule (every minute) is kept; a run needs about three ticks (admit, drain, cleanup).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { auditLog, kubectl, testbed, waitFor } from './support/cluster.ts';
import { cronJobJobs, cronJobPods, createSeedRequest, inClusterPodsUnsupported, jobOutcome, podLog, requestsBy } from './support/in-cluster-pods.ts';
import { deleteNM, generalNodes, getNM, phaseOf } from './support/kmaint.ts';

const NS = 'kmaint-pods-helm';
const RELEASE = 'kmp';
const NAME = 'kmp-kmaint';
const SA_USER = `system:serviceaccount:${NS}:${NAME}`;
const SEED_NS = 'default';
const SEED = 'my-maintenance-operation';

function helm(args: string[]): Promise<HelmResult> {
  return runHelm(['--kubeconfig', testbed().kubeconfigPath, ...args], { home: join(testbed().dir, 'helm-home') });
}

const unsupported = !helmIsCurrent() ? `the test needs helm (${helmBinary()}): npm run testbed:build builds it` : inClusterPodsUnsupported();
if (unsupported !== undefined) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/helm-pods] NOT RUN: ${unsupported}; counted as skipped\n`);
}

describe.skipIf(unsupported !== undefined)('kmaint installed with Helm runs a maintenance by itself on the testbed (release kmp in namespace kmaint-pods-helm)', () => {
  let node = '';
  let mark = 0;

  beforeAll(async () => {
    node = (await generalNodes())[1] ?? '';
    await auditLog().sync();
    mark = auditLog().mark();
  });

  afterAll(async () => {
    await deleteNM(SEED_NS, SEED);
    await waitFor(`${SEED_NS}/${SEED} gone`, async () => ((await getNM(SEED_NS, SEED)) === undefined ? true : undefined), 150_000, 1000).catch(() => undefined);
    await helm(['uninstall', RELEASE, '-n', NS, '--ignore-not-found', '--wait']);
    await kubectl(['delete', 'jobs', '-n', NS, '--all', '--ignore-not-found', '--cascade=foreground', '--wait=true']);
    await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true']);
  });

  it(
    "helm install, then the seed request reaches Ready and is released after its deletion, driven only by the chart's CronJobs; the audit log shows the pods' tokens",
    async () => {
      const installed = await helm(['install', RELEASE, 'charts/kmaint', '-n', NS, '--create-namespace']);
      expect([installed.code, installed.stderr]).toEqual([0, '']);
      await createSeedRequest(SEED_NS, node);

      const ready = await waitFor(
        `${SEED_NS}/${SEED} Ready by the CronJobs`,
        async () => {
          const nm = await getNM(SEED_NS, SEED);
          return phaseOf(nm) === 'Ready' ? nm : undefined;
        },
        240_000,
        1000,
      );
      expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'])).toMatchObject({ stdout: 'true' });

      await deleteNM(SEED_NS, SEED);
      await waitFor(`${SEED_NS}/${SEED} released by the cleanup CronJob`, async () => ((await getNM(SEED_NS, SEED)) === undefined ? true : undefined), 150_000, 1000);
      expect(await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'])).toMatchObject({ stdout: '' });

      // Every Job the CronJobs started and that has finished succeeded: the pods' exit codes reached the Job controller.
      const finished = await waitFor('a finished Job of each CronJob', async () => {
        const jobs = (await cronJobJobs(NS)).filter((j) => jobOutcome(j) !== '');
        const functions = new Set(jobs.map((j) => j.metadata?.labels?.['app.kubernetes.io/component'] ?? j.spec?.template.metadata?.labels?.['app.kubernetes.io/component']));
        return ['scheduler', 'drainer', 'cleanup', 'reaper'].every((fn) => functions.has(fn)) ? jobs : undefined;
      }, 90_000, 1000);
      expect(new Set(finished.map(jobOutcome))).toEqual(new Set(['Complete']));
      const pods = (await cronJobPods(NS)).filter((p) => p.status?.phase === 'Succeeded');
      expect(pods.length).toBeGreaterThan(0);
      for (const pod of pods) {
        const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
        expect([terminated?.exitCode, terminated?.reason]).toEqual([0, 'Completed']);
        // The kmaint run's own last line (JSON: no TTY), kept by the simulated kubelet per pod.
        expect(podLog(pod)).toMatch(/\{"run":\{"rounds":\d+,"stopped":"idle",/);
      }

      // The passes' requests came with TokenRequest tokens bound to the CronJobs' pods, obtained by the kubelet.
      await auditLog().sync();
      const seen = requestsBy(SA_USER, mark);
      expect([...seen.requests].filter((r) => ['patch nodes', 'create leases', 'list nodemaintenances'].includes(r)).sort()).toEqual(['create leases', 'list nodemaintenances', 'patch nodes']);
      expect(seen.unbound).toBe(0);
      expect(seen.pods.length).toBeGreaterThan(0);
      for (const pod of seen.pods) expect(pod).toMatch(new RegExp(`^${NAME}-(scheduler|drainer|cleanup|reaper)-\\d+-[a-z0-9]{5}$`));
      const tokens = auditLog().entries({ since: mark, user: 'kmaint-sim-kubelet', resource: 'serviceaccounts/token' });
      expect(tokens.length).toBeGreaterThan(0);
      expect(new Set(tokens.map((t) => [t.verb, t.namespace, t.name, t.code].join(' ')))).toEqual(new Set([`create ${NS} ${NAME} 201`]));
    },
    480_000,
  );
});
