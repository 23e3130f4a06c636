// The drainer and cleanup with spec.slurm: the Slurm gate sits before every eviction of the drain phase, and cleanup
// lifts only the drains it recorded.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_DRAIN_START, ANNOTATION_INITIAL_UNSCHEDULABLE } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { aPod } from '../drain/test-builders.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START } from '../slurm/index.ts';
import type { SlurmContext, SlurmSettings, SlurmWrite } from '../slurm/index.ts';
import { planCleanup } from './cleanup.ts';
import { planDrainer } from './plan-drainer.ts';
import { aLifecycleMaintenance, aNodeWithUid, LATER, recorded } from './test-builders.ts';

const NODE = 'worker-01';
const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const SETTINGS: SlurmSettings = { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'label', nameKey: 'slurm/node', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };
const WORKER = aPod({ name: 'slurm-n1', labels: { 'app.kubernetes.io/name': 'slurmd', 'slurm/node': 'n1' }, nodeName: NODE });

function draining(annotations: Record<string, string>): NodeMaintenance {
  return aLifecycleMaintenance({
    name: 'nm-1',
    nodeName: NODE,
    phase: 'Draining',
    spec: { drainSpec: { podSelector: '', timeoutSeconds: 0 } },
    annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false', [ANNOTATION_DRAIN_START]: '2026-01-01T00:00:00Z', ...annotations },
  });
}
function slurm(state: string[], reason = ''): SlurmContext {
  return { kind: 'on', settings: SETTINGS, view: { kind: 'ok', nodes: new Map([['n1', { name: 'n1', state, reason }]]) } };
}

interface Row {
  rule: string;
  annotations: Record<string, string>;
  slurm: SlurmContext;
  kinds: string[];
  slurmWrites: SlurmWrite[];
  message: string;
}

const STARTED = { [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:05Z' };
const ROWS: Row[] = [
  {
    rule: 'first pass: the record goes on the request, no drain and no eviction yet',
    annotations: {},
    slurm: slurm(['ALLOCATED']),
    kinds: ['patchMaintenanceMeta', 'writeStatus'],
    slurmWrites: [],
    message: 'waiting: Slurm node n1 to be drained, state ALLOCATED',
  },
  {
    rule: 'recorded: the drain is sent with our reason, the worker stays',
    annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED },
    slurm: slurm(['ALLOCATED']),
    // The first pass of the wait records its kind (kmaint.io/wait-kind: slurm-drain) in the metadata patch.
    kinds: ['patchMaintenanceMeta', 'writeStatus'],
    slurmWrites: [{ kind: 'slurmDrain', node: 'n1', reason: 'kmaint: requestor-a default/nm-1', maintenance: { namespace: 'default', name: 'nm-1' }, why: 'before evicting pod default/slurm-n1' }],
    message: 'waiting: Slurm node n1 draining, state ALLOCATED',
  },
  {
    rule: 'Drained: the worker is evicted',
    annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED },
    slurm: slurm(['IDLE', 'DRAIN'], 'kmaint: requestor-a default/nm-1'),
    kinds: ['evictPod', 'writeStatus'],
    slurmWrites: [],
    message: 'draining: 1 of 1 pods left',
  },
  {
    rule: 'slurmrestd unreachable: no eviction, the message says why, a SlurmProblem event',
    annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED },
    slurm: { kind: 'on', settings: SETTINGS, view: { kind: 'problem', problem: { kind: 'unreachable', message: 'cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED' } } },
    kinds: ['patchMaintenanceMeta', 'writeStatus', 'emitEvent'],
    slurmWrites: [],
    message: 'waiting: cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED; nothing is evicted until Slurm node n1 can be drained',
  },
];

describe('planDrainer with spec.slurm', () => {
  it.each(ROWS)('$rule', (row) => {
    const plan = planDrainer(recorded({ nodes: new Map([[NODE, aNodeWithUid({ name: NODE, unschedulable: true })]]), maintenances: [draining(row.annotations)], podsByNode: new Map([[NODE, [WORKER]]]), pdbs: [], slurm: row.slurm }), LATER);
    const status = plan.actions.find((a) => a.kind === 'writeStatus');
    expect({
      kinds: plan.actions.map((a) => a.kind),
      slurm: plan.slurm,
      message: status?.kind === 'writeStatus' ? status.status.conditions?.find((c) => c.type === 'Ready')?.message : undefined,
      inFlight: plan.inFlight,
    }).toEqual({ kinds: row.kinds, slurm: row.slurmWrites, message: row.message, inFlight: 1 });
  });
});

describe('planCleanup with spec.slurm', () => {
  const deleted = (state: string[], reason: string) => ({
    nm: aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Ready', deleting: true, annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED } }),
    ctx: slurm(state, reason),
  });

  it('a recorded drain still carrying our prefix is undrained first; the finalizer stays until a pass reads it undrained', () => {
    const { nm, ctx } = deleted(['IDLE', 'DRAIN'], 'kmaint: requestor-a default/nm-1');
    const plan = planCleanup({ nodes: new Map([[NODE, aNodeWithUid({ name: NODE })]]), maintenances: [nm], slurm: ctx }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect({ actions: plan.actions, slurm: plan.slurm, held: plan.held, released: plan.released }).toEqual({
      actions: [],
      slurm: [{ kind: 'slurmUndrain', node: 'n1', maintenance: { namespace: 'default', name: 'nm-1' }, why: 'default/nm-1 deleted; kmaint drained it' }],
      held: [{ key: 'default/nm-1', why: 'undraining Slurm node n1' }],
      released: 0,
    });
  });

  it('once undrained (24.11 keeps the reason), the record and the finalizer go in one patch', () => {
    const { nm, ctx } = deleted(['IDLE'], 'kmaint: requestor-a default/nm-1');
    const plan = planCleanup({ nodes: new Map([[NODE, aNodeWithUid({ name: NODE })]]), maintenances: [nm], slurm: ctx }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect({ actions: plan.actions, slurm: plan.slurm, released: plan.released }).toEqual({
      actions: [
        {
          kind: 'patchMaintenanceMeta',
          target: { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' },
          annotations: { [ANNOTATION_SLURM_DRAINED]: null, [ANNOTATION_SLURM_DRAIN_START]: null },
          removeFinalizer: true,
          reason: 'default/nm-1 deleted in phase Ready',
        },
      ],
      slurm: [],
      released: 1,
    });
  });

  it("an admin's drain over ours (other reason) is left in place and the request released", () => {
    const { nm, ctx } = deleted(['IDLE', 'DRAIN'], 'admin: bad dimm');
    const plan = planCleanup({ nodes: new Map([[NODE, aNodeWithUid({ name: NODE })]]), maintenances: [nm], slurm: ctx }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect({ kinds: plan.actions.map((a) => a.kind), slurm: plan.slurm, released: plan.released }).toEqual({ kinds: ['patchMaintenanceMeta'], slurm: [], released: 1 });
  });
});

describe('planCleanup with spec.slurm: the node is gone', () => {
  const gone = (deleting: boolean): NodeMaintenance =>
    aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Ready', deleting, annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED } });
  const ref = { namespace: 'default', name: 'nm-1', resourceVersion: '100', uid: 'uid-nm-1' };

  it.each([
    { rule: 'request deleted, node gone: its Slurm drain is lifted first, the finalizer held', deleting: true },
    { rule: 'request live, node gone: its Slurm drain is lifted first, the finalizer held', deleting: false },
  ])('$rule', ({ deleting }) => {
    const plan = planCleanup({ nodes: new Map(), maintenances: [gone(deleting)], slurm: slurm(['IDLE', 'DRAIN'], 'kmaint: requestor-a default/nm-1') }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect({ actions: plan.actions, slurm: plan.slurm, held: plan.held, released: plan.released }).toEqual({
      actions: [],
      slurm: [{ kind: 'slurmUndrain', node: 'n1', maintenance: { namespace: 'default', name: 'nm-1' }, why: 'default/nm-1 deleted; kmaint drained it' }],
      held: [{ key: 'default/nm-1', why: 'undraining Slurm node n1' }],
      released: 0,
    });
  });

  it('node gone, Slurm drain lifted: the records go with the finalizer in one patch', () => {
    const plan = planCleanup({ nodes: new Map(), maintenances: [gone(true)], slurm: slurm(['IDLE'], 'kmaint: requestor-a default/nm-1') }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect({ actions: plan.actions, slurm: plan.slurm, held: plan.held, released: plan.released }).toEqual({
      actions: [{ kind: 'patchMaintenanceMeta', target: ref, annotations: { [ANNOTATION_SLURM_DRAINED]: null, [ANNOTATION_SLURM_DRAIN_START]: null }, removeFinalizer: true, reason: `node ${NODE} no longer exists` }],
      slurm: [],
      held: [],
      released: 1,
    });
  });

  it('node gone, Slurm cannot be read: the finalizer is held with the reason', () => {
    const ctx: SlurmContext = { kind: 'on', settings: SETTINGS, view: { kind: 'problem', problem: { kind: 'unreachable', message: 'cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED' } } };
    const plan = planCleanup({ nodes: new Map(), maintenances: [gone(false)], slurm: ctx }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    const why = 'cannot undrain Slurm node n1: cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED';
    // Nothing is sent to Slurm, so nothing changes by itself: the request's Ready message says why (README owner table).
    expect({ messages: plan.actions.map(readyMessageOf), slurm: plan.slurm, held: plan.held, released: plan.released }).toEqual({
      messages: [`releasing: ${why}`],
      slurm: [],
      held: [{ key: 'default/nm-1', why }],
      released: 0,
    });
  });
});

/** The Ready condition message a writeStatus action writes ('' for another action). */
function readyMessageOf(a: Action): string {
  return a.kind === 'writeStatus' ? (a.status.conditions?.find((c) => c.type === 'Ready')?.message ?? '') : `(${a.kind})`;
}

describe('planCleanup: a release Slurm holds says why on the request', () => {
  const OFF_WHY = 'spec.slurm is not enabled: cannot undrain Slurm node n1 (drop annotation kmaint.io/slurm-drained to release without undraining)';
  const deleted = (message?: string): NodeMaintenance => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Ready', deleting: true, annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED } });
    if (message === undefined) return nm;
    return { ...nm, status: { ...nm.status, conditions: (nm.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, message } : c)) } };
  };
  const node = new Map([[NODE, aNodeWithUid({ name: NODE })]]);

  it.each([
    { rule: 'spec.slurm turned off: the Ready message names the drain it cannot lift and the way out; status and reason kept', nm: deleted(), ctx: undefined, messages: [`releasing: ${OFF_WHY}`], conditions: [['Ready', 'True', 'Ready']] },
    { rule: 'the same message already there: no write (a second pass over an unchanged cluster writes nothing)', nm: deleted(`releasing: ${OFF_WHY}`), ctx: undefined, messages: [], conditions: [] },
    { rule: 'an undrain sent this pass: no message, the next pass reads the result', nm: deleted(), ctx: slurm(['IDLE', 'DRAIN'], 'kmaint: requestor-a default/nm-1'), messages: [], conditions: [] },
  ])('$rule', ({ nm, ctx, messages, conditions }) => {
    const plan = planCleanup({ nodes: node, maintenances: [nm], ...(ctx ? { slurm: ctx } : {}) }, { maxNodeMaintenanceTimeSeconds: 3600 }, LATER);
    expect(plan.actions.map(readyMessageOf)).toEqual(messages);
    expect(plan.actions.flatMap((a) => (a.kind === 'writeStatus' ? (a.status.conditions ?? []).filter((c) => c.type === 'Ready').map((c) => [c.type, c.status, c.reason]) : []))).toEqual(conditions);
    expect([plan.released, plan.held.length]).toEqual([0, 1]);
  });
});

describe('issue 40: kmaint.io/slurm-drained and an old kmaint.io/slurm-drain-start-time preset by the requestor (drainTimeoutSeconds 10)', () => {
  const preset = draining({ [ANNOTATION_SLURM_DRAINED]: 'n1', [ANNOTATION_SLURM_DRAIN_START]: '2020-01-01T00:00:00Z' });
  const withTimeout = (state: string[], reason: string, reasonSetAt?: number): SlurmContext => ({
    kind: 'on',
    settings: { ...SETTINGS, drainTimeoutSeconds: 10 },
    view: { kind: 'ok', nodes: new Map([['n1', { name: 'n1', state, reason, ...(reasonSetAt !== undefined ? { reasonSetAt } : {}) }]]) },
  });
  const plan = (ctx: SlurmContext, now: Date) => {
    const p = planDrainer(recorded({ nodes: new Map([[NODE, aNodeWithUid({ name: NODE, unschedulable: true })]]), maintenances: [preset], podsByNode: new Map([[NODE, [WORKER]]]), pdbs: [], slurm: ctx }), now);
    return { kinds: p.actions.map((a) => a.kind), slurm: p.slurm.map((w) => w.kind) };
  };
  const REASON = 'kmaint: requestor-a default/nm-1';
  // LATER is 2026-01-01T00:00:10Z: Slurm took the drain at 00:00:09.
  const DRAINED_AT = Date.parse('2026-01-01T00:00:09Z') / 1000;

  it.each([
    { rule: 'the pass that sends the drain evicts nothing', ctx: withTimeout(['ALLOCATED'], ''), now: LATER, expected: { kinds: ['patchMaintenanceMeta', 'writeStatus'], slurm: ['slurmDrain'] } },
    { rule: 'the pass after (Slurm drained 1 s ago) evicts nothing', ctx: withTimeout(['ALLOCATED', 'DRAIN'], REASON, DRAINED_AT), now: LATER, expected: { kinds: ['patchMaintenanceMeta', 'writeStatus'], slurm: [] } },
    { rule: 'nor while Slurm gives no drain time', ctx: withTimeout(['ALLOCATED', 'DRAIN'], REASON), now: new Date('2026-01-02T00:00:00Z'), expected: { kinds: ['patchMaintenanceMeta', 'writeStatus'], slurm: [] } },
    {
      rule: "10 s after Slurm's own drain time the timeout evicts, as configured",
      ctx: withTimeout(['ALLOCATED', 'DRAIN'], REASON, DRAINED_AT),
      now: new Date('2026-01-01T00:00:19Z'),
      expected: { kinds: ['evictPod', 'writeStatus', 'emitEvent'], slurm: [] },
    },
  ])('$rule', ({ ctx, now, expected }) => {
    expect(plan(ctx, now)).toEqual(expected);
  });
});
