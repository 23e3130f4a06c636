// generateCluster: a seeded, deterministic Kubernetes cluster (nodes + workloads) as plain manifests.
import type { V1Node } from '@kubernetes/client-node';
import { z } from 'zod';
import { emptyWorkloads, mirrorPodsFor, namespaceObjects, poolOf, standardWorkloads } from './catalog.ts';
import { daemonSet, deployment, headlessService, job, podDisruptionBudget, statefulSet } from './manifests.ts';
import { generateNodes } from './nodes.ts';
import { GPU_APP, NODE_DAEMONS, benchNamespaces, planPrebound } from './prebound.ts';
import { createRng, deriveSeed } from './prng.ts';
import { PROFILES, type ProfileName } from './profiles.ts';
import { LABEL_POOL, RESOURCE_GPU } from './sim-keys.ts';
import type { GeneratedCluster, PreboundPlan, Workloads } from './types.ts';

export const generateOptionsSchema = z
  .object({
    profile: z.enum(['small', 'demo', 'large']),
    seed: z.number().int(),
    /** Total node count; @default the profile's (6, 24, 5000). */
    nodes: z.number().int().min(3).optional(),
    /** Pods as bound Pod objects instead of controllers; @default true for large, false otherwise. */
    prebound: z.boolean().optional(),
    /** Pods per node in prebound mode, mirror and daemon pods included; @default 30. */
    podsPerNode: z.number().int().min(1).max(110).optional(),
    /** terminationGracePeriodSeconds of every generated pod (the kubelet stops a deleted pod after it); @default 5. */
    graceSeconds: z.number().int().min(0).optional(),
  })
  .strict();

export type GenerateOptions = z.input<typeof generateOptionsSchema>;

export function generateCluster(options: GenerateOptions): GeneratedCluster {
  const opts = generateOptionsSchema.parse(options);
  const spec = PROFILES[opts.profile];
  const nodes = generateNodes(spec, opts.nodes ?? spec.nodes, createRng(deriveSeed(opts.seed, 'nodes')));
  const rng = createRng(deriveSeed(opts.seed, 'workloads'));
  const prebound = opts.prebound ?? spec.prebound;

  if (opts.profile !== 'large') {
    if (prebound) throw new RangeError(`prebound mode is only for the large profile, not ${opts.profile}`);
    const { namespaces, workloads } = standardWorkloads(opts.profile, nodes, rng);
    return finish(opts.profile, opts.seed, nodes, namespaces, workloads, undefined, 0, opts.graceSeconds);
  }

  const { plan, gpuPods, total } = planPrebound(nodes, opts.podsPerNode ?? spec.podsPerNode);
  const w = emptyWorkloads();
  // Integer minAvailable: the only PDB form the disruption controller supports for pods without a controller.
  for (const app of plan.apps) {
    w.podDisruptionBudgets.push(podDisruptionBudget(app.namespace, app.name, { minAvailable: app.pods - Math.max(1, Math.floor(app.pods / 10)) }));
  }
  if (gpuPods > 0) {
    w.podDisruptionBudgets.push(podDisruptionBudget(GPU_APP.namespace, GPU_APP.name, { minAvailable: Math.max(0, gpuPods - 4) }));
  }
  w.statefulSets.push(statefulSet('data', 'db', 3, { cpu: '10m', memory: '16Mi' }));
  w.services.push(headlessService('data', 'db'));
  w.podDisruptionBudgets.push(podDisruptionBudget('data', 'db', { minAvailable: 2 }));
  w.jobs.push(job('batch', 'nightly-etl', rng.int(900, 1800), { cpu: '10m', memory: '16Mi' }));
  const namespaces = [...benchNamespaces(plan.apps.length), 'ops', 'ml', 'data', 'batch'];

  if (prebound) return finish('large', opts.seed, nodes, namespaces, w, plan, total, opts.graceSeconds);

  // Controller mode: the same pods, made by Deployments and DaemonSets and placed by the scheduler.
  for (const app of plan.apps) w.deployments.push(deployment(app.namespace, app.name, app.pods, { cpu: '10m', memory: '16Mi' }));
  if (gpuPods > 0) {
    w.deployments.push(
      deployment(GPU_APP.namespace, GPU_APP.name, gpuPods, {
        cpu: '10m',
        memory: '16Mi',
        gpus: 1,
        rdma: 1,
        pool: 'gpu',
        tolerations: [{ key: RESOURCE_GPU, operator: 'Exists', effect: 'NoSchedule' }],
      }),
    );
  }
  for (const name of NODE_DAEMONS) w.daemonSets.push(daemonSet('ops', name, { cpu: '10m', memory: '16Mi' }));
  const mirrorRng = createRng(deriveSeed(opts.seed, 'mirror'));
  for (const node of nodes) w.pods.push(...mirrorPodsFor(node, mirrorRng));
  return finish('large', opts.seed, nodes, namespaces, w, undefined, 0, opts.graceSeconds);
}

/** Every pod template and bound pod of `w` with this grace period (prebound pods get it from the plan). */
function withGrace(w: Workloads, seconds: number): void {
  for (const owner of [...w.deployments, ...w.statefulSets, ...w.daemonSets, ...w.jobs]) {
    const spec = owner.spec?.template.spec;
    if (spec) spec.terminationGracePeriodSeconds = seconds;
  }
  for (const p of w.pods) if (p.spec) p.spec.terminationGracePeriodSeconds = seconds;
}

function finish(
  profile: ProfileName,
  seed: number,
  nodes: V1Node[],
  namespaces: string[],
  workloads: Workloads,
  prebound?: PreboundPlan,
  preboundTotal = 0,
  graceSeconds?: number,
): GeneratedCluster {
  if (graceSeconds !== undefined) withGrace(workloads, graceSeconds);
  return {
    profile,
    seed,
    nodes,
    namespaces: namespaceObjects(namespaces),
    workloads,
    ...(prebound ? { prebound: graceSeconds !== undefined ? { ...prebound, graceSeconds } : prebound } : {}),
    expectedPods: countExpectedPods(nodes, workloads) + preboundTotal,
  };
}

/** Replicas + one pod per Job + DaemonSet pods on every node its pool selector admits + bound pods. */
export function countExpectedPods(nodes: readonly V1Node[], w: Workloads): number {
  let count = w.pods.length + w.jobs.reduce((n, j) => n + (j.spec?.parallelism ?? 1), 0);
  for (const d of [...w.deployments, ...w.statefulSets]) count += d.spec?.replicas ?? 1;
  for (const ds of w.daemonSets) {
    const pool = ds.spec?.template.spec?.nodeSelector?.[LABEL_POOL];
    count += pool === undefined ? nodes.length : nodes.filter((n) => poolOf(n) === pool).length;
  }
  return count;
}
