// Executes the controllers' actions through client-node, a bounded number at once; conflicts and vanished
// objects are outcomes (decided again next round), never exceptions.
import { forEachBounded } from '../../shared/concurrency/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { createRng, type Rng } from '../generator/prng.ts';
import type { ControllerAction, ControllerActionKind, StatusResource } from './actions.ts';
import { describeControllerAction } from './actions.ts';
import { SAFE_ALPHABET } from './pod-template.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const NAME_ATTEMPTS = 5;

export interface ApplyTally {
  applied: Partial<Record<ControllerActionKind, number>>;
  conflicts: number;
  notFound: number;
  errors: string[];
  /** Pods created this round, as the API server returned them (the scheduler places them in the same round). */
  created: V1Pod[];
}

export function emptyTally(): ApplyTally {
  return { applied: {}, conflicts: 0, notFound: 0, errors: [], created: [] };
}

function statusOf(err: unknown): number | undefined {
  return err instanceof ApiException ? (err as ApiException<unknown>).code : undefined;
}

function messageOf(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = (err as ApiException<unknown>).body;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const parsed = JSON.parse(text) as { message?: string };
      if (parsed.message) return `HTTP ${err.code}: ${parsed.message}`;
    } catch {
      /* not JSON: the raw text below */
    }
    return `HTTP ${err.code}: ${text.slice(0, 200)}`;
  }
  return errorMessage(err);
}

export class ControllerApplier {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly batch: BatchV1Api;
  private readonly policy: PolicyV1Api;
  private readonly rng: Rng;

  constructor(kubeConfig: KubeConfig, seed: number, private readonly concurrency: number, private readonly now: () => Date) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.batch = kubeConfig.makeApiClient(BatchV1Api);
    this.policy = kubeConfig.makeApiClient(PolicyV1Api);
    this.rng = createRng(seed);
  }

  /** rand.String(5) from the safe alphabet, as the API server completes a generateName. */
  private suffix(): string {
    let out = '';
    for (let i = 0; i < 5; i++) out += SAFE_ALPHABET[Math.floor(this.rng.next() * SAFE_ALPHABET.length)];
    return out;
  }

  async apply(actions: readonly ControllerAction[], into: ApplyTally = emptyTally()): Promise<ApplyTally> {
    await forEachBounded(actions, { limit: this.concurrency }, async (a) => {
      try {
        await this.applyOne(a, into);
        into.applied[a.kind] = (into.applied[a.kind] ?? 0) + 1;
      } catch (err) {
        const code = statusOf(err);
        if (code === 409) into.conflicts++;
        else if (code === 404) into.notFound++;
        else into.errors.push(`${describeControllerAction(a)}: ${messageOf(err)}`);
      }
    });
    return into;
  }

  private async applyOne(a: ControllerAction, tally: ApplyTally): Promise<void> {
    switch (a.kind) {
      case 'createPod': {
        const namespace = a.pod.metadata?.namespace ?? '';
        const prefix = a.pod.metadata?.name === undefined ? a.pod.metadata?.generateName : undefined;
        for (let attempt = 1; ; attempt++) {
          const body: V1Pod = prefix === undefined ? a.pod : { ...a.pod, metadata: { ...a.pod.metadata, name: `${prefix}${this.suffix()}` } };
          try {
            tally.created.push(await this.core.createNamespacedPod({ namespace, body }));
            return;
          } catch (err) {
            // A generated name already taken: draw another, as the API server's generator would.
            if (prefix === undefined || statusOf(err) !== 409 || attempt >= NAME_ATTEMPTS) throw err;
          }
        }
      }
      case 'deletePod':
        await this.core.deleteNamespacedPod({ namespace: a.pod.namespace, name: a.pod.name, ...(a.pod.uid ? { body: { preconditions: { uid: a.pod.uid } } } : {}) });
        return;
      case 'bindPod':
        await this.core.createNamespacedPodBinding({
          namespace: a.pod.namespace,
          name: a.pod.name,
          body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: a.pod.name, namespace: a.pod.namespace, ...(a.pod.uid ? { uid: a.pod.uid } : {}) }, target: { apiVersion: 'v1', kind: 'Node', name: a.node } },
        });
        return;
      case 'markUnschedulable':
        await this.core.patchNamespacedPodStatus(
          {
            namespace: a.pod.namespace,
            name: a.pod.name,
            body: { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: a.message, lastProbeTime: null, lastTransitionTime: this.now().toISOString() }] } },
          },
          mergePatch,
        );
        return;
      case 'createReplicaSet':
        await this.apps.createNamespacedReplicaSet({ namespace: a.replicaSet.metadata?.namespace ?? '', body: a.replicaSet });
        return;
      case 'scaleReplicaSet':
        await this.apps.patchNamespacedReplicaSet({ namespace: a.replicaSet.namespace, name: a.replicaSet.name, body: { spec: { replicas: a.replicas } } }, mergePatch);
        return;
      case 'patchStatus':
        await this.patchStatus(a.resource, a.target.namespace, a.target.name, { status: a.status });
        return;
      case 'updatePdbStatus':
        await this.policy.replaceNamespacedPodDisruptionBudgetStatus({ namespace: a.pdb.metadata?.namespace ?? '', name: a.pdb.metadata?.name ?? '', body: a.pdb });
        return;
    }
  }

  private async patchStatus(resource: StatusResource, namespace: string, name: string, body: object): Promise<void> {
    const req = { namespace, name, body };
    switch (resource) {
      case 'deployments':
        await this.apps.patchNamespacedDeploymentStatus(req, mergePatch);
        return;
      case 'replicasets':
        await this.apps.patchNamespacedReplicaSetStatus(req, mergePatch);
        return;
      case 'statefulsets':
        await this.apps.patchNamespacedStatefulSetStatus(req, mergePatch);
        return;
      case 'daemonsets':
        await this.apps.patchNamespacedDaemonSetStatus(req, mergePatch);
        return;
      case 'jobs':
        await this.batch.patchNamespacedJobStatus(req, mergePatch);
        return;
    }
  }
}
