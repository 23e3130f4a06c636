// The moves of one Node's scheduled events into its maintenance windows (issue 44 point 4, spec.cloudEvents
// .moveIntoWindows), for the cloud events plan: which events move where, the record on the request that makes each
// move asked once, and the EC2 calls, which follow that record in the request's write unit.
import { ANNOTATION_CLOUD_EVENT_MOVES, EVENT_REASON_CLOUD_EVENT_MOVED, rfc3339Seconds } from '#api';
import type { Action } from '#api';
import type { WindowSet } from '#config';
import type { V1Node } from '@kubernetes/client-node';
import { parseAwsProviderID } from './aws-provider.ts';
import { planEventMove } from './event-move-plan.ts';
import type { ScheduledEvent } from './scheduled-events.ts';

/** What the plan needs to move events: the clock, and each Node's window sets (the cluster's, then its pool's). */
export interface CloudEventMoveInputs {
  now: Date;
  windowsOf: ReadonlyMap<string, readonly WindowSet[]>;
}

export interface NodeMoves {
  /** The events as they will stand: moved ones at their new start, in the plan's order (earliest first). */
  events: ScheduledEvent[];
  /** The request's kmaint.io/cloud-event-moves with this pass's moves added; undefined when it has none. */
  record: string | undefined;
  /** The EC2 calls and their Node events, to follow the request's write. */
  actions: Action[];
  /** One `<event id>: <why>` per event left where it is this pass. */
  kept: string[];
}

/** The event ids a request's kmaint.io/cloud-event-moves names: each was asked once and is never asked again. */
export function recordedMoves(record: string | undefined): Set<string> {
  return new Set((record ?? '').split('\n').map((line) => line.split(' ')[0] ?? '').filter((id) => id !== ''));
}

const byStart = (a: ScheduledEvent, b: ScheduledEvent): number =>
  (a.notBefore?.getTime() ?? Number.POSITIVE_INFINITY) - (b.notBefore?.getTime() ?? Number.POSITIVE_INFINITY) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Plans the moves of `events` (active, of a configured code) of `node`, whose request is `request` and carries
 * `record` (its kmaint.io/cloud-event-moves, if any). An event named in the record is not planned again.
 */
export function planNodeMoves(node: V1Node, events: readonly ScheduledEvent[], record: string | undefined, request: { namespace: string; name: string }, leadSeconds: number, inputs: CloudEventMoveInputs): NodeMoves {
  const name = node.metadata?.name ?? '';
  const providerID = node.spec?.providerID ?? '';
  const instanceId = parseAwsProviderID(providerID)?.instanceId;
  const asked = recordedMoves(record);
  const lines = record ? [record] : [];
  const actions: Action[] = [];
  const kept: string[] = [];
  const moved = events.map((event): ScheduledEvent => {
    if (asked.has(event.id)) return event;
    const plan = instanceId === undefined ? { kind: 'keep' as const, why: 'the Node has no AWS providerID' } : planEventMove(event, inputs.windowsOf.get(name) ?? [], leadSeconds, inputs.now);
    if (plan.kind === 'keep' || instanceId === undefined || event.notBefore === undefined) {
      kept.push(`${event.id || '(no id)'}: ${plan.kind === 'keep' ? plan.why : 'the event has no NotBefore'}`);
      return event;
    }
    const from = rfc3339Seconds(event.notBefore);
    const to = rfc3339Seconds(plan.to);
    lines.push(`${event.id} ${from} -> ${to}`);
    const uid = node.metadata?.uid;
    actions.push(
      { kind: 'moveInstanceEvent', move: { providerID, instanceId, eventId: event.id, nodeName: name, notBefore: to }, request, reason: `${event.code} ${from} -> ${to}, into a maintenance window of node ${name}` },
      {
        kind: 'emitEvent',
        target: { kind: 'Node', namespace: '', name, ...(uid ? { uid } : {}) },
        type: 'Normal',
        eventReason: EVENT_REASON_CLOUD_EVENT_MOVED,
        message: `asked EC2 to move ${event.code} ${event.id} of instance ${instanceId} from ${from} to ${to} (a maintenance window; deadline ${event.notBeforeDeadline ? rfc3339Seconds(event.notBeforeDeadline) : 'none'}); ${request.namespace}/${request.name} is due by then`,
        reason: 'cloud event moved',
      },
    );
    return { ...event, notBefore: plan.to };
  });
  return { events: [...moved].sort(byStart), record: lines.length > 0 ? lines.join('\n') : undefined, actions, kept };
}

/** The annotation patch of the record, when this pass adds to it. */
export function movesAnnotation(moves: NodeMoves, before: string | undefined): Record<string, string> {
  return moves.record !== undefined && moves.record !== before ? { [ANNOTATION_CLOUD_EVENT_MOVES]: moves.record } : {};
}
