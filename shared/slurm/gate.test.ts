// The drain phase's Slurm gate and cleanup's release, table by table: record before drain, wait for Drained, never
// touch others' drains, never evict blind, undrain only recorded nodes still carrying our prefix.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '../api/index.ts';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmNodeInfo, SlurmProblem } from './client.ts';
import { planSlurmGate, type SlurmGate } from './gate.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START } from './ownership.ts';
import { planSlurmRelease, type SlurmRelease } from './release.ts';
import type { SlurmSettings } from './settings.ts';
import type { SlurmContext } from './view.ts';

const NOW = new Date('2026-01-01T00:00:10Z');
const REASON = 'kmaint: upgrade.acme.com default/nm-1';
const MAINTENANCE = { namespace: 'default', name: 'nm-1' };

const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const POD_MODE: SlurmSettings = { source: 'slurmrestd', url: 'http://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };
const NODE_MODE: SlurmSettings = { ...POD_MODE, mode: 'node', nameFrom: 'label', nameKey: 'slurm/node' };

function nm(annotations: Record<string, string> = {}): NodeMaintenance {
  return { metadata: { name: 'nm-1', namespace: 'default', annotations }, spec: { requestorID: 'upgrade.acme.com', nodeName: 'w1' } };
}
const NODE: V1Node = { metadata: { name: 'w1', labels: { 'slurm/node': 'n3' } } };
function worker(name: string, hostname: string | undefined, labels: Record<string, string> = { 'app.kubernetes.io/name': 'slurmd' }): V1Pod {
  return { metadata: { name, namespace: 'slurm', labels }, spec: { containers: [], ...(hostname ? { hostname } : {}) }, status: { phase: 'Running' } };
}
const PODS = [worker('slurm-n1', 'n1'), worker('web', undefined, { app: 'web' })];
/** Each Slurm node as slurmrestd lists it; the fourth item is Slurm's reason_changed_at (ISO here, Unix seconds there). */
function slurm(nodes: Array<[string, string[], string, string?]>, settings = POD_MODE): SlurmContext {
  const info = ([name, state, reason, setAt]: [string, string[], string, string?]): [string, SlurmNodeInfo] => [name, { name, state, reason, ...(setAt ? { reasonSetAt: Date.parse(setAt) / 1000 } : {}) }];
  return { kind: 'on', settings, view: { kind: 'ok', nodes: new Map(nodes.map(info)) } };
}
function problem(p: SlurmProblem, settings = POD_MODE): SlurmContext {
  return { kind: 'on', settings, view: { kind: 'problem', problem: p } };
}
const DRAIN_N1 = { kind: 'slurmDrain' as const, node: 'n1', reason: REASON, maintenance: MAINTENANCE, why: 'before evicting pod slurm/slurm-n1' };
const STARTED = { [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:00Z' };
const UNREACHABLE: SlurmProblem = { kind: 'unreachable', message: 'cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED' };

interface GateRow {
  rule: string;
  nm: NodeMaintenance;
  pods?: V1Pod[];
  ctx: SlurmContext;
  expected: SlurmGate;
}

const GATE_ROWS: GateRow[] = [
  {
    rule: 'a node without Slurm workers passes at once',
    nm: nm(),
    pods: [worker('web', undefined, { app: 'web' })],
    ctx: slurm([['n1', ['IDLE'], '']]),
    expected: { hold: false, message: '', annotations: {}, writes: [] },
  },
  {
    rule: 'first sight of an undrained Slurm node: record it (and the wait start) before any drain is sent',
    nm: nm(),
    ctx: slurm([['n1', ['ALLOCATED'], '']]),
    expected: { hold: true, message: 'waiting: Slurm node n1 to be drained, state ALLOCATED', annotations: { [ANNOTATION_SLURM_DRAINED]: 'n1', [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:10Z' }, writes: [] },
  },
  {
    rule: 'recorded and not yet drained: send the drain with our reason',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['ALLOCATED'], '']]),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state ALLOCATED', annotations: {}, writes: [DRAIN_N1] },
  },
  {
    rule: 'recorded, DRAIN set, a job still running: wait and say the state',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['ALLOCATED', 'DRAIN'], REASON]]),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN', annotations: {}, writes: [] },
  },
  {
    rule: 'recorded, epilog still running (COMPLETING): wait',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['IDLE', 'DRAIN', 'COMPLETING'], REASON]]),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state IDLE+DRAIN+COMPLETING', annotations: {}, writes: [] },
  },
  {
    rule: 'recorded and Drained: the eviction may go',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['IDLE', 'DRAIN'], REASON]]),
    expected: { hold: false, message: '', annotations: {}, writes: [] },
  },
  {
    rule: "someone else's drain still draining: wait, never record or touch it",
    nm: nm(),
    ctx: slurm([['n1', ['MIXED', 'DRAIN'], 'admin: bad dimm']]),
    expected: { hold: true, message: 'waiting: Slurm node n1 drained by someone else ("admin: bad dimm"), state MIXED+DRAIN', annotations: { [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:10Z' }, writes: [] },
  },
  {
    rule: "Slinky's own drain (slurm-operator:) already Drained: go, without recording it",
    nm: nm(),
    ctx: slurm([['n1', ['IDLE', 'DRAIN'], 'slurm-operator: scale-in']]),
    expected: { hold: false, message: '', annotations: {}, writes: [] },
  },
  {
    rule: 'a worker naming a Slurm node slurmctld does not know: wait with the reason',
    nm: nm(),
    ctx: slurm([['n2', ['IDLE'], '']]),
    expected: { hold: true, message: 'waiting: Slurm node n1 (of pod slurm/slurm-n1) is unknown to slurmctld', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: 'Slurm node n1 (of pod slurm/slurm-n1) is unknown to slurmctld' } },
  },
  {
    rule: 'slurmrestd unreachable: wait (never evict blind)',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: problem(UNREACHABLE),
    expected: { hold: true, message: 'waiting: cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED; nothing is evicted until Slurm node n1 can be drained', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: UNREACHABLE.message } },
  },
  {
    rule: 'slurmrestd unreachable with whenUnreachable: evict: go on, with a warning',
    nm: nm(),
    ctx: problem(UNREACHABLE, { ...POD_MODE, whenUnreachable: 'evict' }),
    expected: { hold: false, message: '', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: `${UNREACHABLE.message}; evicting without a Slurm drain (spec.slurm.whenUnreachable: evict)` } },
  },
  {
    rule: 'a refused token is never bypassed, even with whenUnreachable: evict',
    nm: nm(),
    ctx: problem({ kind: 'token', message: 'listing Slurm nodes: slurmrestd refused the request (401 Authentication failure)' }, { ...POD_MODE, whenUnreachable: 'evict' }),
    expected: { hold: true, message: 'waiting: listing Slurm nodes: slurmrestd refused the request (401 Authentication failure); nothing is evicted until Slurm node n1 can be drained', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: 'listing Slurm nodes: slurmrestd refused the request (401 Authentication failure)' } },
  },
  {
    rule: 'an invalid spec.slurm holds with the field at fault',
    nm: nm(),
    ctx: { kind: 'invalid', problem: 'spec.slurm.url: required when spec.slurm.enabled is true' },
    expected: { hold: true, message: 'waiting: spec.slurm.url: required when spec.slurm.enabled is true', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: 'spec.slurm.url: required when spec.slurm.enabled is true' } },
  },
  {
    rule: 'node mode: the Node label names its Slurm node; every pod waits for it',
    nm: nm(),
    pods: [worker('web', undefined, { app: 'web' })],
    ctx: slurm([['n3', ['IDLE'], '']], NODE_MODE),
    expected: { hold: true, message: 'waiting: Slurm node n3 to be drained, state IDLE', annotations: { [ANNOTATION_SLURM_DRAINED]: 'n3', [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:10Z' }, writes: [] },
  },
  {
    rule: 'pod mode by label: a worker without that label is an error, not a silent skip',
    nm: nm(),
    ctx: slurm([['n1', ['IDLE'], '']], { ...POD_MODE, nameFrom: 'label', nameKey: 'slurm.net/node' }),
    expected: { hold: true, message: 'waiting: Slurm worker pod slurm/slurm-n1 has no label slurm.net/node naming its Slurm node', annotations: {}, writes: [], warning: { eventReason: 'SlurmProblem', message: 'Slurm worker pod slurm/slurm-n1 has no label slurm.net/node naming its Slurm node' } },
  },
  {
    rule: 'drain timeout passed with every drain sent: evict anyway, with a warning',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['ALLOCATED', 'DRAIN'], REASON, '2026-01-01T00:00:00Z']], { ...POD_MODE, drainTimeoutSeconds: 10 }),
    expected: { hold: false, message: '', annotations: {}, writes: [], warning: { eventReason: 'SlurmDrainTimeout', message: 'Slurm drain did not finish within 10 s (Slurm node n1 draining, state ALLOCATED+DRAIN); evicting anyway' } },
  },
  // Issue 40: the wait start on the request is a requestor's to write; the timeout counts from Slurm's own drain time.
  {
    rule: 'issue 40: slurm-drained and an old drain-start-time preset, first pass: the drain is sent, nothing evicted',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', [ANNOTATION_SLURM_DRAIN_START]: '2025-01-01T00:00:00Z' }),
    ctx: slurm([['n1', ['ALLOCATED'], '']], { ...POD_MODE, drainTimeoutSeconds: 10 }),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state ALLOCATED', annotations: {}, writes: [DRAIN_N1] },
  },
  {
    rule: 'issue 40: the pass after (Slurm took the drain 1 s ago): still waiting, the preset year-old start changes nothing',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', [ANNOTATION_SLURM_DRAIN_START]: '2025-01-01T00:00:00Z' }),
    ctx: slurm([['n1', ['ALLOCATED', 'DRAIN'], REASON, '2026-01-01T00:00:09Z']], { ...POD_MODE, drainTimeoutSeconds: 10 }),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN', annotations: {}, writes: [] },
  },
  {
    rule: 'issue 40: a Slurm node with DRAIN but no reason time from Slurm never times out',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', [ANNOTATION_SLURM_DRAIN_START]: '2025-01-01T00:00:00Z' }),
    ctx: slurm([['n1', ['ALLOCATED', 'DRAIN'], REASON]], { ...POD_MODE, drainTimeoutSeconds: 10 }),
    expected: { hold: true, message: 'waiting: Slurm node n1 draining, state ALLOCATED+DRAIN', annotations: {}, writes: [] },
  },
  {
    rule: "someone else's drain set long ago: the timeout counts from when kmaint began waiting (the later of the two)",
    nm: nm({ [ANNOTATION_SLURM_DRAIN_START]: '2026-01-01T00:00:05Z' }),
    ctx: slurm([['n1', ['MIXED', 'DRAIN'], 'admin: bad dimm', '2025-06-01T00:00:00Z']], { ...POD_MODE, drainTimeoutSeconds: 10 }),
    expected: { hold: true, message: 'waiting: Slurm node n1 drained by someone else ("admin: bad dimm"), state MIXED+DRAIN', annotations: {}, writes: [] },
  },
];

describe('planSlurmGate', () => {
  it.each(GATE_ROWS)('$rule', (row) => {
    expect(planSlurmGate(row.nm, NODE, row.pods ?? PODS, row.ctx, NOW)).toEqual(row.expected);
  });
});

interface ReleaseRow {
  rule: string;
  nm: NodeMaintenance;
  ctx: SlurmContext | undefined;
  expected: SlurmRelease;
}

const UNDRAIN = (node: string) => ({ kind: 'slurmUndrain' as const, node, maintenance: MAINTENANCE, why: 'default/nm-1 deleted; kmaint drained it' });

const RELEASE_ROWS: ReleaseRow[] = [
  { rule: 'nothing recorded: nothing to undrain, Slurm need not be read', nm: nm(), ctx: undefined, expected: { kind: 'done', dropAnnotations: [] } },
  {
    rule: 'recorded and still drained with our prefix: undrain, keep the finalizer until it reads undrained',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['IDLE', 'DRAIN'], REASON]]),
    expected: { kind: 'hold', why: 'undraining Slurm node n1', writes: [UNDRAIN('n1')] },
  },
  {
    rule: 'recorded, undrained already (24.11 kept our reason): drop the record',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1', ...STARTED }),
    ctx: slurm([['n1', ['IDLE'], REASON]]),
    expected: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START] },
  },
  {
    rule: 'recorded, but an admin re-drained it with their reason: left alone',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1,n2' }),
    ctx: slurm([['n1', ['IDLE', 'DRAIN'], 'admin: bad dimm'], ['n2', ['IDLE', 'DRAIN'], REASON]]),
    expected: { kind: 'hold', why: 'undraining Slurm node n2', writes: [UNDRAIN('n2')] },
  },
  {
    rule: 'recorded node gone from Slurm: nothing to undrain',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n9' }),
    ctx: slurm([['n1', ['IDLE'], '']]),
    expected: { kind: 'done', dropAnnotations: [ANNOTATION_SLURM_DRAINED] },
  },
  {
    rule: 'slurmrestd unreachable: hold the finalizer and say why',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: problem(UNREACHABLE),
    expected: { kind: 'hold', why: 'cannot undrain Slurm node n1: cannot reach slurmrestd at http://slurm:6820: ECONNREFUSED', writes: [] },
  },
  {
    rule: 'spec.slurm turned off with drains recorded: hold and say how to release',
    nm: nm({ [ANNOTATION_SLURM_DRAINED]: 'n1' }),
    ctx: undefined,
    expected: { kind: 'hold', why: 'spec.slurm is not enabled: cannot undrain Slurm node n1 (drop annotation kmaint.io/slurm-drained to release without undraining)', writes: [] },
  },
];

describe('planSlurmRelease', () => {
  it.each(RELEASE_ROWS)('$rule', (row) => {
    expect(planSlurmRelease(row.nm, row.ctx)).toEqual(row.expected);
  });
});
