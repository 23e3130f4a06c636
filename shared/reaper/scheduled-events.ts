// Cloud scheduled events as kmaint reads them: one shape for every provider, and the pure reading of EC2
// DescribeInstanceStatus statuses into it (interop-2026.md section 7.1). No client here: aws-provider.ts calls the API.
import type { InstanceStatus } from '@aws-sdk/client-ec2';

/** Where an event stands: EC2 keeps completed and canceled events listed for up to a week, marked in the description. */
export type ScheduledEventState = 'active' | 'completed' | 'canceled';

export interface ScheduledEvent {
  /** `instance-event-…` (EC2 InstanceEventId); '' when the API gave none. */
  id: string;
  /** `instance-reboot`, `system-reboot`, `system-maintenance`, `instance-retirement`, `instance-stop`, or a code kmaint does not know. */
  code: string;
  description: string;
  /** The earliest start. */
  notBefore?: Date;
  /** The latest end. */
  notAfter?: Date;
  /** The latest start EC2 accepts in a move (ModifyInstanceEventStartTime); only an event with one can be moved. */
  notBeforeDeadline?: Date;
  state: ScheduledEventState;
}

/** What a provider read: events by providerID, and the providerIDs it could not read, with why. */
export interface ScheduledEventsRead {
  /** Every providerID read; an instance without events has []. */
  events: ReadonlyMap<string, readonly ScheduledEvent[]>;
  unread: ReadonlyMap<string, string>;
}

/** EC2 marks a finished event by prefixing its description (`[Completed] …`, `[Canceled] …`); anything else is active. */
export function eventState(description: string): ScheduledEventState {
  const d = description.trimStart();
  if (d.startsWith('[Completed]')) return 'completed';
  if (d.startsWith('[Canceled]') || d.startsWith('[Cancelled]')) return 'canceled';
  return 'active';
}

function validDate(value: Date | undefined): Date | undefined {
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value : undefined;
}

/** The events of each instance in `statuses`, by instance id, in the API's order. */
export function eventsByInstance(statuses: readonly InstanceStatus[]): Map<string, ScheduledEvent[]> {
  const out = new Map<string, ScheduledEvent[]>();
  for (const status of statuses) {
    if (!status.InstanceId) continue;
    const events = (status.Events ?? []).map((e): ScheduledEvent => {
      const description = e.Description ?? '';
      const notBefore = validDate(e.NotBefore);
      const notAfter = validDate(e.NotAfter);
      const notBeforeDeadline = validDate(e.NotBeforeDeadline);
      const times = { ...(notBefore ? { notBefore } : {}), ...(notAfter ? { notAfter } : {}), ...(notBeforeDeadline ? { notBeforeDeadline } : {}) };
      return { id: e.InstanceEventId ?? '', code: e.Code ?? '', description, ...times, state: eventState(description) };
    });
    out.set(status.InstanceId, [...(out.get(status.InstanceId) ?? []), ...events]);
  }
  return out;
}
