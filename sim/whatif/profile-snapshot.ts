// A generated profile as a cluster snapshot: the generator's nodes, budgets and workloads with every pod already
// placed and running, as a real cluster would be when someone runs `kmaint snapshot`. Controllers own their pods
// (so a drained pod gets a replacement); the large profile keeps its prebound placement, owned by its apps.
import { namespacedName } from '../../shared/api/index.ts';
import type { V1Node, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { podRequests } from '../controllers/resources.ts';
import { SAFE_ALPHABET, templateHash } from '../controllers/pod-template.ts';
import { LABEL_POD_INDEX, LABEL_POD_NAME, LABEL_REVISION_HASH } from '../controllers/statefulset.ts';
import { createRng, deriveSeed, generateCluster, preboundPods, type ProfileName, type Rng } from '../generator/index.ts';
import { LABEL_APP_NAME } from '../generator/sim-keys.ts';
import { Placer } from './placer.ts';
import { snapshotNode, snapshotPdb, snapshotPod } from './snapshot-build.ts';
import { SNAPSHOT_API_VERSION, SNAPSHOT_FORMAT_VERSION, SNAPSHOT_KIND, type ClusterSnapshot, type SnapshotPod } from './snapshot-schema.ts';

/** Bare per-node pods of the large profile that stand for DaemonSet pods. */
const LARGE_DAEMONS = new Set(['node-exporter', 'log-agent']);

export interface ProfileSnapshotOptions {
  profile: ProfileName;
  /** @default 1 */
  seed?: number;
  /** Node count; @default the profile's. */
  nodes?: number;
  /** When the snapshot is said to be taken (pods' creation times). @default the epoch */
  takenAt?: Date;
}

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

function suffix(rng: Rng): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += SAFE_ALPHABET[rng.int(0, SAFE_ALPHABET.length - 1)];
  return out;
}

function runningPod(p: V1Pod, node: string, owner: Owner | undefined): V1Pod {
  return {
    ...p,
    metadata: { ...p.metadata, ...(owner ? { ownerReferences: [{ ...owner, controller: true }] } : {}) },
    spec: { ...(p.spec ?? { containers: [] }), nodeName: node },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function fromTemplate(template: V1PodTemplateSpec | undefined, namespace: string, name: string, labels: Record<string, string>): V1Pod {
  return {
    metadata: { namespace, name, labels: { ...template?.metadata?.labels, ...labels }, ...(template?.metadata?.annotations ? { annotations: template.metadata.annotations } : {}) },
    spec: structuredClone(template?.spec ?? { containers: [] }),
  };
}

/** Places pods one by one with the what-if scheduler's rules; a pod that fits nowhere is left pending. */
class Placement {
  readonly pods: SnapshotPod[] = [];
  private readonly placer: Placer;

  constructor(nodes: readonly V1Node[]) {
    this.placer = new Placer(nodes);
  }

  bound(p: V1Pod, node: string, owner: Owner | undefined): void {
    this.placer.add(node, owner?.uid, podRequests(p));
    this.pods.push(snapshotPod(runningPod(p, node, owner)));
  }

  place(p: V1Pod, owner: Owner): void {
    const requests = podRequests(p);
    const node = this.placer.choose({ spec: p.spec ?? { containers: [] }, shapeKey: owner.uid, owner: owner.uid, requests });
    if (node === undefined) {
      this.pods.push(snapshotPod({ ...p, metadata: { ...p.metadata, ownerReferences: [{ ...owner, controller: true }] }, status: { phase: 'Pending' } }));
      return;
    }
    this.bound(p, node, owner);
  }

  /** DaemonSet pods: one on every node whose taints and selector admit it (the DaemonSet controller binds them itself). */
  everyNode(nodes: readonly V1Node[], make: (node: V1Node) => V1Pod, owner: Owner): void {
    for (const node of nodes) {
      const p = make(node);
      const name = node.metadata?.name ?? '';
      if (this.placer.admits({ spec: p.spec ?? { containers: [] }, shapeKey: owner.uid, owner: owner.uid, requests: {} }, name)) this.bound(p, name, owner);
    }
  }
}

export function profileSnapshot(options: ProfileSnapshotOptions): ClusterSnapshot {
  const seed = options.seed ?? 1;
  const large = options.profile === 'large';
  const cluster = generateCluster({ profile: options.profile, seed, ...(options.nodes !== undefined ? { nodes: options.nodes } : {}) });
  const rng = createRng(deriveSeed(seed, 'whatif-placement'));
  const nodes = [...cluster.nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const placement = new Placement(nodes);
  const w = cluster.workloads;
  const ownerOf = (kind: string, apiVersion: string, namespace: string, name: string): Owner => ({ apiVersion, kind, name, uid: `${kind.toLowerCase()}/${namespace}/${name}` });

  for (const p of [...w.pods, ...preboundPods(cluster)]) {
    const node = p.spec?.nodeName ?? '';
    const app = p.metadata?.labels?.[LABEL_APP_NAME] ?? '';
    const ns = p.metadata?.namespace ?? '';
    if (p.metadata?.ownerReferences?.some((o) => o.kind === 'Node')) {
      // Mirror pods name their Node as owner; the uid is only known once the Node is registered.
      placement.bound({ ...p, metadata: { ...p.metadata, ownerReferences: [] } }, node, { apiVersion: 'v1', kind: 'Node', name: node, uid: `node/${node}` });
    } else if (!large) placement.bound(p, node, undefined);
    else if (LARGE_DAEMONS.has(app)) placement.bound(p, node, ownerOf('DaemonSet', 'apps/v1', ns, app));
    else placement.bound(p, node, ownerOf('ReplicaSet', 'apps/v1', ns, `${app}-${templateHash({ metadata: { labels: { [LABEL_APP_NAME]: app } } })}`));
  }
  for (const d of w.deployments) {
    const ns = d.metadata?.namespace ?? '';
    const hash = templateHash(d.spec?.template);
    const rs = ownerOf('ReplicaSet', 'apps/v1', ns, `${d.metadata?.name ?? ''}-${hash}`);
    for (let i = 0; i < (d.spec?.replicas ?? 1); i++) placement.place(fromTemplate(d.spec?.template, ns, `${rs.name}-${suffix(rng)}`, { 'pod-template-hash': hash }), rs);
  }
  for (const s of w.statefulSets) {
    const ns = s.metadata?.namespace ?? '';
    const name = s.metadata?.name ?? '';
    const owner = ownerOf('StatefulSet', 'apps/v1', ns, name);
    const revision = `${name}-${templateHash(s.spec?.template)}`;
    for (let i = 0; i < (s.spec?.replicas ?? 1); i++) {
      placement.place(fromTemplate(s.spec?.template, ns, `${name}-${i}`, { [LABEL_POD_NAME]: `${name}-${i}`, [LABEL_POD_INDEX]: String(i), [LABEL_REVISION_HASH]: revision }), owner);
    }
  }
  for (const ds of w.daemonSets) {
    const ns = ds.metadata?.namespace ?? '';
    const owner = ownerOf('DaemonSet', 'apps/v1', ns, ds.metadata?.name ?? '');
    placement.everyNode(nodes, () => fromTemplate(ds.spec?.template, ns, `${owner.name}-${suffix(rng)}`, {}), owner);
  }
  for (const j of w.jobs) {
    const ns = j.metadata?.namespace ?? '';
    const owner = ownerOf('Job', 'batch/v1', ns, j.metadata?.name ?? '');
    placement.place(fromTemplate(j.spec?.template, ns, `${owner.name}-${suffix(rng)}`, { 'job-name': owner.name }), owner);
  }

  const takenAt = options.takenAt ?? new Date(0);
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: SNAPSHOT_KIND,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    takenAt: takenAt.toISOString(),
    source: `profile ${options.profile}, seed ${seed}, ${nodes.length} nodes`,
    nodes: nodes.map((n) => snapshotNode({ ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'True' }] } } as V1Node)),
    pods: placement.pods.sort((a, b) => {
      const x = namespacedName(a);
      const y = namespacedName(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }),
    podDisruptionBudgets: w.podDisruptionBudgets.map(snapshotPdb),
  };
}
