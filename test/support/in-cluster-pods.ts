// For the tests where kmaint runs on the testbed only as its installed CronJobs (Helm, kustomize): the seed request,
// the CronJobs' Jobs and pods, what their host processes logged, and which pods' tokens the audit log saw.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { hostProcessUnsupported } from '../../sim/kubelet/index.ts';
import { adminKubeConfig, testbed } from './cluster.ts';
import { admin, createNM } from './kmaint.ts';

/** The upstream operator's example request (README "Quick tour"), on the node the test picks. */
export async function createSeedRequest(namespace: string, node: string): Promise<void> {
  await createNM(namespace, 'my-maintenance-operation', {
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
