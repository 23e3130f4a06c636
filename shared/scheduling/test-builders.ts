// Fixtures for scheduling tests: Nodes and NodeMaintenances with only the fields that matter, a planner run that
// always checks the invariants, and the shared table runner (first pass, then a second pass that must write nothing).
import type { V1Node } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { ANNOTATION_ADMITTED, CONDITION_READY, CONDITION_WAITING, Phase, PHASE_UNINITIALIZED, maintenanceKey, maintenancePhase, namespacedName } from '#api';
import type { Action, NodeMaintenance, NodeMaintenanceStatus } from '#api';
import { loadLimits } from '#config';
import type { AdmissionRules } from '#config';
import { checkSchedulingInvariants } from './invariants.ts';
import type { SchedulingLimits } from './limits.ts';
import { planScheduling } from './plan.ts';
import type { SchedulingPlan } from './plan.ts';
import { admissionRecord } from './admission-record.ts';
import { buildSchedulingState, type SchedulingState } from './state.ts';

/** The fixed clock of every scheduling test. */
export const NOW = new Date('2026-01-01T00:00:00Z');
/** When fixtures' existing conditions last flipped. */
export const EARLIER = '2025-12-31T00:00:00Z';

export interface NodeOptions {
  name: string;
  /** spec.unschedulable (cordoned). @default false */
  unschedulable?: boolean;
  /** Status of the Ready node condition; 'absent' leaves it out (counts as ready). @default 'True' */
  ready?: 'True' | 'False' | 'Unknown' | 'absent';
  /** metadata.labels. @default none */
  labels?: Record<string, string>;
}

export function aNode(opts: NodeOptions): V1Node {
  const ready = opts.ready ?? 'True';
  return {
    metadata: { name: opts.name, ...(opts.labels !== undefined ? { labels: opts.labels } : {}) },
    spec: opts.unschedulable === true ? { unschedulable: true } : {},
    status: { conditions: ready === 'absent' ? [] : [{ type: 'Ready', status: ready }] },
  };
}

/** node-01 … node-NN, all ready and schedulable except the names listed as cordoned or not ready. */
export function someNodes(count: number, opts: { cordoned?: string[]; notReady?: string[] } = {}): V1Node[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `node-${String(i + 1).padStart(2, '0')}`;
    return aNode({ name, unschedulable: opts.cordoned?.includes(name) ?? false, ready: opts.notReady?.includes(name) ? 'False' : 'True' });
  });
}

export interface MaintenanceOptions {
  name: string;
  nodeName: string;
  /** @default 'default' */
  namespace?: string;
  /** @default 'requestor-a' */
  requestorID?: string;
  /** Ready condition reason; '' means no Ready condition yet. @default 'Pending' */
  phase?: string;
  /** Ready condition message. @default '' */
  message?: string;
  /** The reason of a kmaint.io/Waiting condition beside Ready (what a waiting request waits on). @default none */
  waitingOn?: string;
  /** @default '2025-12-01T00:00:00Z' */
  created?: string;
  /** Sets deletionTimestamp and keeps the finalizer on. @default false */
  deleting?: boolean;
  /** @default 1 */
  generation?: number;
  /** metadata.annotations (kmaint.io/deadline, kmaint.io/not-before). @default none */
  /** metadata.labels (e.g. kmaint.io/gang). @default none */
  labels?: Record<string, string>;
  /** metadata.annotations. @default none */
  annotations?: Record<string, string>;
}

export function aMaintenance(opts: MaintenanceOptions): NodeMaintenance {
  const phase = opts.phase ?? 'Pending';
  const generation = opts.generation ?? 1;
  return {
    metadata: {
      name: opts.name,
      namespace: opts.namespace ?? 'default',
      uid: `uid-${opts.name}`,
      resourceVersion: '100',
      generation,
      creationTimestamp: opts.created ?? '2025-12-01T00:00:00Z',
      ...(opts.labels !== undefined ? { labels: opts.labels } : {}),
      ...(opts.annotations !== undefined ? { annotations: opts.annotations } : {}),
      ...(opts.deleting === true ? { deletionTimestamp: '2025-12-31T12:00:00Z', finalizers: ['maintenance.nvidia.com/finalizer'] } : {}),
    },
    spec: { requestorID: opts.requestorID ?? 'requestor-a', nodeName: opts.nodeName },
    status:
      phase === PHASE_UNINITIALIZED
        ? {}
        : {
            conditions: [
              {
                type: CONDITION_READY,
                status: phase === 'Ready' ? 'True' : 'False',
                reason: phase,
                message: opts.message ?? '',
                lastTransitionTime: EARLIER,
                observedGeneration: generation,
              },
              ...(opts.waitingOn === undefined
                ? []
                : [{ type: CONDITION_WAITING, status: 'True' as const, reason: opts.waitingOn, message: '', lastTransitionTime: EARLIER, observedGeneration: generation }]),
            ],
          },
  };
}

/** The objects as they would read after the plan's status writes (copies; the inputs are left alone). */
export function withStatusesApplied(maintenances: readonly NodeMaintenance[], actions: readonly Action[]): NodeMaintenance[] {
  const statuses = new Map<string, NodeMaintenanceStatus>();
  for (const action of actions) {
    if (action.kind === 'writeStatus') statuses.set(namespacedName(action.target), action.status);
  }
  return maintenances.map((nm) => {
    const status = statuses.get(maintenanceKey(nm));
    return status === undefined ? nm : { ...nm, status };
  });
}

export function limits(maxParallelOperations: number | null, maxUnavailable: number | 'unlimited' | null, problems?: string[]): SchedulingLimits {
  return { maxParallelOperations, maxUnavailable, ...(problems !== undefined ? { problems } : {}) };
}

/**
 * `base` plus the admission rules of a config `spec` (pools, zones, windows), read by the real loader. A problem
 * that would invalidate the whole config throws: tests of scoped problems still get their rules.
 */
export function withAdmission(base: SchedulingLimits, spec: Record<string, unknown>): SchedulingLimits {
  const loaded = loadLimits({ metadata: { name: 'default', namespace: 'kmaint' }, spec }, 1000);
  if (loaded.problems.length > 0) throw new Error(`spec has problems: ${loaded.problems.join('; ')}`);
  const admission: AdmissionRules | undefined = loaded.config.admission;
  if (admission === undefined) throw new Error('spec uses no admission extension');
  return { ...base, admission };
}

/** The zone label the generated nodes carry. */
export const ZONE = 'topology.kubernetes.io/zone';
/** The pool label the testbed's generated nodes carry (general, gpu, control-plane). */
export const POOL = 'kmaint.io/pool';

/** A ready, schedulable Node labelled with `pool` and `zone` (either left out when undefined). */
export function aPoolNode(name: string, pool: string | undefined, zone: string | undefined, more: Partial<NodeOptions> = {}): V1Node {
  return aNode({ name, labels: { ...(pool !== undefined ? { [POOL]: pool } : {}), ...(zone !== undefined ? { [ZONE]: zone } : {}) }, ...more });
}

/** Where the passes under test run: kmaint's own requests are recognised there (gang-membership.ts). */
export const KMAINT_NAMESPACE = 'kmaint';

/** A request (Pending unless `more.phase` says otherwise) created on day `day` of December 2025. */
export function pending(name: string, nodeName: string, day: number, more: Partial<MaintenanceOptions> = {}): NodeMaintenance {
  return aMaintenance({ name, nodeName, created: `2025-12-${String(day).padStart(2, '0')}T00:00:00Z`, ...more });
}

/**
 * The Nodes with kmaint's admission record (issue 40) for each request a fixture puts past Pending (being deleted or
 * not), as kmaint's scheduler wrote it when it admitted them; a Node that already carries a record keeps it
 * (the first such request by namespace/name gets it). Fixtures of phases a requestor forged build their Nodes by hand.
 */
export function withAdmissionRecords(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[]): V1Node[] {
  const records = new Map<string, string>();
  const sorted = [...maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1));
  for (const nm of sorted) if (![PHASE_UNINITIALIZED, Phase.Pending].includes(maintenancePhase(nm)) && !records.has(nm.spec.nodeName)) records.set(nm.spec.nodeName, admissionRecord(nm));
  return nodes.map((node) => {
    const record = records.get(node.metadata?.name ?? '');
    if (record === undefined || node.metadata?.annotations?.[ANNOTATION_ADMITTED] !== undefined) return node;
    return { ...node, metadata: { ...node.metadata, annotations: { ...node.metadata?.annotations, [ANNOTATION_ADMITTED]: record } } };
  });
}

/** buildSchedulingState over Nodes that carry the records of the fixture's requests in progress (withAdmissionRecords). */
export function recordedState(lists: Parameters<typeof buildSchedulingState>[0]): SchedulingState {
  return buildSchedulingState({ ...lists, nodes: withAdmissionRecords(lists.nodes, lists.maintenances) });
}

/** One planner pass at `now` (default NOW), always followed by the invariant check; requests in progress are kmaint's (withAdmissionRecords). */
export function planChecked(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[], lim: SchedulingLimits, now: Date = NOW): SchedulingPlan {
  const state = recordedState({ nodes, maintenances, kmaintNamespace: KMAINT_NAMESPACE });
  const plan = planScheduling(state, lim, now);
  checkSchedulingInvariants(state, lim, plan, now);
  return plan;
}

export interface PlanRow {
  rule: string;
  nodes: V1Node[];
  maintenances: NodeMaintenance[];
  limits: SchedulingLimits;
  /** key -> Ready condition message, in admission order */
  admitted: Record<string, string>;
  /** key -> why */
  waiting: Record<string, string>;
  blocked: boolean;
  /** @default false */
  idle?: boolean;
  /** The clock of this row. @default NOW */
  now?: Date;
}

function admittedMessages(plan: SchedulingPlan): Record<string, string> {
  const messages: Record<string, string> = {};
  for (const action of plan.actions) {
    if (action.kind === 'writeStatus' && action.phaseTo === 'Scheduled') {
      messages[namespacedName(action.target)] = action.status.conditions?.find((c) => c.type === CONDITION_READY)?.message ?? '';
    }
  }
  return messages;
}

/**
 * The test's own reading of a wait text: which gate its words name, first match wins. The scheduler records the gate as
 * a value where it refuses (kmaint.io/Waiting); every table row checks that value against these words, so a gate
 * recorded for the wrong refusal fails here.
 */
const WORDS_OF_GATES: ReadonlyArray<[RegExp, string]> = [
  [/^maxParallelOperations /, 'Parallel'],
  [/^maxUnavailable /, 'Unavailable'],
  [/^pool \S+(:| admits nothing)/, 'Pool'],
  [/^zone \S+(:| admits nothing)/, 'Zone'],
  [/^window /, 'Window'],
  [/^(not before |request admits nothing: kmaint\.io\/not-before )/, 'NotBefore'],
  [/^(gang \S+ \(\d+ requests?\) |freed slots are held for gang )/, 'Gang'],
  [/^(node \S+ not found|another request for node )/, 'Node'],
  [/^config invalid: /, 'Config'],
  [/^release delay: /, 'ReleaseDelay'],
  [/^blocked/, 'Blocker'],
  [/^(kmaint\.io\/devices|the devices of |kmaint may not read DeviceTaintRules|this cluster does not serve DeviceTaintRules)/, 'Device'],
  [/^waiting for /, 'ExternalPool'],
  [/^(kmaint's CRDs are not in force|cannot tell whether kmaint's CRDs are in force)/, 'Closed'],
  [/^its phase \S+ was not an admission by kmaint/, 'NotAdmitted'],
];

/** The gate the words of `why` name, or 'unknown'. */
export function gateOfWords(why: string): string {
  return WORDS_OF_GATES.find(([words]) => words.test(why))?.[1] ?? 'unknown';
}

/** Every waiting request's recorded gate (SchedulingPlan.waitingOn) is the one its words name. */
export function expectGatesMatchWords(plan: SchedulingPlan): void {
  expect(Object.fromEntries(plan.waiting.map((w) => [w.key, plan.waitingOn.get(w.key)]))).toEqual(Object.fromEntries(plan.waiting.map((w) => [w.key, gateOfWords(w.why)])));
}

/** Each row twice: the plan itself, and a second pass over the written result, which must write nothing. */
export function itPlansEachRow(rows: readonly PlanRow[]): void {
  it.each(rows)('$rule', (row) => {
    const plan = planChecked(row.nodes, row.maintenances, row.limits, row.now);

    expect(plan.admitted).toEqual(Object.keys(row.admitted));
    expect(admittedMessages(plan)).toEqual(row.admitted);
    expect(Object.fromEntries(plan.waiting.map((w) => [w.key, w.why]))).toEqual(row.waiting);
    expectGatesMatchWords(plan);
    expect(plan.blocked).toBe(row.blocked);
    expect(plan.idle).toBe(row.idle ?? false);
  });

  it.each(rows)('second pass over the written result writes nothing: $rule', (row) => {
    const first = planChecked(row.nodes, row.maintenances, row.limits, row.now);
    const second = planChecked(row.nodes, withStatusesApplied(row.maintenances, first.actions), row.limits, row.now);

    expect(second.actions).toEqual([]);
    expect(second.admitted).toEqual([]);
    expect(second.waiting).toEqual(first.waiting);
    expect(second.blocked).toBe(first.blocked);
    expect(second.idle).toBe(!second.blocked);
  });
}
