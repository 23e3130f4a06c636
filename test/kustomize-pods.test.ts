// kmaint installed with the kustomize base (infra/base) finishes a maintenance by itself on the testbed (issue 23
// point 3): as test/helm-pods.test.ts, with the base's CronJobs in namespace kmaint run as host processes by the
// simulated kubelet. The global setup applied the base with its CronJobs suspended; the test applies it again as a user
// would, resumes them with the current minute's tick due, and suspends them again at the end, as it found them.
import { afterAll, describe, expect, it } from 'vitest';
import { KMAINT_CRONJOBS, KMAINT_SERVICE_ACCOUNT, KMAINT_SERVICE_ACCOUNT_USER, suspendCronJobs } from './setup/install-kmaint.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { SEED, cronJobJobs, cronJobPods, inClusterPodsUnsupported, jobOutcome, maintainSeedByCronJobs, podLog } from './support/in-cluster-pods.ts';
import { deleteNM, generalNodes, getNM } from './support/kmaint.ts';

const NS = KMAINT_SERVICE_ACCOUNT.namespace;

const unsupported = inClusterPodsUnsupported();
if (unsupported !== undefined) process.stderr.write(`[test/kustomize-pods] NOT RUN: ${unsupported}; counted as skipped\n`);

describe.skipIf(unsupported !== undefined)('kmaint installed with kustomize (infra/base) runs a maintenance by itself on the testbed', () => {
  afterAll(async () => {
    await suspendCronJobs(testbed(), true);
    await deleteNM(SEED.namespace, SEED.name);
    await waitFor(`${SEED.namespace}/${SEED.name} gone`, async () => ((await getNM(SEED.namespace, SEED.name)) === undefined ? true : undefined), 30_000, 1000).catch(() => undefined);
    // The Jobs and their pods too, before the next file starts (a pod left would look drained from its node).
    await kubectl(['delete', 'jobs', '-n', NS, '--all', '--ignore-not-found', '--cascade=foreground', '--wait=true']);
    await kubectl(['wait', '--for=delete', 'pods', '-n', NS, '-l', 'batch.kubernetes.io/job-name', '--timeout=60s']);
  });

  it(
    "kubectl apply -k infra/base, then the seed request reaches Ready and is released after its deletion, driven only by the base's CronJobs run as host processes; the audit log shows their pods' tokens",
    async () => {
      const applied = await kubectl(['apply', '-k', 'infra/base']);
      expect([applied.code, applied.stderr]).toEqual([0, '']);
      expect((await kubectl(['get', 'cronjob', '-n', NS, ...KMAINT_CRONJOBS, '-o', 'jsonpath={.items[*].spec.suspend}'])).stdout).toBe('true true true true');
      await maintainSeedByCronJobs({ namespace: NS, cronJobPrefix: 'kmaint', user: KMAINT_SERVICE_ACCOUNT_USER, serviceAccount: KMAINT_SERVICE_ACCOUNT.name }, (await generalNodes())[2] ?? '');
    },
    480_000,
  );

  it('a Job whose kmaint command fails: exit code 2 becomes the container\'s terminated state, pod Failed and Job Failed', async () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'kmaint-bad-function', namespace: NS },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            serviceAccountName: KMAINT_SERVICE_ACCOUNT.name,
            restartPolicy: 'Never',
            securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
            containers: [{ name: 'kmaint', image: 'kmaint:latest', command: ['kmaint', 'run', 'nope'] }],
          },
        },
      },
    };
    expect((await kubectl(['create', '-f', '-'], { input: JSON.stringify(job) })).code).toBe(0);
    const failed = await waitFor('Job kmaint-bad-function Failed', async () => (await cronJobJobs(NS)).find((j) => j.metadata?.name === 'kmaint-bad-function' && jobOutcome(j) === 'Failed'));
    expect(failed.status?.conditions?.find((c) => c.type === 'Failed')?.reason).toBe('BackoffLimitExceeded');
    const pod = (await cronJobPods(NS)).find((p) => p.metadata?.labels?.['batch.kubernetes.io/job-name'] === 'kmaint-bad-function');
    const terminated = pod?.status?.containerStatuses?.[0]?.state?.terminated;
    expect([pod?.status?.phase, terminated?.exitCode, terminated?.reason]).toEqual(['Failed', 2, 'Error']);
    expect(pod ? podLog(pod) : '').toBe('kmaint: unknown function "nope": expected one of scheduler, drainer, cleanup, reaper\n');
  });
});
