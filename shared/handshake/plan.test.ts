// The handshake planner, table-driven: each row's exact writes, then a second plan over the written result, which
// must write nothing (one write per transition, none without one).
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeAction, maintenanceRef } from '#api';
import type { Action, NodeMaintenance } from '#api';
import type { HandshakeConfig } from './config.ts';
import { planHandshake } from './plan.ts';
import { NS, aHandshakeNode, aRequest, afterWrites, configOf } from './test-builders.ts';

const DESIRED = 'kmaint.io/desired-state';
const CURRENT = 'kmaint.io/current-state';
const REQUESTOR = 'kmaint.io/requestor';
const PROBLEM = 'kmaint.io/handshake-problem';
const NODE = { name: 'worker-1', resourceVersion: '7' };
const REQUEST = 'handshake-worker-1';

const CLUSTER_SPEC = { nodeHandshake: { drainSpec: { podSelector: 'sriov=true' } } };
const POOLS_SPEC = {
  pools: [
    { name: 'gpu', nodeSelector: { matchLabels: { pool: 'gpu' } }, nodeHandshake: { drainSpec: { podSelector: 'gpu-dev=true', force: true } } },
    { name: 'cpu', nodeSelector: { matchLabels: { pool: 'cpu' } } },
  ],
};
const CLUSTER_TEMPLATE = { podSelector: 'sriov=true', force: false, timeoutSeconds: 300, deleteEmptyDir: false };
const GPU_TEMPLATE = { podSelector: 'gpu-dev=true', force: true, timeoutSeconds: 300, deleteEmptyDir: false };
const REBOOT = { force: true, deleteEmptyDir: true, timeoutSeconds: 300 };
const NO_CONFIG = configOf(undefined);
const CLUSTER = configOf(CLUSTER_SPEC);
const POOLS_AND_CLUSTER = configOf({ ...POOLS_SPEC, ...CLUSTER_SPEC });
const POOLS_ONLY = configOf(POOLS_SPEC);

function create(intent: string, drainSpec: Record<string, unknown>, source: string, requestorID = 'node-agent.kmaint.io', node = 'worker-1', name = `handshake-${node}`): Action {
  return {
    kind: 'createMaintenance',
    target: { namespace: NS, name },
    labels: { 'kmaint.io/handshake': intent },
    annotations: { 'maintenance.nvidia.com/garbage-collector.ignore': 'true' },
    spec: { requestorID, nodeName: node, cordon: true, drainSpec },
    reason: `node ${node}: kmaint.io/desired-state is ${intent} (drainSpec: ${source})`,
  };
}

/** The Node write; `about` puts it in that request's unit. */
function annotate(annotations: Record<string, string | null>, reason: string, about?: NodeMaintenance | 'new'): Action {
  const maintenance = about === 'new' ? { namespace: NS, name: REQUEST, resourceVersion: '' } : about !== undefined ? maintenanceRef(about) : undefined;
  return { kind: 'patchNodeAnnotations', node: NODE, annotations, ...(maintenance !== undefined ? { maintenance } : {}), reason: `handshake: ${reason}` };
}

function refusedEvent(message: string): Action {
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'worker-1', uid: 'uid-worker-1' }, type: 'Warning', eventReason: 'HandshakeRefused', message, reason: 'handshake refused' };
}

function refusal(problem: string): Action[] {
  return [annotate({ [PROBLEM]: problem }, `${PROBLEM}=refused`), refusedEvent(problem)];
}

function remove(nm: NodeMaintenance, reason: string): Action {
  return { kind: 'deleteMaintenance', target: maintenanceRef(nm), reason };
}

const NO_TEMPLATE = 'Drain_Required needs a drainSpec template choosing the pods to drain: set spec.nodeHandshake.drainSpec in MaintenanceOperatorConfig kmaint/default; no request is created';
const NO_POOL_TEMPLATE =
  'Drain_Required needs a drainSpec template choosing the pods to drain: set spec.nodeHandshake.drainSpec or the nodeHandshake.drainSpec of pool cpu in MaintenanceOperatorConfig kmaint/default; no request is created';
const TYPO = 'kmaint.io/desired-state "Drain_required" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is';

const pendingDrain = aRequest({ phase: 'Pending' });
const newDrain = aRequest({ phase: '' });
const cordoning = aRequest({ phase: 'Cordon' });
const draining = aRequest({ phase: 'Draining' });
const readyDrain = aRequest({ phase: 'Ready' });
const readyReboot = aRequest({ phase: 'Ready', intent: 'Reboot_Required' });
const deletingReady = aRequest({ phase: 'Ready', deleting: true });

interface Row {
  rule: string;
  nodes: V1Node[];
  maintenances?: NodeMaintenance[];
  config?: HandshakeConfig;
  admitted?: string[];
  expected: Action[];
  counts?: { created?: number; deleted?: number; refused?: number };
}

const node = (annotations?: Record<string, string>, labels?: Record<string, string>): V1Node[] => [
  aHandshakeNode({ ...(annotations !== undefined ? { annotations } : {}), ...(labels !== undefined ? { labels } : {}) }),
];

const rows: Row[] = [
  // Nodes that never took part cost nothing.
  { rule: 'a Node without handshake annotations and no request: nothing', nodes: node({ other: 'x' }), config: CLUSTER, expected: [] },
  { rule: 'desired Idle, never any current-state: nothing (absent means Idle)', nodes: node({ [DESIRED]: 'Idle' }), config: CLUSTER, expected: [] },

  // Creating the request: requestor, name and drainSpec.
  {
    rule: 'Drain_Required, cluster-wide template, no requestor annotation: request by node-agent.kmaint.io with the template, Node untouched',
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    config: CLUSTER,
    expected: [create('Drain_Required', CLUSTER_TEMPLATE, 'cluster-wide')],
    counts: { created: 1 },
  },
  {
    rule: "Drain_Required on a Node of a pool with a template: the pool's template wins over the cluster-wide one",
    nodes: node({ [DESIRED]: 'Drain_Required', [REQUESTOR]: 'sriov.example.com' }, { pool: 'gpu' }),
    config: POOLS_AND_CLUSTER,
    expected: [create('Drain_Required', GPU_TEMPLATE, 'pool gpu', 'sriov.example.com')],
    counts: { created: 1 },
  },
  {
    rule: 'Drain_Required on a Node of a pool without a template: the cluster-wide template',
    nodes: node({ [DESIRED]: 'Drain_Required' }, { pool: 'cpu' }),
    config: POOLS_AND_CLUSTER,
    expected: [create('Drain_Required', CLUSTER_TEMPLATE, 'cluster-wide')],
    counts: { created: 1 },
  },
  {
    rule: 'Drain_Required selected by two pools: the first pool in spec order decides',
    nodes: node({ [DESIRED]: 'Drain_Required' }, { pool: 'gpu' }),
    config: configOf({ pools: [...POOLS_SPEC.pools, { name: 'all', nodeSelector: {}, nodeHandshake: { drainSpec: { podSelector: 'x=y' } } }].reverse() }),
    expected: [create('Drain_Required', { podSelector: 'x=y', force: false, timeoutSeconds: 300, deleteEmptyDir: false }, 'pool all')],
    counts: { created: 1 },
  },
  {
    rule: 'Reboot_Required without any config: drains every pod (force, deleteEmptyDir), requestor from the annotation',
    nodes: node({ [DESIRED]: 'Reboot_Required', [REQUESTOR]: 'fw-agent.example.com' }),
    config: NO_CONFIG,
    expected: [create('Reboot_Required', REBOOT, 'reboot: every pod', 'fw-agent.example.com')],
    counts: { created: 1 },
  },
  {
    rule: 'Reboot_Required ignores the templates, even a pool one',
    nodes: node({ [DESIRED]: 'Reboot_Required' }, { pool: 'gpu' }),
    config: POOLS_AND_CLUSTER,
    expected: [create('Reboot_Required', REBOOT, 'reboot: every pod')],
    counts: { created: 1 },
  },
  {
    rule: 'a long Node name: the request name keeps 253 characters, ending in a hash',
    nodes: [aHandshakeNode({ name: `n${'a'.repeat(250)}`, annotations: { [DESIRED]: 'Reboot_Required' } })],
    config: NO_CONFIG,
    expected: [
      create('Reboot_Required', REBOOT, 'reboot: every pod', 'node-agent.kmaint.io', `n${'a'.repeat(250)}`, `handshake-n${'a'.repeat(233)}-3b515697`),
    ],
    counts: { created: 1 },
  },

  // Refusals: a Warning event and the problem recorded on the Node, once.
  {
    rule: 'Drain_Required without any template: refused (Warning event, problem recorded), no request',
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    config: NO_CONFIG,
    expected: refusal(NO_TEMPLATE),
    counts: { refused: 1 },
  },
  {
    rule: 'Drain_Required in a pool without a template and no cluster-wide one: the refusal names both fields',
    nodes: node({ [DESIRED]: 'Drain_Required' }, { pool: 'cpu' }),
    config: POOLS_ONLY,
    expected: refusal(NO_POOL_TEMPLATE),
    counts: { refused: 1 },
  },
  {
    rule: 'an invalid desired-state value: refused, nothing else',
    nodes: node({ [DESIRED]: 'Drain_required' }),
    config: CLUSTER,
    expected: refusal(TYPO),
    counts: { refused: 1 },
  },
  {
    rule: 'an invalid desired-state value leaves an existing request and current-state alone',
    nodes: node({ [DESIRED]: 'drain', [CURRENT]: 'DrainComplete' }),
    maintenances: [readyDrain],
    config: CLUSTER,
    expected: refusal('kmaint.io/desired-state "drain" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is'),
    counts: { refused: 1 },
  },
  {
    rule: 'the same refusal already recorded: no write, no second event',
    nodes: node({ [DESIRED]: 'Drain_required', [PROBLEM]: TYPO }),
    config: CLUSTER,
    expected: [],
  },
  {
    rule: 'an invalid requestor annotation: refused',
    nodes: node({ [DESIRED]: 'Reboot_Required', [REQUESTOR]: 'agent_1' }),
    config: NO_CONFIG,
    expected: refusal('kmaint.io/requestor "agent_1" is not a valid requestorID (2 to 63 characters: dot-separated labels of letters, digits and inner dashes); no request is created'),
    counts: { refused: 1 },
  },
  {
    rule: 'an unreadable config: Drain_Required is refused (fails closed)',
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    config: configOf({ maxParallelOperations: true }),
    expected: refusal('MaintenanceOperatorConfig kmaint/default is invalid (see its Valid condition), so no Drain_Required template is known; no request is created'),
    counts: { refused: 1 },
  },
  {
    rule: "an unreadable config: Reboot_Required needs no template and is created (admission holds it while the config is invalid)",
    nodes: node({ [DESIRED]: 'Reboot_Required' }),
    config: configOf({ maxParallelOperations: true }),
    expected: [create('Reboot_Required', REBOOT, 'reboot: every pod')],
    counts: { created: 1 },
  },
  {
    rule: "a pool selector that cannot be used: no Node's pool is known, Drain_Required is refused",
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    config: configOf({ ...CLUSTER_SPEC, pools: [{ name: 'bad', nodeSelector: { matchLabels: { 'bad key': 'x' } } }] }),
    expected: refusal(
      'MaintenanceOperatorConfig kmaint/default spec.pools[0].nodeSelector cannot be used (invalid label selector: matchLabels["bad key"]: invalid label key "bad key": name part "bad key" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')), so no Node\'s pool is known; no request is created',
    ),
    counts: { refused: 1 },
  },
  {
    rule: "the request's name is taken by a NodeMaintenance that is not a handshake request: refused",
    nodes: node({ [DESIRED]: 'Reboot_Required' }),
    maintenances: [aRequest({ unlabelled: true })],
    config: NO_CONFIG,
    expected: refusal('NodeMaintenance kmaint/handshake-worker-1 is not a handshake request for node worker-1, and its name is the one kmaint uses; no request is created'),
    counts: { refused: 1 },
  },
  {
    rule: 'a request of that name in another namespace is not ours: ours is created',
    nodes: node({ [DESIRED]: 'Reboot_Required' }),
    maintenances: [aRequest({ namespace: 'default', phase: 'Ready' })],
    config: NO_CONFIG,
    expected: [create('Reboot_Required', REBOOT, 'reboot: every pod')],
    counts: { created: 1 },
  },
  {
    rule: 'a refusal recorded, then fixed: the problem is cleared in the same write that precedes the create',
    nodes: node({ [DESIRED]: 'Drain_Required', [PROBLEM]: NO_TEMPLATE }),
    config: CLUSTER,
    expected: [annotate({ [PROBLEM]: null }, `clear ${PROBLEM}`, 'new'), create('Drain_Required', CLUSTER_TEMPLATE, 'cluster-wide')],
    counts: { created: 1 },
  },
  {
    rule: 'desired back to Idle after a refusal: the problem is cleared',
    nodes: node({ [DESIRED]: 'Idle', [PROBLEM]: TYPO }),
    config: CLUSTER,
    expected: [annotate({ [PROBLEM]: null }, `clear ${PROBLEM}`)],
  },

  // Reporting the request: Draining once admitted, DrainComplete once Ready.
  { rule: 'request not initialised yet: nothing', nodes: node({ [DESIRED]: 'Drain_Required' }), maintenances: [newDrain], config: CLUSTER, expected: [] },
  { rule: 'request Pending (waits on a limit): nothing', nodes: node({ [DESIRED]: 'Drain_Required' }), maintenances: [pendingDrain], config: CLUSTER, expected: [] },
  {
    rule: "request admitted by this pass's scheduling: Draining, in the request's unit after its admission",
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    maintenances: [pendingDrain],
    config: CLUSTER,
    admitted: [`${NS}/${REQUEST}`],
    expected: [annotate({ [CURRENT]: 'Draining' }, `${CURRENT}=Draining`, pendingDrain)],
  },
  {
    rule: 'request in progress (Cordon): Draining',
    nodes: node({ [DESIRED]: 'Drain_Required' }),
    maintenances: [cordoning],
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Draining' }, `${CURRENT}=Draining`, cordoning)],
  },
  { rule: 'request Draining, current-state Draining: nothing', nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'Draining' }), maintenances: [draining], config: CLUSTER, expected: [] },
  {
    rule: 'request Ready: DrainComplete',
    nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'Draining' }),
    maintenances: [readyDrain],
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'DrainComplete' }, `${CURRENT}=DrainComplete`, readyDrain)],
  },
  {
    rule: 'request Ready, the config lost its template meanwhile: still DrainComplete (the template matters only at creation)',
    nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'Draining' }),
    maintenances: [readyDrain],
    config: NO_CONFIG,
    expected: [annotate({ [CURRENT]: 'DrainComplete' }, `${CURRENT}=DrainComplete`, readyDrain)],
  },
  { rule: 'request Ready, DrainComplete written: nothing', nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'DrainComplete' }), maintenances: [readyDrain], config: CLUSTER, expected: [] },

  // Back to Idle: delete the request; Idle once cleanup has released it.
  {
    rule: 'desired Idle with the request Ready: delete it, current-state unchanged until it is gone',
    nodes: node({ [DESIRED]: 'Idle', [CURRENT]: 'DrainComplete' }),
    maintenances: [readyDrain],
    config: CLUSTER,
    expected: [remove(readyDrain, 'node worker-1: kmaint.io/desired-state is Idle')],
    counts: { deleted: 1 },
  },
  {
    rule: 'desired-state removed with the request Pending: delete it',
    nodes: node({ [CURRENT]: 'Idle' }),
    maintenances: [pendingDrain],
    config: CLUSTER,
    expected: [remove(pendingDrain, 'node worker-1: kmaint.io/desired-state is unset')],
    counts: { deleted: 1 },
  },
  { rule: 'desired Idle, request being deleted (cleanup has not uncordoned yet): nothing', nodes: node({ [DESIRED]: 'Idle', [CURRENT]: 'DrainComplete' }), maintenances: [deletingReady], config: CLUSTER, expected: [] },
  {
    rule: 'desired Idle, request gone: Idle',
    nodes: node({ [DESIRED]: 'Idle', [CURRENT]: 'DrainComplete' }),
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Idle' }, `${CURRENT}=Idle`)],
  },
  {
    rule: 'desired-state removed, request gone, current-state Draining: Idle',
    nodes: node({ [CURRENT]: 'Draining' }),
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Idle' }, `${CURRENT}=Idle`)],
  },
  { rule: 'desired Idle, current Idle, no request: nothing', nodes: node({ [DESIRED]: 'Idle', [CURRENT]: 'Idle' }), config: CLUSTER, expected: [] },

  // A request that no longer matches, or that someone else deletes: never keep saying DrainComplete.
  {
    rule: 'desired changed from Drain_Required to Reboot_Required after DrainComplete: Draining first, then the request is replaced',
    nodes: node({ [DESIRED]: 'Reboot_Required', [CURRENT]: 'DrainComplete' }),
    maintenances: [readyDrain],
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Draining' }, `${CURRENT}=Draining`, readyDrain), remove(readyDrain, 'node worker-1: kmaint.io/desired-state changed from Drain_Required to Reboot_Required; replacing the request')],
    counts: { deleted: 1 },
  },
  {
    rule: 'desired changed from Reboot_Required to Drain_Required while draining: the request is replaced, Draining stays',
    nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'Draining' }),
    maintenances: [aRequest({ phase: 'Draining', intent: 'Reboot_Required' })],
    config: CLUSTER,
    expected: [remove(aRequest({ phase: 'Draining', intent: 'Reboot_Required' }), 'node worker-1: kmaint.io/desired-state changed from Reboot_Required to Drain_Required; replacing the request')],
    counts: { deleted: 1 },
  },
  {
    rule: 'someone deleted the request while Drain_Required holds: DrainComplete is withdrawn',
    nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'DrainComplete' }),
    maintenances: [deletingReady],
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Draining' }, `${CURRENT}=Draining`)],
  },
  {
    rule: 'the request is gone while Drain_Required holds: DrainComplete withdrawn and a new request, in one unit',
    nodes: node({ [DESIRED]: 'Drain_Required', [CURRENT]: 'DrainComplete' }),
    config: CLUSTER,
    expected: [annotate({ [CURRENT]: 'Draining' }, `${CURRENT}=Draining`, 'new'), create('Drain_Required', CLUSTER_TEMPLATE, 'cluster-wide')],
    counts: { created: 1 },
  },
  {
    rule: 'Reboot_Required with its own request Ready: DrainComplete',
    nodes: node({ [DESIRED]: 'Reboot_Required', [CURRENT]: 'Draining' }),
    maintenances: [readyReboot],
    config: NO_CONFIG,
    expected: [annotate({ [CURRENT]: 'DrainComplete' }, `${CURRENT}=DrainComplete`, readyReboot)],
  },
];

describe('planHandshake', () => {
  it.each(rows)('$rule', (row) => {
    const plan = planHandshake({ nodes: row.nodes, maintenances: row.maintenances ?? [], admittedThisPass: new Set(row.admitted ?? []) }, row.config ?? CLUSTER);
    expect(plan.actions).toEqual(row.expected);
    expect({ created: plan.created, deleted: plan.deleted, refused: plan.refused }).toEqual({ created: 0, deleted: 0, refused: 0, ...row.counts });
    // At most one write to each Node per pass.
    const nodeWrites = plan.actions.filter((a) => a.kind === 'patchNodeAnnotations').map((a) => a.node.name);
    expect(new Set(nodeWrites).size).toBe(nodeWrites.length);
  });

  it.each(rows)('a second pass over the written result writes nothing: $rule', (row) => {
    const config = row.config ?? CLUSTER;
    const first = planHandshake({ nodes: row.nodes, maintenances: row.maintenances ?? [] }, config);
    const after = afterWrites(row.nodes, row.maintenances ?? [], first.actions);
    expect(planHandshake(after, config).actions).toEqual([]);
  });

  it('does not mutate its inputs', () => {
    const nodes = node({ [DESIRED]: 'Reboot_Required', [CURRENT]: 'DrainComplete' });
    const maintenances = [readyDrain];
    const before = structuredClone({ nodes, maintenances });
    planHandshake({ nodes, maintenances }, CLUSTER);
    expect({ nodes, maintenances }).toEqual(before);
  });

  it('plans several Nodes in name order, each on its own', () => {
    const nodes = [
      aHandshakeNode({ name: 'worker-3', annotations: { [DESIRED]: 'Reboot_Required' } }),
      aHandshakeNode({ name: 'worker-1', annotations: { [DESIRED]: 'Idle', [CURRENT]: 'DrainComplete' } }),
      aHandshakeNode({ name: 'worker-2' }),
    ];
    const plan = planHandshake({ nodes, maintenances: [] }, NO_CONFIG);
    expect(plan.actions.map(describeAction)).toEqual([
      'annotate node worker-1 kmaint.io/current-state=Idle: handshake: kmaint.io/current-state=Idle',
      'create kmaint/handshake-worker-3 for node worker-3: node worker-3: kmaint.io/desired-state is Reboot_Required (drainSpec: reboot: every pod)',
    ]);
  });

  it('the whole cycle Idle -> Drain_Required -> Draining -> DrainComplete -> Idle, one Node write per transition', () => {
    const config = CLUSTER;
    const currents: Array<string | undefined> = [];
    const nodeWrites: number[] = [];
    let nodes = node({ [DESIRED]: 'Idle' });
    let maintenances: NodeMaintenance[] = [];
    const step = (admitted: string[] = []): void => {
      const plan = planHandshake({ nodes, maintenances, admittedThisPass: new Set(admitted) }, config);
      ({ nodes, maintenances } = afterWrites(nodes, maintenances, plan.actions));
      nodeWrites.push(plan.actions.filter((a) => a.kind === 'patchNodeAnnotations').length);
      currents.push(nodes[0]?.metadata?.annotations?.[CURRENT]);
    };
    const setDesired = (value: string): void => {
      nodes = nodes.map((n) => ({ ...n, metadata: { ...n.metadata, annotations: { ...n.metadata?.annotations, [DESIRED]: value } } }));
    };
    const setPhase = (phase: string, deleting = false): void => {
      maintenances = maintenances.map((nm) => ({ ...aRequest({ phase, deleting }), metadata: { ...aRequest({ phase, deleting }).metadata, uid: nm.metadata.uid ?? '' } }));
    };
    step(); // Idle: nothing
    setDesired('Drain_Required');
    step(); // request created
    expect(maintenances.map((nm) => [nm.metadata.name, nm.spec.drainSpec])).toEqual([[REQUEST, CLUSTER_TEMPLATE]]);
    setPhase('Pending');
    step([`${NS}/${REQUEST}`]); // admitted this pass: Draining
    setPhase('Draining');
    step(); // nothing new
    setPhase('Ready');
    step(); // DrainComplete
    setDesired('Idle');
    step(); // request deleted (finalizer: being deleted)
    setPhase('Ready', true);
    step(); // cleanup has not released it: nothing
    maintenances = [];
    step(); // gone: Idle
    step(); // nothing
    expect(currents).toEqual([undefined, undefined, 'Draining', 'Draining', 'DrainComplete', 'DrainComplete', 'DrainComplete', 'Idle', 'Idle']);
    expect(nodeWrites).toEqual([0, 0, 1, 0, 1, 0, 0, 1, 0]);
  });
});
