// What an all-features soak puts into the cluster before it starts: clique labels, the SR-IOV network operator's
// CRDs, node states and pool, the medik8s lease namespace, and the fake EC2 behind kmaint's reaper providers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { DescribeInstanceStatusCommand, EC2Client, type InstanceStatus, type InstanceStatusEvent } from '@aws-sdk/client-ec2';
import { ApiextensionsV1Api, loadYaml, PatchStrategy, setHeaderOptions, type V1CustomResourceDefinition, type V1Node } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import { MEDIK8S_LEASE_NAMESPACE, SRIOV_ANNOTATION_EXTERNAL_DRAINER, SRIOV_GROUP, SRIOV_NODE_STATE_PLURAL, SRIOV_POOL_CONFIG_PLURAL, SRIOV_VERSION, DEFAULT_SRIOV_NAMESPACE } from '../shared/api/index.ts';
import { awsProvider, providerMap, type InstanceProviders } from '../shared/reaper/index.ts';
import type { Rng } from '../sim/generator/prng.ts';
import { ensureSriovCrds } from '../testbed/peers/sriov-crds.ts';
import type { Clients } from './actors.ts';
import { CLIQUE_LABEL, pickCliques, SRIOV_NODE_LABEL, SRIOV_POOL_LIMIT, SRIOV_POOL_NAME } from './features.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * EC2 at the SDK boundary: one client whose `send` is replaced (aws-sdk-client-mock on the instance, nothing global),
 * answering DescribeInstanceStatus from `events` as EC2 does (every listed instance, its events).
 */
export class FakeEc2 {
  /** Instance id -> its scheduled events, as the actor sets them. */
  readonly events = new Map<string, InstanceStatusEvent[]>();
  calls = 0;
  readonly providers: InstanceProviders;

  constructor() {
    const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'soak', secretAccessKey: 'soak' } });
    mockClient(ec2)
      .on(DescribeInstanceStatusCommand)
      .callsFake((): { InstanceStatuses: InstanceStatus[] } => {
        this.calls++;
        return { InstanceStatuses: [...this.events].map(([InstanceId, Events]) => ({ InstanceId, AvailabilityZone: 'us-east-1a', InstanceState: { Code: 16, Name: 'running' }, Events })) };
      });
    const autoScaling = new AutoScalingClient({ region: 'us-east-1', credentials: { accessKeyId: 'soak', secretAccessKey: 'soak' } });
    mockClient(autoScaling);
    this.providers = providerMap([awsProvider({ clients: () => ({ ec2, autoScaling }) })]);
  }
}

/** The instance id of an aws:/// providerID ('' for another). */
export function instanceIdOf(node: V1Node): string {
  const id = node.spec?.providerID ?? '';
  return id.startsWith('aws:') ? (id.split('/').at(-1) ?? '') : '';
}

export interface FeatureSetup {
  cliques: string[][];
  sriovNodes: string[];
  /** Why the SR-IOV route could not be set up ('' when it was). */
  sriovProblem: string;
  fakeEc2: FakeEc2;
}

async function installCrds(c: Clients, apiext: ApiextensionsV1Api, dir: string): Promise<void> {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    // Through the client's model (x-kubernetes-int-or-string -> xKubernetesIntOrString): a plain parse loses such keys.
    const crd = loadYaml<V1CustomResourceDefinition>(readFileSync(join(dir, file), 'utf8'));
    await apiext.createCustomResourceDefinition({ body: crd }).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
  }
  // Served once Established: poll the list until it answers.
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await c.custom.listNamespacedCustomObject({ group: SRIOV_GROUP, version: SRIOV_VERSION, namespace: DEFAULT_SRIOV_NAMESPACE, plural: SRIOV_NODE_STATE_PLURAL });
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(250);
    }
  }
}

/** Labels cliques, sets up the SR-IOV operator's objects (or says why not) and the medik8s lease namespace. */
export async function setUpFeatures(c: Clients, admin: { apiext: ApiextensionsV1Api }, workers: readonly string[], rng: Rng): Promise<FeatureSetup> {
  const cliques = pickCliques(workers, rng, Math.max(1, Math.floor(workers.length / 10)));
  for (const [i, clique] of cliques.entries()) {
    for (const node of clique) await c.core.patchNode({ name: node, body: { metadata: { labels: { [CLIQUE_LABEL]: `clique-${i + 1}` } } } }, mergePatch);
  }
  await c.core.createNamespace({ body: { metadata: { name: MEDIK8S_LEASE_NAMESPACE } } }).catch(ignoreConflict);
  const fakeEc2 = new FakeEc2();
  const crds = ensureSriovCrds();
  if ('problem' in crds) return { cliques, sriovNodes: [], sriovProblem: crds.problem, fakeEc2 };
  await installCrds(c, admin.apiext, crds.dir);
  await c.core.createNamespace({ body: { metadata: { name: DEFAULT_SRIOV_NAMESPACE } } }).catch(ignoreConflict);
  // A few nodes with SR-IOV devices, drawn from every worker: some may sit in a clique (issue 30 point 5).
  const sriovNodes = workers.filter(() => rng.next() < 0.15).slice(0, 8);
  if (sriovNodes.length < 2) sriovNodes.push(...workers.filter((w) => !sriovNodes.includes(w)).slice(0, 2 - sriovNodes.length));
  for (const node of sriovNodes) {
    await c.core.patchNode({ name: node, body: { metadata: { labels: { [SRIOV_NODE_LABEL]: 'yes' } } } }, mergePatch);
    await c.custom.createNamespacedCustomObject({
      group: SRIOV_GROUP,
      version: SRIOV_VERSION,
      namespace: DEFAULT_SRIOV_NAMESPACE,
      plural: SRIOV_NODE_STATE_PLURAL,
      body: { apiVersion: `${SRIOV_GROUP}/${SRIOV_VERSION}`, kind: 'SriovNetworkNodeState', metadata: { name: node, namespace: DEFAULT_SRIOV_NAMESPACE, annotations: { [SRIOV_ANNOTATION_EXTERNAL_DRAINER]: 'true' } }, spec: {} },
    });
  }
  await c.custom.createNamespacedCustomObject({
    group: SRIOV_GROUP,
    version: SRIOV_VERSION,
    namespace: DEFAULT_SRIOV_NAMESPACE,
    plural: SRIOV_POOL_CONFIG_PLURAL,
    body: { apiVersion: `${SRIOV_GROUP}/${SRIOV_VERSION}`, kind: 'SriovNetworkPoolConfig', metadata: { name: SRIOV_POOL_NAME, namespace: DEFAULT_SRIOV_NAMESPACE }, spec: { maxUnavailable: SRIOV_POOL_LIMIT, nodeSelector: { matchLabels: { [SRIOV_NODE_LABEL]: 'yes' } } } },
  });
  return { cliques, sriovNodes: sriovNodes.sort(), sriovProblem: '', fakeEc2 };
}

function ignoreConflict(err: unknown): void {
  if ((err as { code?: number }).code !== 409) throw err;
}
