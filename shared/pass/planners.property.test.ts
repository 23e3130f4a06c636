// Issue 40, build point 4: one bad object never fails a pass for the others. Every pass's plan (PASSES: the scheduler
// with the config report, malformed reports, deadline reports, Slurm reservations, the node-annotation handshake, or
// the SR-IOV handshake with its protocol on, and cloud events off; the drainer; cleanup with malformed releases and the
// orphan sweep; the reaper) runs over a snapshot of honest requests plus arbitrary hostile ones (arbitrary strings
// such as `a,b`, odd unicode, lists past every bound, bad times, phases no one writes, whole specs of the wrong type),
// after the same split into valid and malformed a pass makes. Each run asserts that no plan throws and that the honest
// requests' actions (by their request or their Node) are exactly those of the run without the hostile ones. Hostile
// requests live in their own namespace and name Nodes no honest request names, so any difference is a leak.
// A fixed seed and numRuns 200 keep it deterministic and to about one second of `npm test`.
import type { V1Node } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_GANG_SIZE, ANNOTATION_NOT_BEFORE, CLOUD_EVENTS_REQUESTOR, FINALIZER, LABEL_GANG, LABEL_REAPER, REAPER_REQUESTOR } from '../api/index.ts';
import type { Action, MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import { loadConfig } from './config.ts';
import { findNodeOrphans } from '../lifecycle/index.ts';
import { loadSriovHandshakeConfig } from '../handshake/index.ts';
import { aMaintenance, aNode, withAdmissionRecords } from '../scheduling/test-builders.ts';
import { setApartMalformed } from './malformed.ts';
import { PASSES } from './passes.ts';
import { ownPodsOf, type BaseSnapshot } from './snapshot.ts';

const NS = 'kmaint';
const NOW = new Date('2026-01-01T00:00:00Z');
const HONEST_NODES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

/** Honest requests in every phase a pass moves: new, Pending, a gang, Scheduled, Draining, Ready, deleted. */
const honest: NodeMaintenance[] = [
  aMaintenance({ name: 'new', nodeName: 'n0', namespace: 'team', phase: '' }),
  aMaintenance({ name: 'pending', nodeName: 'n1', namespace: 'team', created: '2025-12-02T00:00:00Z' }),
  aMaintenance({ name: 'gang-a', nodeName: 'n2', namespace: 'team', labels: { [LABEL_GANG]: 'train' }, annotations: { [ANNOTATION_GANG_SIZE]: '2' } }),
  aMaintenance({ name: 'gang-b', nodeName: 'n3', namespace: 'team', labels: { [LABEL_GANG]: 'train' }, annotations: { [ANNOTATION_GANG_SIZE]: '2' } }),
  { ...aMaintenance({ name: 'scheduled', nodeName: 'n4', namespace: 'team', phase: 'Scheduled' }), spec: { requestorID: 'requestor-a', nodeName: 'n4', cordon: true, drainSpec: { force: true } } },
  aMaintenance({ name: 'ready', nodeName: 'n5', namespace: 'team', phase: 'Ready', annotations: { 'maintenance.nvidia.com/ready-time': '2025-12-31T00:00:00Z' } }),
  aMaintenance({ name: 'deleted', nodeName: 'n6', namespace: 'team', phase: 'Ready', deleting: true }),
];
/** The honest requests past Pending are kmaint's admissions: their Nodes carry kmaint.io/admitted (issue 40). */
const nodes: V1Node[] = withAdmissionRecords(HONEST_NODES.map((name) => ({ ...aNode({ name }), metadata: { name, uid: `uid-${name}`, resourceVersion: '9' } })), honest);
const HONEST_KEYS = new Set(honest.map((nm) => `team/${nm.metadata.name}`));

const CONFIG: MaintenanceOperatorConfig = { metadata: { name: 'default', namespace: NS }, spec: { maxParallelOperations: 4, reaper: { enabled: true, dryRun: true } } };
const SRIOV_CONFIG: MaintenanceOperatorConfig = { metadata: { name: 'default', namespace: NS }, spec: { maxParallelOperations: 4, nodeHandshake: { protocol: 'sriov-network-operator' } } };

/** Strings a requestor may write where kmaint reads one. */
const hostileString = fc.oneof(
  fc.constantFrom('a,b', 'a=b', 'a\\,b', '', ' ', 'A', '-a', 'a..b', 'x'.repeat(300), 'ä', '\u0000', '\u202e', '🙂', 'n0,n1', 'metadata.name=n0'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
/** A time annotation: valid, before creation, far away, or not a time at all. */
const hostileTime = fc.oneof(fc.constantFrom('2000-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '9999-12-31T23:59:59Z', '2026-13-45T99:99:99Z', 'tomorrow', '1e400', ''), hostileString);
const hostileList = fc.oneof(
  fc.array(hostileString, { maxLength: 4 }),
  fc.constant(Array.from({ length: 70 }, (_, i) => `r${i}`)),
  fc.constant(Array.from({ length: 20_000 }, (_, i) => `r${i}`)),
  fc.constant(['same', 'same']),
);
const hostileSpec = fc.oneof(
  { weight: 5, arbitrary: fc.record({
    requestorID: fc.oneof(hostileString, fc.constantFrom(REAPER_REQUESTOR, CLOUD_EVENTS_REQUESTOR, 'attacker.example.com')),
    nodeName: hostileString.filter((s) => !HONEST_NODES.includes(s)),
    additionalRequestors: fc.option(hostileList, { nil: undefined }),
    cordon: fc.option(fc.oneof(fc.boolean(), fc.constant('yes' as unknown as boolean)), { nil: undefined }),
    drainSpec: fc.option(fc.record({ force: fc.boolean(), podSelector: hostileString, timeoutSeconds: fc.integer({ min: -5, max: 2_147_483_647 }), podEvictionFilters: fc.array(fc.record({ byResourceNameRegex: hostileString }), { maxLength: 40 }) }), { nil: undefined }),
    waitForPodCompletion: fc.option(fc.record({ podSelector: hostileString, timeoutSeconds: fc.integer({ min: -5, max: 100 }) }), { nil: undefined }),
  }, { requiredKeys: ['requestorID', 'nodeName'] }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);
const hostileRequest = fc.record({
  spec: hostileSpec,
  phase: fc.oneof(fc.constantFrom('', 'Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Ready', 'RequestorFailed', 'Bogus'), hostileString),
  deadline: fc.option(hostileTime, { nil: undefined }),
  notBefore: fc.option(hostileTime, { nil: undefined }),
  gangSize: fc.option(hostileString, { nil: undefined }),
  gang: fc.option(fc.oneof(fc.constant('train'), hostileString), { nil: undefined }),
  reaperLabel: fc.boolean(),
  deleting: fc.boolean(),
  finalizer: fc.boolean(),
  created: fc.oneof(fc.constant('2025-11-01T00:00:00Z'), hostileTime),
});
type Hostile = typeof hostileRequest extends fc.Arbitrary<infer T> ? T : never;

let generation = 0;

/** The object as a requestor could store it (past a CRD without kmaint's checks); a fresh uid each run (verdict cache). */
function hostileObject(h: Hostile, i: number): NodeMaintenance {
  const annotations: Record<string, string> = {
    ...(h.deadline !== undefined ? { [ANNOTATION_DEADLINE]: h.deadline } : {}),
    ...(h.notBefore !== undefined ? { [ANNOTATION_NOT_BEFORE]: h.notBefore } : {}),
    ...(h.gangSize !== undefined ? { [ANNOTATION_GANG_SIZE]: h.gangSize } : {}),
  };
  const labels: Record<string, string> = { ...(h.gang !== undefined ? { [LABEL_GANG]: h.gang } : {}), ...(h.reaperLabel ? { [LABEL_REAPER]: 'true' } : {}) };
  return {
    metadata: {
      name: `h${i}`,
      namespace: 'hostile',
      uid: `hostile-${generation}-${i}`,
      resourceVersion: '1',
      creationTimestamp: h.created,
      annotations,
      labels,
      ...(h.finalizer ? { finalizers: [FINALIZER] } : {}),
      ...(h.deleting ? { deletionTimestamp: '2025-12-31T00:00:00Z' } : {}),
    },
    spec: h.spec as NodeMaintenance['spec'],
    status: { conditions: [{ type: 'Ready', status: 'False', reason: h.phase, message: '', lastTransitionTime: '2025-12-31T00:00:00Z' }] },
  } as NodeMaintenance;
}

/** Every request and Node an action names. */
function namesOf(a: Action): { requests: string[]; nodes: string[] } {
  const x = a as { target?: { kind?: string; namespace?: string; name?: string }; node?: { name?: string }; maintenance?: { namespace: string; name: string } };
  const requests: string[] = [];
  const touched: string[] = [];
  if (x.target?.name !== undefined && (x.target.kind === undefined || x.target.kind === 'NodeMaintenance')) requests.push(`${x.target.namespace ?? ''}/${x.target.name}`);
  if (x.target?.kind === 'Node' && x.target.name !== undefined) touched.push(x.target.name);
  if (x.maintenance !== undefined) requests.push(`${x.maintenance.namespace}/${x.maintenance.name}`);
  if (x.node?.name !== undefined) touched.push(x.node.name);
  return { requests, nodes: touched };
}

const honestAction = (a: Action): boolean => {
  const { requests, nodes: touched } = namesOf(a);
  return requests.some((k) => HONEST_KEYS.has(k)) || touched.some((n) => HONEST_NODES.includes(n));
};

/** Every pass's plan over `items`, as a pass sees them; the honest requests' actions, pass by pass. */
function planAll(items: readonly NodeMaintenance[]): Record<string, Action[]> {
  const { valid, malformed } = setApartMalformed(items);
  const plans: Record<string, Action[]> = {};
  for (const [label, config] of [['kmaint', CONFIG], ['sriov', SRIOV_CONFIG]] as const) {
    const base: BaseSnapshot = { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), nodeList: nodes, maintenances: valid, malformed, rawConfig: config };
    const parsed = loadConfig(base, nodes.length, NS);
    const common = { base, config: parsed, maintenances: new Map(valid.map((nm) => [`${nm.metadata.namespace ?? ''}/${nm.metadata.name}`, nm])), namespace: NS, now: NOW };
    const sriovConfig = loadSriovHandshakeConfig(config, NS);
    const sriov = sriovConfig === undefined ? ({ off: { namespace: NS } } as const) : { config: sriovConfig, states: [], pools: [] };
    const slurm = { context: undefined };
    const medik8s = { kind: 'absent' } as const;
    const live = new Set([...valid, ...malformed.map((m) => m.nm)].map((nm) => `${nm.metadata.namespace ?? ''}/${nm.metadata.name}`));
    plans[`${label} scheduler`] = PASSES.scheduler.plan({ ...common, reads: { sriov, reservations: { slurm, podsByNode: new Map() } } }).actions;
    plans[`${label} drainer`] = PASSES.drainer.plan({ ...common, reads: { drainPods: { podsByNode: new Map(), pdbs: [], budgetPods: new Map(), claims: [] }, ownPods: ownPodsOf(NS, {}, parsed.upstreamOperatorNamespace), medik8s, slurm } }).actions;
    plans[`${label} cleanup`] = PASSES.cleanup.plan({ ...common, reads: { medik8s, slurm, orphans: findNodeOrphans(nodes, live) } }).actions;
    plans[`${label} reaper`] = PASSES.reaper.plan({ ...common, reads: { providers: new Map() } }).actions;
  }
  return Object.fromEntries(Object.entries(plans).map(([fn, actions]) => [fn, actions.filter(honestAction)]));
}

describe('every planner over honest requests plus arbitrary hostile ones', () => {
  const alone = planAll(honest);

  it('the honest snapshot alone gets work from the scheduler, drainer and cleanup (the property below is not vacuous)', () => {
    expect(['kmaint scheduler', 'kmaint drainer', 'kmaint cleanup'].map((fn) => (alone[fn] ?? []).length > 0)).toEqual([true, true, true]);
  });

  it('no plan throws, and the honest requests get exactly the actions they get without the hostile ones', () => {
    fc.assert(
      fc.property(fc.array(hostileRequest, { minLength: 1, maxLength: 6 }), (hostile) => {
        generation++;
        const items = [...honest, ...hostile.map(hostileObject)];
        expect(planAll(items)).toEqual(alone);
      }),
      { seed: 40, numRuns: 200 },
    );
  });
});
