// NodeMaintenances that bypassed the CRD's validation (written through an older CRD version, or with validation off):
// wrong types, no spec. They are set apart before any planner sees them, so one such object never stops a pass, and
// the scheduler says on each why kmaint leaves it alone.
import { z } from 'zod';
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY, CONDITION_READY, KMAINT_FIELD_MANAGER, EVENT_REASON_INVALID_MAINTENANCE, FINALIZER, maintenanceRef, nodeMaintenanceSpecSchema, Phase } from '#api';
import type { Action, NodeMaintenance } from '#api';
import { cordonedBy, cordonOwnership, holderFor, sayTheirCordon } from '../lifecycle/index.ts';
import { namespacedName, withReadyCondition } from '../api/index.ts';

export interface MalformedMaintenance {
  nm: NodeMaintenance;
  /** Every problem, `path: what is wrong`, joined by "; ". */
  problem: string;
}

/** What kmaint reads of a status: anything else there is not its business. */
const statusShape = z.looseObject({
  conditions: z.array(z.looseObject({ type: z.string(), status: z.string(), reason: z.string(), message: z.string() })).optional(),
  waitForCompletion: z.array(z.string()).optional(),
  drain: z.looseObject({ waitForEviction: z.array(z.string()).optional() }).optional(),
});
const maintenanceShape = z.looseObject({ spec: nodeMaintenanceSpecSchema, status: statusShape.optional() });

const pathOf = (path: readonly PropertyKey[]): string => path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');

/** The problems of one object, or '' when it is well formed. */
function problemsOf(nm: NodeMaintenance): string {
  const parsed = maintenanceShape.safeParse(nm);
  return parsed.success ? '' : parsed.error.issues.map((i) => `${pathOf(i.path)}: ${i.message}`).join('; ');
}

/**
 * Verdicts by uid and resourceVersion: the API server gives every write a new resourceVersion, so one version of an
 * object always gets the same verdict, and a run (or a long simulation) need not validate an unchanged request again
 * each pass. Bounded: the oldest verdicts go first.
 */
const verdicts = new Map<string, string>();
export const MALFORMED_VERDICTS_KEPT = 20_000;

function cachedProblemsOf(nm: NodeMaintenance): string {
  const { uid, resourceVersion } = nm.metadata ?? {};
  if (!uid || !resourceVersion) return problemsOf(nm);
  const key = `${uid}/${resourceVersion}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const problem = problemsOf(nm);
  if (verdicts.size >= MALFORMED_VERDICTS_KEPT) {
    const oldest = verdicts.keys().next();
    if (oldest.done !== true) verdicts.delete(oldest.value);
  }
  verdicts.set(key, problem);
  return problem;
}

/** Splits a LIST into the objects planners may read and the malformed ones, each with its problems. Input order kept. */
export function setApartMalformed(items: readonly NodeMaintenance[]): { valid: NodeMaintenance[]; malformed: MalformedMaintenance[] } {
  const valid: NodeMaintenance[] = [];
  const malformed: MalformedMaintenance[] = [];
  for (const nm of items) {
    const problem = cachedProblemsOf(nm);
    if (problem === '') valid.push(nm);
    else malformed.push({ nm, problem });
  }
  return { valid, malformed };
}

/** The Ready condition message (and event message) of a malformed request. */
export function malformedMessage(problem: string): string {
  return `invalid NodeMaintenance, kmaint leaves it alone until it is fixed: ${problem}`;
}

/**
 * The CRD's immutability rules (`self == oldSelf` on spec.nodeName and spec.requestorID) cannot evaluate a value of
 * the wrong type, so the API server refuses every write to such an object, its status included: only an event can
 * carry the report, and it is repeated each scheduler pass.
 */
function writable(nm: NodeMaintenance): boolean {
  const spec = (nm as { spec?: unknown }).spec;
  if (spec === undefined || spec === null || typeof spec !== 'object') return true;
  const { nodeName, requestorID } = spec as Record<string, unknown>;
  return (nodeName === undefined || typeof nodeName === 'string') && (requestorID === undefined || typeof requestorID === 'string');
}

/**
 * The scheduler's report on each malformed request not being deleted: a Warning event and the Ready condition
 * carrying the problems (its reason kept, Pending on a new object), once; an event each pass where no write can land.
 * `repeated` counts the actions that say again what an earlier pass said (they are no progress).
 */
export function planMalformedReports(malformed: readonly MalformedMaintenance[], now: Date): { actions: Action[]; repeated: number } {
  const actions: Action[] = [];
  let repeated = 0;
  for (const { nm, problem } of malformed) {
    if (nm.metadata.deletionTimestamp !== undefined) continue;
    const message = malformedMessage(problem);
    const ref = maintenanceRef(nm);
    const event: Action = { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) }, type: 'Warning', eventReason: EVENT_REASON_INVALID_MAINTENANCE, message, reason: 'invalid NodeMaintenance' };
    if (!writable(nm)) {
      actions.push(event);
      repeated++;
      continue;
    }
    const conditions = Array.isArray(nm.status?.conditions) ? nm.status.conditions : [];
    const current = conditions.find((c) => c.type === CONDITION_READY);
    const reason = typeof current?.reason === 'string' && current.reason !== '' ? current.reason : Phase.Pending;
    // Only the conditions survive a status that is itself malformed; the rest is replaced.
    const base = { ...nm, status: { conditions: conditions.filter((c) => typeof c === 'object' && c !== null && typeof c.type === 'string') } };
    const status = withReadyCondition(base, { status: 'False', reason, message }, now);
    if (status === undefined) continue;
    actions.push(event, { kind: 'writeStatus', target: ref, status, reason: 'invalid NodeMaintenance' });
  }
  return { actions, repeated };
}

/**
 * Cleanup of malformed requests being deleted that still carry kmaint's finalizer (a namespace deletion must not hang
 * on them): undo the cordon kmaint recorded for the request — found by the nodes' kmaint.io/cordoned-by record, as the
 * object's own spec cannot be trusted — in the same node patch that drops the record, then remove the finalizer.
 * `nodes` in any order. Pure.
 */
export function planMalformedReleases(malformed: readonly MalformedMaintenance[], nodes: readonly V1Node[]): { actions: Action[]; released: number } {
  const actions: Action[] = [];
  let released = 0;
  for (const { nm } of malformed) {
    if (nm.metadata.deletionTimestamp === undefined || !(nm.metadata.finalizers ?? []).includes(FINALIZER)) continue;
    const ref = maintenanceRef(nm);
    const key = namespacedName(ref);
    const holder = holderFor(nm);
    for (const node of nodes) {
      if (cordonedBy(node) !== holder) continue;
      const nodeRef = { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };
      const dropRecord = { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null };
      // As cleanup's release: a cordon another field manager set after kmaint's (managedFields) stays (cordon-owner.ts).
      const ownership = node.spec?.unschedulable === true ? cordonOwnership(node, KMAINT_FIELD_MANAGER) : undefined;
      actions.push(
        ownership !== undefined && ownership.kind !== 'theirs'
          ? { kind: 'uncordonNode', node: nodeRef, maintenance: ref, annotations: dropRecord, reason: `invalid ${key} deleted; kmaint's cordon record names it` }
          : { kind: 'patchNodeAnnotations', node: nodeRef, annotations: dropRecord, maintenance: ref, reason: `invalid ${key} deleted; drop its cordon record${ownership?.kind === 'theirs' ? `; ${sayTheirCordon(ownership.managers)}` : ''}` },
      );
    }
    actions.push({ kind: 'patchMaintenanceMeta', target: ref, removeFinalizer: true, reason: `invalid ${key} deleted` });
    released++;
  }
  return { actions, released };
}

