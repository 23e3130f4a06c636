// Slinky cooperation, table by table: Slinky drains on kmaint's cordon and kmaint records and waits for that drain,
// never lifts it and never calls it foreign; the token-free mode reads Slurm state from Slinky's pod conditions.
import type { V1Node, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_SLINKY_DRAINED, type NodeMaintenance } from '../api/index.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmNodeInfo } from './client.ts';
import { planSlurmGate, type SlurmGate } from './gate.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START } from './ownership.ts';
import { planSlurmRelease } from './release.ts';
import type { SlurmSettings } from './settings.ts';
import { slurmNodeFromConditions } from './slinky.ts';
import type { SlurmContext } from './view.ts';

const NOW = new Date('2026-01-01T00:00:10Z');
const OURS = 'slurm-operator: kmaint: default/nm-1';
const STARTED = { [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:00Z' };
const selector = parseLabelSelector('nodeset.slinky.slurm.net/pod-hostname');
if (!selector.ok) throw new Error(selector.error);
const TOKEN: SlurmSettings = {
  source: 'slurmrestd',
  url: 'http://slurm:6820',
  apiVersion: 'auto',
  tokenEnv: 'SLURM_JWT',
  reasonPrefix: 'kmaint:',
  mode: 'pod',
  podSelector: selector.selector,
  nameFrom: 'label',
  nameKey: 'nodeset.slinky.slurm.net/pod-hostname',
  drainTimeoutSeconds: 0,
  whenUnreachable: 'wait',
};
const TOKEN_FREE: SlurmSettings = { ...TOKEN, source: 'pod-conditions', url: '' };
const { tokenEnv: _unused, ...TOKEN_FREE_SETTINGS } = TOKEN_FREE;

function nm(annotations: Record<string, string> = {}): NodeMaintenance {
  return { metadata: { name: 'nm-1', namespace: 'default', annotations: { ...STARTED, ...annotations } }, spec: { requestorID: 'upgrade.acme.com', nodeName: 'w1' } };
}
const NODE: V1Node = { metadata: { name: 'w1' } };
/** Slinky's condition: status True, no reason, message = the Slurm node reason. */
function cond(suffix: string, message = ''): V1PodCondition {
  return { type: `SlurmNodeState${suffix}`, status: 'True', message };
}
function nodesetPod(conditions: V1PodCondition[] = []): V1Pod {
  return {
    metadata: { name: 'slurm-worker-n1', namespace: 'slurm', labels: { 'nodeset.slinky.slurm.net/pod-hostname': 'n1', 'slinky.slurm.net/cluster': 'slurm' } },
    spec: { containers: [], hostname: 'n1' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, ...conditions] },
  };
}
function rest(state: string[], reason: string): SlurmContext {
  return { kind: 'on', settings: TOKEN, view: { kind: 'ok', nodes: new Map<string, SlurmNodeInfo>([['n1', { name: 'n1', state, reason }]]) } };
}
const TOKEN_FREE_CTX: SlurmContext = { kind: 'on', settings: TOKEN_FREE_SETTINGS, view: { kind: 'pod-conditions' } };
const HOLD = (message: string, annotations: Record<string, string> = {}): SlurmGate => ({ hold: true, message, annotations, writes: [] });
const PASS = (annotations: Record<string, string> = {}): SlurmGate => ({ hold: false, message: '', annotations, writes: [] });

interface Row {
  rule: string;
  nm?: NodeMaintenance;
  pod?: V1Pod;
  ctx: SlurmContext;
  expected: SlurmGate;
}

const ROWS: Row[] = [
  // With slurmrestd (token): kmaint reads Slurm, but on a Slinky node it is Slinky that drains.
  { rule: 'Slinky has not drained yet after the cordon: wait for it, no kmaint drain, no record', ctx: rest(['ALLOCATED'], ''), expected: HOLD('waiting: Slurm node n1 to be drained by Slinky, state ALLOCATED') },
  { rule: "Slinky's own old reason does not freeze it: still Slinky's to drain", ctx: rest(['IDLE'], 'slurm-operator: Pod is terminating'), expected: HOLD('waiting: Slurm node n1 to be drained by Slinky, state IDLE') },
  {
    rule: "Slinky drained for this request (reason names it): recorded in kmaint's own record, waited for",
    ctx: rest(['ALLOCATED', 'DRAIN'], OURS),
    expected: HOLD(`waiting: Slurm node n1 draining by Slinky for this request ("${OURS}"), state ALLOCATED+DRAIN`, { [ANNOTATION_SLINKY_DRAINED]: 'n1' }),
  },
  {
    rule: "after the preStop hook rewrote the reason, kmaint's record still says the drain is Slinky's for this request",
    nm: nm({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }),
    ctx: rest(['MIXED', 'DRAIN'], 'slurm-operator: Pod is terminating'),
    expected: HOLD('waiting: Slurm node n1 draining by Slinky for this request ("slurm-operator: Pod is terminating"), state MIXED+DRAIN'),
  },
  { rule: "Slinky drained it for another cause: cooperating, waited for, never called foreign", ctx: rest(['ALLOCATED', 'DRAIN'], 'slurm-operator: Node (w1) was cordoned, Pod (slurm/slurm-worker-n1) must be cordoned'), expected: HOLD('waiting: Slurm node n1 draining by Slinky ("slurm-operator: Node (w1) was cordoned, Pod (slurm/slurm-worker-n1) must be cordoned"), state ALLOCATED+DRAIN') },
  { rule: 'Drained by Slinky for this request: pass, and the record goes on', ctx: rest(['IDLE', 'DRAIN'], OURS), expected: PASS({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }) },
  { rule: 'Drained, already recorded: pass with nothing to write', nm: nm({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }), ctx: rest(['DOWN', 'DRAIN'], 'slurm-operator: Pod is terminating'), expected: PASS() },
  { rule: "an admin's drain stays foreign on a Slinky node too", ctx: rest(['ALLOCATED', 'DRAIN'], 'admin: bad dimm'), expected: HOLD('waiting: Slurm node n1 drained by someone else ("admin: bad dimm"), state ALLOCATED+DRAIN') },
  {
    rule: 'a foreign reason on an undrained node freezes Slinky: kmaint drains it itself (record first)',
    ctx: rest(['ALLOCATED'], 'admin: was flaky'),
    expected: HOLD('waiting: Slurm node n1 to be drained, state ALLOCATED', { [ANNOTATION_SLURM_DRAINED]: 'n1' }),
  },
  // Token-free: Slurm state from the SlurmNodeState* pod conditions.
  {
    rule: 'token-free: Allocated + Drain with our reason is Draining by Slinky for this request',
    pod: nodesetPod([cond('Allocated', OURS), cond('Drain', OURS)]),
    ctx: TOKEN_FREE_CTX,
    expected: HOLD(`waiting: Slurm node n1 draining by Slinky for this request ("${OURS}"), state ALLOCATED+DRAIN`, { [ANNOTATION_SLINKY_DRAINED]: 'n1' }),
  },
  { rule: 'token-free: Completing keeps it Busy', nm: nm({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }), pod: nodesetPod([cond('Idle', OURS), cond('Completing', OURS), cond('Drain', OURS)]), ctx: TOKEN_FREE_CTX, expected: HOLD(`waiting: Slurm node n1 draining by Slinky for this request ("${OURS}"), state IDLE+COMPLETING+DRAIN`) },
  { rule: 'token-free: Idle + Drain is Drained: pass', pod: nodesetPod([cond('Idle', OURS), cond('Drain', OURS)]), ctx: TOKEN_FREE_CTX, expected: PASS({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }) },
  { rule: 'token-free: Drain with Undrain set is not a drain: Slinky still to drain', pod: nodesetPod([cond('Idle', OURS), cond('Drain', OURS), cond('Undrain', OURS)]), ctx: TOKEN_FREE_CTX, expected: HOLD('waiting: Slurm node n1 to be drained by Slinky, state IDLE+UNDRAIN') },
  {
    rule: 'token-free: no SlurmNodeState condition yet: a problem that names the pod, nothing evicted',
    pod: nodesetPod(),
    ctx: TOKEN_FREE_CTX,
    expected: {
      ...HOLD("waiting: pod slurm/slurm-worker-n1 carries no SlurmNodeState* condition to read Slurm node n1 from (spec.slurm has no url and token, so kmaint reads Slinky's pod conditions)"),
      warning: { eventReason: 'SlurmProblem', message: "pod slurm/slurm-worker-n1 carries no SlurmNodeState* condition to read Slurm node n1 from (spec.slurm has no url and token, so kmaint reads Slinky's pod conditions)" },
    },
  },
  {
    rule: 'token-free: a foreign reason freezes Slinky and kmaint cannot drain: says so',
    pod: nodesetPod([cond('Allocated', 'admin: was flaky')]),
    ctx: TOKEN_FREE_CTX,
    expected: {
      ...HOLD('waiting: Slurm node n1 has a reason Slinky leaves alone ("admin: was flaky"), so Slinky will not drain it, and without slurmrestd url and token kmaint cannot: clear the reason or drain the node by hand'),
      warning: { eventReason: 'SlurmProblem', message: 'Slurm node n1 has a reason Slinky leaves alone ("admin: was flaky"), so Slinky will not drain it, and without slurmrestd url and token kmaint cannot: clear the reason or drain the node by hand' },
    },
  },
];

describe('planSlurmGate on a Slinky-managed node', () => {
  it.each(ROWS)('$rule', (row) => {
    expect(planSlurmGate(row.nm ?? nm(), NODE, [row.pod ?? nodesetPod()], row.ctx, NOW)).toEqual(row.expected);
  });
});

describe('planSlurmRelease and Slinky', () => {
  it("drops kmaint's record of Slinky's drain and never undrains it (Slinky does, on the uncordon)", () => {
    expect(planSlurmRelease(nm({ [ANNOTATION_SLINKY_DRAINED]: 'n1' }), rest(['IDLE', 'DRAIN'], OURS))).toEqual({ kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAIN_START, ANNOTATION_SLINKY_DRAINED] });
  });
  it('token-free: a drain kmaint recorded cannot be lifted: hold, and say how to release', () => {
    expect(planSlurmRelease(nm({ [ANNOTATION_SLURM_DRAINED]: 'n1' }), TOKEN_FREE_CTX)).toEqual({
      kind: 'hold',
      why: 'cannot undrain Slurm node n1: spec.slurm has no slurmrestd url and token (token-free mode); configure them, or drop annotation kmaint.io/slurm-drained to release without undraining',
      writes: [],
    });
  });
});

describe('slurmNodeFromConditions', () => {
  it.each([
    { rule: 'base state first, then flags; the reason from Drain', conditions: [cond('Drain', OURS), cond('Allocated', OURS)], expected: { name: 'n1', state: ['ALLOCATED', 'DRAIN'], reason: OURS } },
    { rule: 'every flag word as slurmrestd spells it', conditions: [cond('Down', 'x'), cond('NotResponding', 'x'), cond('InvalidReg', 'x'), cond('Maintenance', 'x'), cond('Fail', 'x'), cond('Invalid', 'x')], expected: { name: 'n1', state: ['DOWN', 'FAIL', 'INVALID', 'INVALID_REG', 'MAINTENANCE', 'NOT_RESPONDING'], reason: 'x' } },
    { rule: 'conditions of other types and False ones are not Slurm state', conditions: [{ type: 'SlurmNodeStateDrain', status: 'False', message: OURS }, cond('Idle')], expected: { name: 'n1', state: ['IDLE'], reason: '' } },
    { rule: 'no SlurmNodeState condition at all: unknown', conditions: [], expected: undefined },
    {
      rule: "issue 40: when the Drain condition turned True is Slurm's drain time (what the drain timeout counts from)",
      conditions: [{ ...cond('Drain', OURS), lastTransitionTime: new Date('2026-01-01T00:00:07Z') }, { ...cond('Allocated', OURS), lastTransitionTime: new Date('2025-12-01T00:00:00Z') }],
      expected: { name: 'n1', state: ['ALLOCATED', 'DRAIN'], reason: OURS, reasonSetAt: 1767225607 },
    },
  ])('$rule', ({ conditions, expected }) => {
    expect(slurmNodeFromConditions('n1', nodesetPod(conditions))).toEqual(expected);
  });
});
