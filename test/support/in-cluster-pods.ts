// For the tests where kmaint runs on the testbed only as its installed CronJobs (Helm, kustomize): the seed request,
// the CronJobs' Jobs and pods, what their host processes logged, and which pods' tokens the audit log saw.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { hostProcessUnsupported } from '../../sim/kubelet/index.ts';
import { adminKubeConfig, auditLog, kubectl, testbed, waitFor } from './cluster.ts';
import { admin, createNM, deleteNM, getNM, phaseOf } from './kmaint.ts';

export const PASS_FUNCTIONS = ['scheduler', 'drainer', 'cleanup', 'reaper'] as const;
export const SEED = { namespace: 'default', name: 'my-maintenance-operation' } as const;

/** The upstream operator's example request (README "Quick tour"), on the node the test picks. */
export async function createSeedRequest(node: string): Promise<void> {
  await createNM(SEED.namespace, SEED.name, {
    requestorID: 'some.one.acme.com',
    nodeName: node,
    cordon: true,
    waitForPodCompletion: { podSelector: 'app=important', timeoutSeconds: 0 },
    drainSpec: { force: true, podSelector: '', timeoutSeconds: 0, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] },
  });
}

/** Why these tests cannot run here (said on stderr, counted as skipped), or undefined. */
export function inClusterPodsUnsupported(): string | undefined {
  return hostProcessUnsupported();
}

export async function cronJobJobs(namespace: string): Promise<V1Job[]> {
  return (await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items;
}

export async function cronJobPods(namespace: string): Promise<V1Pod[]> {
  return (await admin().core.listNamespacedPod({ namespace, labelSelector: 'batch.kubernetes.io/job-name' })).items;
}

/** `Complete` or `Failed`, the condition the cronjob controller reads, or '' while the Job runs. */
export function jobOutcome(job: V1Job): string {
  return job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type ?? '';
}

/** What the simulated kubelet kept of a pod's container output (DIR/pods/<ns>_<name>_<uid>/<container>/0.log). */
export function podLog(pod: V1Pod, container = 'kmaint'): string {
  const { namespace, name, uid } = pod.metadata ?? {};
  const path = join(testbed().dir, 'pods', `${namespace}_${name}_${uid}`, container, '0.log');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

interface RawAudit {
  stage?: string;
  verb?: string;
  user?: { username?: string; extra?: Record<string, string[]> };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

export interface TokenRequestSeen {
  /** "verb resource[/subresource]" of each request the user made. */
  requests: Set<string>;
  /** The pods whose bound tokens made them (the token's pod-name claim), sorted. */
  pods: string[];
  /** Requests of the user without a pod-bound token (another credential). */
  unbound: number;
}

/** Every request `user` made after byte `since` of the audit log, with the pods their tokens were bound to. */
export function requestsBy(user: string, since: number): TokenRequestSeen {
  const text = readFileSync(testbed().auditPath).subarray(since).toString('utf8');
  const requests = new Set<string>();
  const pods = new Set<string>();
  let unbound = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: RawAudit;
    try {
      e = JSON.parse(line) as RawAudit;
    } catch {
      continue;
    }
    if (e.stage !== 'ResponseComplete' || e.user?.username !== user) continue;
    const ref = e.objectRef ?? {};
    requests.add(`${e.verb ?? ''} ${ref.resource ?? ''}${ref.subresource ? `/${ref.subresource}` : ''}`);
    const pod = e.user.extra?.['authentication.kubernetes.io/pod-name']?.[0];
    if (pod) pods.add(pod);
    else unbound++;
  }
  return { requests, pods: [...pods].sort(), unbound };
}

/**
 * Resumes the suspended CronJobs with this minute's tick due: lastScheduleTime two minutes back leaves it unmet, and
 * inside startingDeadlineSeconds (50) the cronjob controller starts it at once instead of at the next minute (past
 * second 50 the next minute's tick comes). Saves the wait for the first tick, nothing else: every pass still starts as a
 * Job of its CronJob.
 */
export async function resumeWithTickDue(namespace: string, cronJobs: readonly string[]): Promise<void> {
  const lastScheduleTime = rfc3339Seconds(Math.floor(Date.now() / 60_000) * 60_000 - 120_000);
  for (const name of cronJobs) {
    const patched = await kubectl(['patch', 'cronjob', name, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { lastScheduleTime } })]);
    expect([patched.code, patched.stderr]).toEqual([0, '']);
  }
  const resumed = await kubectl(['patch', 'cronjob', '-n', namespace, ...cronJobs, '--type=merge', '-p', '{"spec":{"suspend":false}}']);
  expect([resumed.code, resumed.stderr]).toEqual([0, '']);
}

export interface InCluster {
  /** Where the CronJobs run. */
  namespace: string;
  /** `<prefix>-<function>` are the CronJobs. */
  cronJobPrefix: string;
  /** The ServiceAccount's user name in the audit log. */
  user: string;
  serviceAccount: string;
}

/**
 * The seed request on `node`, Ready and then released after its deletion, with the CronJobs (suspended until now,
 * resumed one by one as their passes get work) the only kmaint there is; then what the run left: Jobs complete, pods Succeeded with exit 0 and their logs, the
 * ServiceAccount's requests all made with tokens bound to the CronJobs' pods, tokens the simulated kubelet asked for.
 */
export async function maintainSeedByCronJobs(at: InCluster, node: string): Promise<void> {
  // The CronJobs' first passes create their pass Leases (kmaint-<function>), asserted below: a file that ran passes in
  // the same namespace earlier on this testbed (infra/base's `kmaint`) left them, and the pass would only update them.
  for (const fn of PASS_FUNCTIONS) expect((await kubectl(['delete', 'lease', '-n', at.namespace, `kmaint-${fn}`, '--ignore-not-found'])).code).toBe(0);
  await auditLog().sync();
  const mark = auditLog().mark();
  await createSeedRequest(node);
  // Each pass's CronJob is resumed, with this minute's tick due, once its pass has work: the scheduler (and the reaper)
  // first, the drainer when the request is admitted, cleanup when it is deleted. Resumed together, a pass whose run
  // went idle before the pass before it had acted waited for the next minute's tick (the drainer's before the
  // admission; cleanup's, whose Job for this minute already ran, after the deletion): 50–70 s per wait. The passes still
  // run only as Jobs of their CronJobs; the ones resumed keep running every minute to the end.
  const cronJob = (fn: (typeof PASS_FUNCTIONS)[number]): string => `${at.cronJobPrefix}-${fn}`;
  await resumeWithTickDue(at.namespace, [cronJob('scheduler'), cronJob('reaper')]);
  const resumedAt = Date.now();
  const admitted = await waitFor(`${SEED.namespace}/${SEED.name} admitted by the scheduler CronJob`, async () => {
    const phase = phaseOf(await getNM(SEED.namespace, SEED.name));
    return phase !== undefined && phase !== '' && phase !== 'Pending' ? phase : undefined;
  }, 150_000, 1000);
  expect(admitted).toBe('Scheduled');
  const admittedAt = Date.now();

  await resumeWithTickDue(at.namespace, [cronJob('drainer')]);
  const ready = await waitFor(`${SEED.namespace}/${SEED.name} Ready by the drainer CronJob`, async () => {
    const nm = await getNM(SEED.namespace, SEED.name);
    return phaseOf(nm) === 'Ready' ? nm : undefined;
  }, 150_000, 1000);
  expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  expect(await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'])).toMatchObject({ stdout: 'true' });

  const readyAt = Date.now();
  await deleteNM(SEED.namespace, SEED.name);
  await resumeWithTickDue(at.namespace, [cronJob('cleanup')]);
  await waitFor(`${SEED.namespace}/${SEED.name} released by the cleanup CronJob`, async () => ((await getNM(SEED.namespace, SEED.name)) === undefined ? true : undefined), 150_000, 1000);
  const seconds = (from: number, to: number): string => ((to - from) / 1000).toFixed(1);
  process.stderr.write(`[in-cluster ${at.cronJobPrefix}] admitted ${seconds(resumedAt, admittedAt)} s after the scheduler's CronJob resumed; Ready ${seconds(admittedAt, readyAt)} s after the drainer's; released ${seconds(readyAt, Date.now())} s after the deletion\n`);
  expect(await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'])).toMatchObject({ stdout: '' });

  // Every finished Job succeeded: the pods' exit codes reached the Job controller.
  const component = (j: V1Job): string => j.spec?.template.metadata?.labels?.['app.kubernetes.io/component'] ?? '';
  const finished = await waitFor('a finished Job of each CronJob', async () => {
    const jobs = (await cronJobJobs(at.namespace)).filter((j) => jobOutcome(j) !== '');
    const functions = new Set(jobs.map(component));
    return PASS_FUNCTIONS.every((fn) => functions.has(fn)) ? jobs : undefined;
  }, 90_000, 1000);
  expect([...new Set(finished.map(jobOutcome))]).toEqual(['Complete']);
  const pods = (await cronJobPods(at.namespace)).filter((p) => p.status?.phase === 'Succeeded');
  expect(pods.length).toBeGreaterThan(0);
  for (const pod of pods) {
    const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
    expect([terminated?.exitCode, terminated?.reason]).toEqual([0, 'Completed']);
    // kmaint run's last line (JSON lines: the manifests run it with -o json), kept by the simulated kubelet per pod.
    expect(podLog(pod)).toMatch(/\{"run":\{"rounds":\d+,"stopped":"idle",/);
  }

  // The passes' requests came with TokenRequest tokens bound to the CronJobs' pods, obtained by the kubelet.
  await auditLog().sync();
  const seen = requestsBy(at.user, mark);
  expect([...seen.requests].filter((r) => ['patch nodes', 'create leases', 'list nodemaintenances'].includes(r)).sort()).toEqual(['create leases', 'list nodemaintenances', 'patch nodes']);
  expect(seen.unbound).toBe(0);
  expect(seen.pods.length).toBeGreaterThan(0);
  for (const pod of seen.pods) expect(pod).toMatch(new RegExp(`^${at.cronJobPrefix}-(scheduler|drainer|cleanup|reaper)-\\d+-[a-z0-9]{5}$`));
  const tokens = auditLog().entries({ since: mark, user: 'kmaint-sim-kubelet', resource: 'serviceaccounts/token' });
  expect(tokens.length).toBeGreaterThan(0);
  expect([...new Set(tokens.map((t) => [t.verb, t.namespace, t.name, t.code].join(' ')))]).toEqual([`create ${at.namespace} ${at.serviceAccount} 201`]);
}
