// Where the generated cluster's pods go when scheduled all at once from scratch: the demo's planner reads this
// instead of the live cluster, whose placement depends on timing (a StatefulSet's next pod is created once the
// previous one is Ready, Jobs finish and free room, each at a wall-clock-tied moment). So the demo's choices — which
// nodes get requests, by which requestor, in which order — are a pure function of the seed (issue 42).
import type { V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { namespacedName } from '../../shared/api/index.ts';
import { shouldRun } from '../controllers/daemonset.ts';
import { podFromTemplate } from '../controllers/pod-template.ts';
import { planScheduling } from '../controllers/scheduler.ts';
import type { GeneratedCluster } from '../generator/index.ts';
import { planDemoRequests, type DemoPlan } from './requestors.ts';

function templatePods(kind: 'ReplicaSet' | 'StatefulSet', namespace: string, name: string, replicas: number, template: V1PodTemplateSpec | undefined): V1Pod[] {
  // A stable owner uid (the real one is random): the scheduler spreads pods of one controller by it.
  const owner = { apiVersion: 'apps/v1', kind, name, uid: `${kind}/${namespace}/${name}`, controller: true };
  return Array.from({ length: replicas }, (_, i) => podFromTemplate(template, { namespace, name: `${name}-${i}`, owner }));
}

/**
 * The cluster's long-running pods placed by the simulated scheduler's pure planner in one pass: bare pods where they
 * are bound, DaemonSet pods on every node they run on, Deployment and StatefulSet replicas in the scheduler's queue
 * order. Jobs are left out: they finish.
 */
export function plannedPlacement(cluster: Pick<GeneratedCluster, 'nodes' | 'workloads'>): V1Pod[] {
  const { nodes, workloads } = cluster;
  const bound: V1Pod[] = workloads.pods.map((p) => structuredClone(p));
  for (const ds of workloads.daemonSets) {
    const namespace = ds.metadata?.namespace ?? '';
    const name = ds.metadata?.name ?? '';
    const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid: `DaemonSet/${namespace}/${name}`, controller: true };
    for (const node of nodes) {
      if (!shouldRun(ds, node).run) continue;
      const pod = podFromTemplate(ds.spec?.template, { namespace, name: `${name}-${node.metadata?.name ?? ''}`, owner });
      bound.push({ ...pod, spec: { containers: [], ...pod.spec, nodeName: node.metadata?.name ?? '' } });
    }
  }
  const pending: V1Pod[] = [
    ...workloads.deployments.flatMap((d) => templatePods('ReplicaSet', d.metadata?.namespace ?? '', d.metadata?.name ?? '', d.spec?.replicas ?? 1, d.spec?.template)),
    ...workloads.statefulSets.flatMap((s) => templatePods('StatefulSet', s.metadata?.namespace ?? '', s.metadata?.name ?? '', s.spec?.replicas ?? 1, s.spec?.template)),
  ];
  const placed = new Map<string, string>();
  for (const a of planScheduling(nodes, [...bound, ...pending])) if (a.kind === 'bindPod') placed.set(namespacedName(a.pod), a.node);
  const scheduled = pending.flatMap((p) => {
    const node = placed.get(namespacedName({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' }));
    return node === undefined ? [] : [{ ...p, spec: { containers: [], ...p.spec, nodeName: node } }];
  });
  return [...bound, ...scheduled];
}

/** The demo's requests for its generated cluster (a pure function of the seed and node count): what `kmaint demo --seed N` asks for. */
export function demoPlan(cluster: Pick<GeneratedCluster, 'nodes' | 'workloads' | 'seed'>): DemoPlan {
  return planDemoRequests(cluster.nodes, plannedPlacement(cluster), cluster.seed);
}
