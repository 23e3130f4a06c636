// The node-annotation handshake's pure plan: a Node's kmaint.io/desired-state creates or deletes its request, and
// kmaint.io/current-state reports the request (Idle -> Draining -> DrainComplete -> Idle). One Node write at most
// per Node and pass, none when nothing changed.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CURRENT_STATE,
  ANNOTATION_DESIRED_STATE,
  ANNOTATION_HANDSHAKE_PROBLEM,
  EVENT_REASON_HANDSHAKE_REFUSED,
  HandshakeState,
  Phase,
  isBeingDeleted,
  isInProgress,
  maintenanceKey,
  maintenancePhase,
  maintenanceRef,
} from '#api';
import type { Action, MaintenanceRef, NodeMaintenance } from '#api';
import { drainTemplateFor } from './config.ts';
import type { HandshakeConfig } from './config.ts';
import { REBOOT_DRAIN_SPEC, createRequestAction, handshakeRequestName, isHandshakeRequestFor, requestIntent, requestorOf } from './request.ts';
import type { RequiredState } from './request.ts';

export interface HandshakeSnapshot {
  readonly nodes: readonly V1Node[];
  readonly maintenances: readonly NodeMaintenance[];
  /** Keys (namespace/name) the scheduling plan of this same pass admits: their Node may say Draining at once. */
  readonly admittedThisPass?: ReadonlySet<string>;
}

export interface HandshakePlan {
  actions: Action[];
  /** Requests created, deleted, and Nodes whose desired state was newly refused, in this plan. */
  created: number;
  deleted: number;
  refused: number;
}

/** What one Node's annotations and request call for. */
interface NodeDecision {
  /** The current-state to report; undefined leaves it as it is. */
  report?: string;
  /** Why the desired state cannot be served; undefined when it can (or nothing is asked). */
  problem?: string;
  /** Request writes, in order. */
  requestActions: Action[];
  /** The request the report is about: the Node write joins its unit, after its writes. */
  about?: MaintenanceRef;
}

/** A Node takes part in the handshake while it carries one of these (or has a request). */
const HANDSHAKE_KEYS = [ANNOTATION_DESIRED_STATE, ANNOTATION_CURRENT_STATE, ANNOTATION_HANDSHAKE_PROBLEM] as const;

const REQUIRED: ReadonlySet<string> = new Set([HandshakeState.DrainRequired, HandshakeState.RebootRequired]);

function isRequired(state: string): state is RequiredState {
  return REQUIRED.has(state);
}

/** What is complete no longer is once the request that made it so is gone or going: say Draining, never DrainComplete. */
function withdrawComplete(current: string | undefined): string | undefined {
  return current === HandshakeState.DrainComplete ? HandshakeState.Draining : undefined;
}

function decide(node: V1Node, name: string, request: NodeMaintenance | undefined, taken: NodeMaintenance | undefined, config: HandshakeConfig, admitted: ReadonlySet<string>): NodeDecision {
  const annotations = node.metadata?.annotations ?? {};
  const desired = annotations[ANNOTATION_DESIRED_STATE];
  const current = annotations[ANNOTATION_CURRENT_STATE];
  const live = request !== undefined && !isBeingDeleted(request) ? request : undefined;

  if (desired === undefined || desired === HandshakeState.Idle) {
    if (live !== undefined) {
      // current-state stays until cleanup has uncordoned and released the request.
      return { requestActions: [{ kind: 'deleteMaintenance', target: maintenanceRef(live), reason: `node ${name}: ${ANNOTATION_DESIRED_STATE} is ${desired ?? 'unset'}` }] };
    }
    if (request !== undefined) return { requestActions: [] };
    // No request: Idle, unless the Node never took part (no current-state means Idle already).
    return current !== undefined && current !== HandshakeState.Idle ? { report: HandshakeState.Idle, requestActions: [] } : { requestActions: [] };
  }

  if (!isRequired(desired)) {
    return {
      problem: `${ANNOTATION_DESIRED_STATE} ${JSON.stringify(desired)} is not ${HandshakeState.Idle}, ${HandshakeState.DrainRequired} or ${HandshakeState.RebootRequired}; nothing is done until it is`,
      requestActions: [],
    };
  }

  if (live !== undefined) {
    const ref = maintenanceRef(live);
    if (requestIntent(live) !== desired) {
      // A request drains for one state only: replace it (cleanup uncordons; the next pass creates the new one).
      const withdrawn = withdrawComplete(current);
      return {
        ...(withdrawn !== undefined ? { report: withdrawn } : {}),
        requestActions: [{ kind: 'deleteMaintenance', target: ref, reason: `node ${name}: ${ANNOTATION_DESIRED_STATE} changed from ${requestIntent(live) ?? '?'} to ${desired}; replacing the request` }],
        about: ref,
      };
    }
    const phase = maintenancePhase(live);
    if (phase === Phase.Ready) return { report: HandshakeState.DrainComplete, requestActions: [], about: ref };
    if (isInProgress(live) || admitted.has(maintenanceKey(live))) return { report: HandshakeState.Draining, requestActions: [], about: ref };
    const withdrawn = withdrawComplete(current);
    return { ...(withdrawn !== undefined ? { report: withdrawn } : {}), requestActions: [], about: ref };
  }

  const withdrawn = withdrawComplete(current);
  const report = withdrawn !== undefined ? { report: withdrawn } : {};
  // Being deleted: wait for cleanup to release it; a new one follows.
  if (request !== undefined) return { ...report, requestActions: [] };
  if (taken !== undefined) {
    return { ...report, problem: `NodeMaintenance ${maintenanceKey(taken)} is not a handshake request for node ${name}, and its name is the one kmaint uses; no request is created`, requestActions: [] };
  }
  const requestor = requestorOf(node);
  if (!requestor.ok) return { ...report, problem: `${requestor.problem}; no request is created`, requestActions: [] };
  const template = desired === HandshakeState.RebootRequired ? { ok: true as const, drainSpec: REBOOT_DRAIN_SPEC, source: 'reboot: every pod' } : drainTemplateFor(node, config);
  if (!template.ok) return { ...report, problem: `${template.problem}; no request is created`, requestActions: [] };
  const create = createRequestAction(name, config.namespace, desired, requestor.requestorID, template.drainSpec, `node ${name}: ${ANNOTATION_DESIRED_STATE} is ${desired} (drainSpec: ${template.source})`);
  return { ...report, requestActions: [create], about: { namespace: create.target.namespace, name: create.target.name, resourceVersion: '' } };
}

/** Pure: one decision per Node, in name order. Nodes that never took part in the handshake cost nothing. */
export function planHandshake(snapshot: HandshakeSnapshot, config: HandshakeConfig): HandshakePlan {
  // Handshake requests live in kmaint's namespace only; everything else is other requestors' business.
  const byName = new Map(snapshot.maintenances.filter((nm) => nm.metadata.namespace === config.namespace).map((nm) => [nm.metadata.name, nm]));
  const admitted = snapshot.admittedThisPass ?? new Set<string>();
  const plan: HandshakePlan = { actions: [], created: 0, deleted: 0, refused: 0 };
  const engaged: Array<{ node: V1Node; name: string; holder: NodeMaintenance | undefined }> = [];
  for (const node of snapshot.nodes) {
    const name = node.metadata?.name;
    if (name === undefined) continue;
    const annotations = node.metadata?.annotations ?? {};
    const holder = byName.get(handshakeRequestName(name));
    if (holder === undefined && HANDSHAKE_KEYS.every((key) => annotations[key] === undefined)) continue;
    engaged.push({ node, name, holder });
  }
  engaged.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { node, name, holder } of engaged) {
    const annotations = node.metadata?.annotations ?? {};
    const request = holder !== undefined && isHandshakeRequestFor(holder, name) ? holder : undefined;
    const taken = holder !== undefined && request === undefined ? holder : undefined;
    // An object that merely took the name matters only to a Node that asks for a request.
    if (request === undefined && HANDSHAKE_KEYS.every((key) => annotations[key] === undefined)) continue;

    const decision = decide(node, name, request, taken, config, admitted);
    const patch: Record<string, string | null> = {};
    if (decision.report !== undefined && decision.report !== annotations[ANNOTATION_CURRENT_STATE]) patch[ANNOTATION_CURRENT_STATE] = decision.report;
    const recorded = annotations[ANNOTATION_HANDSHAKE_PROBLEM];
    if (decision.problem !== recorded) patch[ANNOTATION_HANDSHAKE_PROBLEM] = decision.problem ?? null;
    const newlyRefused = decision.problem !== undefined && decision.problem !== recorded;

    if (Object.keys(patch).length > 0) {
      const what = Object.entries(patch).map(([key, value]) => (value === null ? `clear ${key}` : `${key}=${key === ANNOTATION_HANDSHAKE_PROBLEM ? 'refused' : value}`));
      plan.actions.push({
        kind: 'patchNodeAnnotations',
        node: { name, resourceVersion: node.metadata?.resourceVersion ?? '' },
        annotations: patch,
        // A refusal is the Node's own unit (its event must follow the write that records it); a report follows its request.
        ...(decision.about !== undefined && !newlyRefused ? { maintenance: decision.about } : {}),
        reason: `handshake: ${what.join(', ')}`,
      });
    }
    if (newlyRefused) {
      plan.refused++;
      plan.actions.push({
        kind: 'emitEvent',
        target: { kind: 'Node', namespace: '', name, ...(node.metadata?.uid !== undefined ? { uid: node.metadata.uid } : {}) },
        type: 'Warning',
        eventReason: EVENT_REASON_HANDSHAKE_REFUSED,
        message: decision.problem ?? '',
        reason: 'handshake refused',
      });
    }
    for (const action of decision.requestActions) {
      if (action.kind === 'createMaintenance') plan.created++;
      if (action.kind === 'deleteMaintenance') plan.deleted++;
      plan.actions.push(action);
    }
  }
  return plan;
}
