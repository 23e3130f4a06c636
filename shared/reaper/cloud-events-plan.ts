// The pure plan for cloud scheduled events: one request per Node whose instance has an active event of a configured
// code (deadline the earliest NotBefore), kept up to date while events change, deleted once none is left. Only
// kmaint's own (own-requests.ts: its namespace, name, label and requestorID) are ever changed or deleted; a Node whose
// events could not be read is left as is.
import { maintenanceKey } from '../api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CLOUD_EVENT_MOVES,
  ANNOTATION_CLOUD_EVENTS,
  ANNOTATION_DEADLINE,
  ANNOTATION_GC_IGNORE,
  CLOUD_EVENTS_REQUESTOR,
  EVENT_REASON_CLOUD_EVENT_FILED,
  EVENT_REASON_CLOUD_EVENT_GONE,
  EVENT_REASON_CLOUD_EVENTS_UNREAD,
  LABEL_CLOUD_EVENT,
  maintenanceRef,
  rfc3339Seconds,
} from '#api';
import type { Action, NodeMaintenance } from '#api';
import type { CloudEventsConfig } from './cloud-events-config.ts';
import { movesAnnotation, planNodeMoves, type CloudEventMoveInputs } from './cloud-event-moves.ts';
import { cloudEventRequestName, isOwnCloudEventRequest } from './own-requests.ts';
import type { ScheduledEvent, ScheduledEventsRead } from './scheduled-events.ts';

export interface CloudEventsSnapshot {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** kmaint's namespace: requests are filed there. */
  namespace: string;
  /** The config object, for the event saying some instances could not be read. */
  config: { namespace: string; name: string; uid?: string };
  read: ScheduledEventsRead;
  /** With spec.cloudEvents.moveIntoWindows: the clock and each Node's windows. Absent: no event is moved. */
  moves?: CloudEventMoveInputs;
}

export interface CloudEventsPlan {
  actions: Action[];
  filed: number;
  updated: number;
  deleted: number;
  /** Events asked to move into a maintenance window. */
  moved: number;
  /** Nodes whose events could not be read: nothing filed or deleted for them. */
  unread: number;
}

export { cloudEventRequestName } from './own-requests.ts';

/** Active events of a configured code, earliest NotBefore first (none last), then by id: a stable order. */
export function eventsToFile(events: readonly ScheduledEvent[], codes: ReadonlySet<string>): ScheduledEvent[] {
  const start = (e: ScheduledEvent): number => e.notBefore?.getTime() ?? Number.POSITIVE_INFINITY;
  return events.filter((e) => e.state === 'active' && codes.has(e.code)).sort((a, b) => start(a) - start(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The annotations a request for `events` carries: the earliest NotBefore as deadline, and one line per event. */
export function cloudEventAnnotations(events: readonly ScheduledEvent[]): Record<string, string> {
  const first = events[0]?.notBefore;
  const lines = events.map((e) => [e.code, e.id || '(no id)', e.notBefore ? rfc3339Seconds(e.notBefore) : '(no NotBefore)'].join(' '));
  return { ...(first ? { [ANNOTATION_DEADLINE]: rfc3339Seconds(first) } : {}), [ANNOTATION_CLOUD_EVENTS]: lines.join('\n') };
}

function nodeEvent(node: V1Node, eventReason: string, message: string, reason: string): Action {
  const uid = node.metadata?.uid;
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node.metadata?.name ?? '', ...(uid ? { uid } : {}) }, type: 'Normal', eventReason, message, reason };
}

/** Why a Node's request is no longer needed: its events completed, were canceled, or are no longer listed. */
function goneReason(events: readonly ScheduledEvent[], codes: ReadonlySet<string>): string {
  const ours = events.filter((e) => codes.has(e.code));
  if (ours.length === 0) return 'no scheduled event is listed for its instance any more';
  return `its scheduled events are over: ${ours.map((e) => `${e.code} ${e.id || '(no id)'} ${e.state}`).join(', ')}`;
}

/** The writes for one Node with a readable instance: file, update or delete its request. */
function planNode(node: V1Node, events: readonly ScheduledEvent[], own: NodeMaintenance | undefined, snapshot: CloudEventsSnapshot, config: CloudEventsConfig): { actions: Action[]; outcome?: 'filed' | 'updated' | 'deleted'; moved?: number } {
  const name = node.metadata?.name ?? '';
  const toFile = eventsToFile(events, config.codes);
  if (toFile.length === 0) {
    if (!own) return { actions: [] };
    const why = goneReason(events, config.codes);
    const ref = maintenanceKey(own);
    return { actions: [{ kind: 'deleteMaintenance', target: maintenanceRef(own), reason: `cloud event request for node ${name}: ${why}` }, nodeEvent(node, EVENT_REASON_CLOUD_EVENT_GONE, `deleted ${ref}: ${why}`, 'cloud event gone')], outcome: 'deleted' };
  }
  const requestRef = own ? { namespace: own.metadata.namespace ?? snapshot.namespace, name: own.metadata.name } : { namespace: snapshot.namespace, name: cloudEventRequestName(name) };
  const recorded = own?.metadata.annotations?.[ANNOTATION_CLOUD_EVENT_MOVES];
  const moves = config.move && snapshot.moves ? planNodeMoves(node, toFile, recorded, requestRef, config.move.leadSeconds, snapshot.moves) : undefined;
  const annotations = { ...cloudEventAnnotations(moves?.events ?? toFile), ...(moves ? movesAnnotation(moves, recorded) : {}) };
  const kept = moves && moves.kept.length > 0 ? `; not moved into a window: ${moves.kept.join('; ')}` : '';
  const summary = `${toFile.map((e) => e.code).join(', ')}; deadline ${annotations[ANNOTATION_DEADLINE] ?? 'none (no NotBefore)'}`;
  const moveActions = moves?.actions ?? [];
  const moved = moveActions.filter((a) => a.kind === 'moveInstanceEvent').length;
  if (own) {
    const current = own.metadata.annotations ?? {};
    // The record of moves is only ever added to (movesAnnotation gives it only when this pass adds a move).
    const keys = [ANNOTATION_DEADLINE, ANNOTATION_CLOUD_EVENTS, ...(annotations[ANNOTATION_CLOUD_EVENT_MOVES] !== undefined ? [ANNOTATION_CLOUD_EVENT_MOVES] : [])];
    const changed = keys.filter((k) => current[k] !== annotations[k]);
    if (changed.length === 0) return { actions: [], moved };
    const patch: Record<string, string | null> = Object.fromEntries(changed.map((k) => [k, annotations[k] ?? null]));
    return { actions: [{ kind: 'patchMaintenanceMeta', target: maintenanceRef(own), annotations: patch, reason: `cloud events of node ${name} changed: ${summary}${kept}` }, ...moveActions], outcome: 'updated', moved };
  }
  return {
    actions: [
      {
        kind: 'createMaintenance',
        target: requestRef,
        labels: { [LABEL_CLOUD_EVENT]: 'true' },
        // Held Ready until the event is over: kmaint deletes it then, so garbage collection must leave it.
        annotations: { ...annotations, [ANNOTATION_GC_IGNORE]: 'true' },
        spec: { requestorID: CLOUD_EVENTS_REQUESTOR, nodeName: name, cordon: true, drainSpec: config.drainSpec },
        reason: `node ${name} has scheduled events: ${summary}`,
      },
      ...moveActions,
      nodeEvent(node, EVENT_REASON_CLOUD_EVENT_FILED, `filed ${requestRef.namespace}/${requestRef.name} for scheduled ${summary}${kept}`, 'cloud event filed'),
    ],
    outcome: 'filed',
    moved,
  };
}

/**
 * Plans one pass over cloud scheduled events. Nodes whose providerID was read get a request while an active event of
 * a configured code is listed, updated when the events change, deleted when none is left; a request of ours whose
 * Node is gone is deleted; unread Nodes are left as they are and reported once per pass on the config object.
 * Pure: inputs are not mutated.
 */
export function planCloudEvents(snapshot: CloudEventsSnapshot, config: CloudEventsConfig): CloudEventsPlan {
  const plan: CloudEventsPlan = { actions: [], filed: 0, updated: 0, deleted: 0, moved: 0, unread: 0 };
  const own = new Map<string, NodeMaintenance>();
  for (const nm of [...snapshot.maintenances].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    if (isOwnCloudEventRequest(nm, snapshot.namespace) && !nm.metadata.deletionTimestamp && !own.has(nm.spec.nodeName)) own.set(nm.spec.nodeName, nm);
  }
  const nodes = [...snapshot.nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const unread: string[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const providerID = node.spec?.providerID ?? '';
    const why = snapshot.read.unread.get(providerID);
    if (why !== undefined) unread.push(`${name}: ${why}`);
    const events = why === undefined ? snapshot.read.events.get(providerID) : undefined;
    if (events === undefined) continue;
    const one = planNode(node, events, own.get(name), snapshot, config);
    plan.actions.push(...one.actions);
    if (one.outcome) plan[one.outcome] += 1;
    plan.moved += one.moved ?? 0;
  }
  const names = new Set(nodes.map((n) => n.metadata?.name ?? ''));
  for (const [node, nm] of own) {
    if (names.has(node)) continue;
    plan.actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `cloud event request for node ${node}: the node is gone` });
    plan.deleted += 1;
  }
  plan.unread = unread.length;
  if (unread.length > 0) {
    const { config: target } = snapshot;
    const message = `scheduled events of ${unread.length} node(s) could not be read, nothing filed or deleted for them this pass: ${unread.slice(0, 3).join('; ')}${unread.length > 3 ? '; …' : ''}`;
    plan.actions.push({ kind: 'emitEvent', target: { kind: 'MaintenanceOperatorConfig', ...target }, type: 'Warning', eventReason: EVENT_REASON_CLOUD_EVENTS_UNREAD, message, reason: 'cloud events unread' });
  }
  return plan;
}
