import { describe, expect, it } from 'vitest';
import { generateCluster } from './cluster.ts';
import { PROVIDER_ID_PATTERN } from './nodes.ts';
import { preboundPods } from './prebound.ts';
import {
  ANNOTATION_CONFIG_MIRROR,
  ANNOTATION_SIM_RUN_SECONDS,
  LABEL_CONTROL_PLANE,
  LABEL_POOL,
  LABEL_ZONE,
  RESOURCE_GPU,
  RESOURCE_RDMA,
} from './sim-keys.ts';
import type { GeneratedCluster } from './types.ts';

const labelsOf = (c: GeneratedCluster, key: string) => new Set(c.nodes.map((n) => n.metadata?.labels?.[key]));

describe('generateCluster', () => {
  it.each(['small', 'demo'] as const)('%s: the same seed gives a deep-equal cluster', (profile) => {
    expect(generateCluster({ profile, seed: 7 })).toStrictEqual(generateCluster({ profile, seed: 7 }));
  });

  it.each(['small', 'demo'] as const)('%s: another seed gives another cluster', (profile) => {
    expect(generateCluster({ profile, seed: 1 })).not.toEqual(generateCluster({ profile, seed: 2 }));
  });

  it.each([
    ['small', 6, 1, 2],
    ['demo', 24, 3, 3],
  ] as const)('%s has %i nodes, %i control-plane, %i zones, a gpu pool', (profile, nodes, controlPlane, zones) => {
    const c = generateCluster({ profile, seed: 3 });
    expect(c.nodes).toHaveLength(nodes);
    expect(c.nodes.filter((n) => n.metadata?.labels?.[LABEL_CONTROL_PLANE] === '')).toHaveLength(controlPlane);
    expect(labelsOf(c, LABEL_ZONE).size).toBe(zones);
    expect(labelsOf(c, LABEL_POOL)).toEqual(new Set(['control-plane', 'general', 'gpu']));
  });

  it('control-plane nodes carry the NoSchedule control-plane taint', () => {
    const c = generateCluster({ profile: 'demo', seed: 3 });
    for (const node of c.nodes.filter((n) => n.metadata?.labels?.[LABEL_CONTROL_PLANE] === '')) {
      expect(node.spec?.taints).toContainEqual({ key: LABEL_CONTROL_PLANE, effect: 'NoSchedule' });
    }
  });

  it('gpu nodes have nvidia.com/gpu and rdma capacity', () => {
    const c = generateCluster({ profile: 'small', seed: 3 });
    const gpu = c.nodes.filter((n) => n.metadata?.labels?.[LABEL_POOL] === 'gpu');
    expect(gpu).toHaveLength(1);
    expect(gpu[0]?.status?.capacity?.[RESOURCE_GPU]).toBe('8');
    expect(gpu[0]?.status?.allocatable?.[RESOURCE_RDMA]).toBe('63');
  });

  it.each([1, 2, 99])('seed %i: node names and providerIDs are unique and well-formed', (seed) => {
    const c = generateCluster({ profile: 'demo', seed });
    const names = c.nodes.map((n) => n.metadata?.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe('node-000');
    const ids = c.nodes.map((n) => n.spec?.providerID ?? '');
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(PROVIDER_ID_PATTERN);
      expect(id.split('/')[3]).toBe(c.nodes[i]?.metadata?.labels?.[LABEL_ZONE]);
    }
  });

  it('a node count overrides the profile and keeps the pools', () => {
    const c = generateCluster({ profile: 'small', seed: 1, nodes: 12 });
    expect(c.nodes).toHaveLength(12);
    expect(labelsOf(c, LABEL_POOL)).toEqual(new Set(['control-plane', 'general', 'gpu']));
  });

  it('rejects unknown options and prebound mode outside the large profile', () => {
    expect(() => generateCluster({ profile: 'small', seed: 1, colour: 'blue' } as never)).toThrow();
    expect(() => generateCluster({ profile: 'small', seed: 1, prebound: true })).toThrow(/large/);
    expect(() => generateCluster({ profile: 'small', seed: 1, nodes: 2 })).toThrow();
  });

  describe.each(['small', 'demo'] as const)('%s has every workload kind', (profile) => {
    const c = generateCluster({ profile, seed: 11 });
    const w = c.workloads;
    const pods = [...w.deployments, ...w.statefulSets, ...w.daemonSets, ...w.jobs].map((o) => o.spec?.template.spec);

    it.each([
      ['Deployment', w.deployments.length],
      ['StatefulSet', w.statefulSets.length],
      ['DaemonSet', w.daemonSets.length],
      ['Job', w.jobs.length],
      ['PodDisruptionBudget', w.podDisruptionBudgets.length],
    ])('%s', (_kind, count) => expect(count).toBeGreaterThan(0));

    it('PDBs in both minAvailable and maxUnavailable forms', () => {
      expect(w.podDisruptionBudgets.some((p) => p.spec?.minAvailable !== undefined)).toBe(true);
      expect(w.podDisruptionBudgets.some((p) => p.spec?.maxUnavailable !== undefined)).toBe(true);
    });

    it('a headless Service for each StatefulSet', () => {
      for (const s of w.statefulSets) {
        const svc = w.services.find((v) => v.metadata?.namespace === s.metadata?.namespace && v.metadata?.name === s.spec?.serviceName);
        expect(svc?.spec?.clusterIP).toBe('None');
      }
    });

    it('DaemonSets tolerate everything', () => {
      for (const ds of w.daemonSets) expect(ds.spec?.template.spec?.tolerations).toEqual([{ operator: 'Exists' }]);
    });

    it('bare pods with no controller, bound by spec.nodeName, one with emptyDir', () => {
      const bare = w.pods.filter((p) => !p.metadata?.ownerReferences);
      expect(bare.length).toBeGreaterThan(0);
      for (const p of bare) expect(c.nodes.map((n) => n.metadata?.name)).toContain(p.spec?.nodeName);
      expect(bare.some((p) => p.spec?.volumes?.some((v) => v.emptyDir))).toBe(true);
    });

    it('pods with emptyDir under a controller', () => {
      expect(pods.some((s) => s?.volumes?.some((v) => v.emptyDir))).toBe(true);
    });

    it('Deployments requesting gpu and rdma, pinned to the gpu pool', () => {
      const gpu = w.deployments.filter((d) => d.spec?.template.spec?.containers[0]?.resources?.limits?.[RESOURCE_GPU]);
      expect(gpu.length).toBeGreaterThan(0);
      expect(gpu.some((d) => d.spec?.template.spec?.containers[0]?.resources?.limits?.[RESOURCE_RDMA])).toBe(true);
      for (const d of gpu) expect(d.spec?.template.spec?.nodeSelector).toEqual({ [LABEL_POOL]: 'gpu' });
    });

    it('a Job whose pods say how long they run', () => {
      for (const j of w.jobs) expect(Number(j.spec?.template.metadata?.annotations?.[ANNOTATION_SIM_RUN_SECONDS])).toBeGreaterThan(0);
    });

    it('mirror pods on every node, owned by their Node', () => {
      const mirrors = w.pods.filter((p) => p.metadata?.annotations?.[ANNOTATION_CONFIG_MIRROR]);
      expect(new Set(mirrors.map((p) => p.spec?.nodeName)).size).toBe(c.nodes.length);
      for (const p of mirrors) {
        expect(p.metadata?.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: p.spec?.nodeName, uid: '', controller: true }]);
        expect(p.spec?.serviceAccountName).toBeUndefined();
      }
    });

    it('every pod runs the pause image with small requests', () => {
      const all = [...pods, ...w.pods.map((p) => p.spec)];
      for (const spec of all) {
        expect(spec?.containers[0]?.image).toBe('registry.k8s.io/pause:3.10');
        expect(spec?.containers[0]?.resources?.requests?.cpu).toMatch(/^\d+m$/);
      }
    });

    it('every namespace used is generated (or kube-system)', () => {
      const declared = new Set([...c.namespaces.map((n) => n.metadata?.name), 'kube-system']);
      const used = [...w.deployments, ...w.statefulSets, ...w.daemonSets, ...w.jobs, ...w.services, ...w.podDisruptionBudgets, ...w.pods];
      for (const o of used) expect(declared).toContain(o.metadata?.namespace);
    });
  });

  it('counts the pods the controllers will make', () => {
    const c = generateCluster({ profile: 'small', seed: 5 });
    const w = c.workloads;
    const replicas = [...w.deployments, ...w.statefulSets].reduce((n, d) => n + (d.spec?.replicas ?? 0), 0);
    expect(c.expectedPods).toBe(replicas + w.jobs.length + w.daemonSets.length * 6 + w.pods.length);
  });
});

describe('large profile', () => {
  it('prebound by default: 5000 nodes, ~30 bound pods per node yielded lazily, deterministic', () => {
    const c = generateCluster({ profile: 'large', seed: 1 });
    expect(c.nodes).toHaveLength(5000);
    expect(c.nodes[4999]?.metadata?.name).toBe('node-4999');
    expect(c.workloads.deployments).toHaveLength(0);
    expect(c.workloads.daemonSets).toHaveLength(0);
    let count = 0;
    let unbound = 0;
    for (const pod of preboundPods(c)) {
      count++;
      if (!pod.spec?.nodeName) unbound++;
    }
    expect(unbound).toBe(0);
    expect(count / 5000).toBeGreaterThan(29);
    expect(count).toBeLessThanOrEqual(5000 * 30);
    expect(c.expectedPods).toBe(count + 3 + 1);
    const appPods = c.prebound?.apps.reduce((n, a) => n + a.pods, 0) ?? 0;
    expect(appPods).toBeGreaterThan(100_000);
  });

  it('prebound pods are the same for the same seed and have unique names', () => {
    const a = generateCluster({ profile: 'large', seed: 4, nodes: 50 });
    const b = generateCluster({ profile: 'large', seed: 4, nodes: 50 });
    expect(a).toStrictEqual(b);
    const podsA = [...preboundPods(a)];
    expect(podsA).toStrictEqual([...preboundPods(b)]);
    const keys = podsA.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('every prebound app has an integer minAvailable PDB matching its pod count', () => {
    const c = generateCluster({ profile: 'large', seed: 4, nodes: 200 });
    const counts = new Map<string, number>();
    for (const p of preboundPods(c)) {
      const key = `${p.metadata?.namespace}/${p.metadata?.labels?.['app.kubernetes.io/name']}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const app of c.prebound?.apps ?? []) {
      expect(counts.get(`${app.namespace}/${app.name}`)).toBe(app.pods);
      const pdb = c.workloads.podDisruptionBudgets.find((p) => p.metadata?.name === app.name);
      expect(pdb?.spec?.minAvailable).toBe(app.pods - Math.max(1, Math.floor(app.pods / 10)));
    }
  });

  it('controller mode makes the same apps as Deployments', () => {
    const c = generateCluster({ profile: 'large', seed: 4, nodes: 100, prebound: false });
    expect(c.prebound).toBeUndefined();
    expect([...preboundPods(c)]).toHaveLength(0);
    expect(c.workloads.deployments.length).toBeGreaterThan(0);
    expect(c.workloads.daemonSets).toHaveLength(2);
  });
});
