// One round's view of the cluster for the simulated controllers: a paged LIST of each kind they read.
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  PolicyV1Api,
  type KubeConfig,
  type V1DaemonSet,
  type V1Deployment,
  type V1Job,
  type V1Node,
  type V1Pod,
  type V1PodDisruptionBudget,
  type V1ReplicaSet,
  type V1StatefulSet,
} from '@kubernetes/client-node';

export interface ClusterSnapshot {
  nodes: V1Node[];
  pods: V1Pod[];
  deployments: V1Deployment[];
  replicaSets: V1ReplicaSet[];
  statefulSets: V1StatefulSet[];
  daemonSets: V1DaemonSet[];
  jobs: V1Job[];
  pdbs: V1PodDisruptionBudget[];
}

export type SnapshotPart = keyof ClusterSnapshot;

interface Page<T> {
  items: T[];
  metadata?: { _continue?: string };
}

async function listAll<T>(page: (cont: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cont: string | undefined;
  do {
    const res = await page(cont);
    items.push(...res.items);
    cont = res.metadata?._continue || undefined;
  } while (cont);
  return items;
}

export class SnapshotReader {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly batch: BatchV1Api;
  private readonly policy: PolicyV1Api;

  constructor(kubeConfig: KubeConfig, private readonly pageSize = 500) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.batch = kubeConfig.makeApiClient(BatchV1Api);
    this.policy = kubeConfig.makeApiClient(PolicyV1Api);
  }

  /** LISTs only the parts asked for (the others come back empty), concurrently. */
  async read(parts: ReadonlySet<SnapshotPart>): Promise<ClusterSnapshot> {
    const limit = this.pageSize;
    const opts = (c: string | undefined) => ({ limit, ...(c ? { _continue: c } : {}) });
    const when = <T>(part: SnapshotPart, fn: () => Promise<T[]>): Promise<T[]> => (parts.has(part) ? fn() : Promise.resolve([]));
    const [nodes, pods, deployments, replicaSets, statefulSets, daemonSets, jobs, pdbs] = await Promise.all([
      when('nodes', () => listAll((c) => this.core.listNode(opts(c)))),
      when('pods', () => listAll((c) => this.core.listPodForAllNamespaces(opts(c)))),
      when('deployments', () => listAll((c) => this.apps.listDeploymentForAllNamespaces(opts(c)))),
      when('replicaSets', () => listAll((c) => this.apps.listReplicaSetForAllNamespaces(opts(c)))),
      when('statefulSets', () => listAll((c) => this.apps.listStatefulSetForAllNamespaces(opts(c)))),
      when('daemonSets', () => listAll((c) => this.apps.listDaemonSetForAllNamespaces(opts(c)))),
      when('jobs', () => listAll((c) => this.batch.listJobForAllNamespaces(opts(c)))),
      when('pdbs', () => listAll((c) => this.policy.listPodDisruptionBudgetForAllNamespaces(opts(c)))),
    ]);
    return { nodes, pods, deployments, replicaSets, statefulSets, daemonSets, jobs, pdbs };
  }
}
