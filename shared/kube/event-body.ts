// The body of a core/v1 Event kmaint records, built once for every client (the HTTP one and the in-process one the
// what-if simulation uses), so both clusters see the same fields.

export interface EventRequest {
  namespace: string;
  involved: { apiVersion: string; kind: string; name: string; namespace: string; uid?: string };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  now: Date;
  component: string;
}

/** Longest message kept: the API server refuses longer ones. */
export const EVENT_MESSAGE_MAX = 1024;

/** An Event named `<involved name>.<suffix>` (the suffix makes it unique), first and last seen `now`, count 1. */
export function eventBody(event: EventRequest, suffix: string) {
  const ts = event.now.toISOString();
  return {
    metadata: { name: `${event.involved.name}.${suffix}`, namespace: event.namespace },
    involvedObject: event.involved,
    type: event.type,
    reason: event.reason,
    message: event.message.slice(0, EVENT_MESSAGE_MAX),
    source: { component: event.component },
    reportingComponent: event.component,
    reportingInstance: event.component,
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
  };
}
