// The all-features soak's real Slurm (slurm/: 26.05 from the cached forky rootfs, the release that creates
// reservations): one Slurm worker pod per Slurm node on a worker node of its own (pod mode, named by spec.hostname, in
// SLURM_WORKER_NAMESPACE), put back when a drain, a dead kubelet or a deleted node took it; what kmaint does in Slurm is
// sampled as it happens (its kmaint_ reservations, its kmaint: drains) and read once more when the passes are quiet.
import { errorMessage } from '../shared/errors/index.ts';
import type { V1Pod } from '@kubernetes/client-node';
import type { Rng } from '../sim/generator/prng.ts';
import type { Clients, World } from './actors.ts';
import { SLURM_WORKER_LABEL, SLURM_WORKER_NAMESPACE } from './features.ts';
import type { SlurmLeftovers } from './feature-invariants.ts';

/** slurmrestd's API version the soak reads with (26.05 serves it). */
const API = 'v0.0.43';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The Slurm the soak runs beside the testbed (slurm-testbed/cluster.ts SlurmCluster, what the soak uses of it). */
export interface SoakSlurm {
  url: string;
  /** A root token for kmaint's passes (spec.slurm.tokenEnv). */
  token: string;
  /** Slurm node names (n1..nN). */
  nodes: readonly string[];
  rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** What the actor saw kmaint do in Slurm during the run. */
export interface SlurmSeen {
  /** kmaint_ reservation names seen (one per request that reserved). */
  reservations: Set<string>;
  /** `<slurm node> <reason>` of each kmaint: drain seen. */
  drains: Set<string>;
  /** Worker pods created (the first ones and those put back). */
  workersCreated: number;
  /** Jobs submitted (`sleep 2` on one Slurm node): a drain waits for them. */
  jobs: number;
}

/** Slurm node -> the worker node its pod runs on: distinct nodes picked by the seed. */
export function placeSlurmWorkers(workers: readonly string[], slurmNodes: readonly string[], rng: Rng): Map<string, string> {
  const pool = [...workers];
  const out = new Map<string, string>();
  for (const s of slurmNodes) {
    if (pool.length === 0) break;
    out.set(s, pool.splice(rng.int(0, pool.length - 1), 1)[0] as string);
  }
  return out;
}

async function createWorker(c: Clients, slurmNode: string, node: string, seq: number): Promise<void> {
  await c.core.createNamespacedPod({
    namespace: SLURM_WORKER_NAMESPACE,
    body: {
      metadata: { name: `slurmd-${slurmNode}-${seq}`, namespace: SLURM_WORKER_NAMESPACE, labels: { [SLURM_WORKER_LABEL]: 'true' }, annotations: { 'kmaint.io/sim-termination-seconds': '0' } },
      spec: { nodeName: node, hostname: slurmNode, terminationGracePeriodSeconds: 1, containers: [{ name: 'slurmd', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m' } } }] },
    },
  });
}

/** The worker namespace; the pods come with the actor's first round. */
export async function setUpSlurmWorkers(c: Clients): Promise<void> {
  await c.core.createNamespace({ body: { metadata: { name: SLURM_WORKER_NAMESPACE } } }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
  });
}

/** kmaint's marks in Slurm now: every reservation and every node with its state and reason. */
export async function readSlurm(slurm: SoakSlurm): Promise<SlurmLeftovers> {
  const r = await slurm.rest('GET', `/slurm/${API}/reservations/`);
  const n = await slurm.rest('GET', `/slurm/${API}/nodes/`);
  if (r.status !== 200 || n.status !== 200) throw new Error(`slurmrestd answered ${r.status} (reservations) and ${n.status} (nodes)`);
  const reservations = ((r.body as { reservations?: Array<{ name?: string }> }).reservations ?? []).map((x) => x.name ?? '');
  const nodes = ((n.body as { nodes?: Array<{ name?: string; state?: string[]; reason?: string }> }).nodes ?? []).map((x) => ({ name: x.name ?? '', state: x.state ?? [], reason: x.reason ?? '' }));
  return { reservations, nodes };
}

/** A short job on `node` (time limit 1 min): what keeps a Slurm node ALLOCATED+DRAIN for a moment. */
async function submitJob(slurm: SoakSlurm, node: string, seq: number): Promise<void> {
  const r = await slurm.rest('POST', `/slurm/${API}/job/submit`, {
    job: { name: `soak-${seq}`, partition: 'debug', required_nodes: [node], time_limit: { set: true, number: 1 }, current_working_directory: '/tmp', standard_output: '/dev/null', environment: ['PATH=/bin:/usr/bin'], script: '#!/bin/sh\nsleep 2\n' },
  });
  if ((r.body as { job_id?: number }).job_id === undefined) throw new Error(`job submit: ${r.status} ${JSON.stringify(r.body)}`);
}

const live = (p: V1Pod): boolean => p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded';

/**
 * Every ~2 s while `isRunning`: puts back each Slurm node's worker pod that is gone (on a node not deleted), submits a
 * short job to a Slurm node now and then while `isCreating`, and records kmaint's reservations and drains in Slurm.
 * Its own failures are actor errors, never kmaint's.
 */
export async function runSlurmActor(c: Clients, world: World, slurm: SoakSlurm, placement: ReadonlyMap<string, string>, seen: SlurmSeen, rng: Rng, isCreating: () => boolean, isRunning: () => boolean): Promise<void> {
  let seq = 0;
  while (isRunning()) {
    try {
      if (isCreating() && rng.next() < 0.5) {
        await submitJob(slurm, slurm.nodes[rng.int(0, slurm.nodes.length - 1)] as string, ++seen.jobs);
      }
      const pods = (await c.core.listNamespacedPod({ namespace: SLURM_WORKER_NAMESPACE })).items.filter(live);
      for (const [slurmNode, node] of placement) {
        if (world.deletedNodes.has(node) || pods.some((p) => p.spec?.hostname === slurmNode)) continue;
        await createWorker(c, slurmNode, node, ++seq);
        seen.workersCreated++;
      }
      const now = await readSlurm(slurm);
      for (const name of now.reservations) if (name.startsWith('kmaint_')) seen.reservations.add(name);
      for (const n of now.nodes) if (n.state.includes('DRAIN') && n.reason.startsWith('kmaint:')) seen.drains.add(`${n.name} ${n.reason}`);
    } catch (err) {
      world.actorErrors.push(`Slurm actor: ${errorMessage(err)}`);
    }
    await sleep(2000);
  }
}
