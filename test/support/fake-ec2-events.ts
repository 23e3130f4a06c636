// A fake of EC2's scheduled events for tests (behind aws-sdk-client-mock): DescribeInstanceStatus lists what a test set,
// and ModifyInstanceEventStartTime plays the API's real constraints (AWS EC2 user guide "Reschedule a scheduled event"):
// only an event with a NotBeforeDeadline, not started and not starting within 5 minutes, to a new start at least 60
// minutes from now and not after the deadline. A refused move is rejected as EC2 rejects it (a client error) and counted.
import type { InstanceStatus, InstanceStatusEvent, ModifyInstanceEventStartTimeCommandInput, ModifyInstanceEventStartTimeCommandOutput } from '@aws-sdk/client-ec2';

/** EC2's client error shape as the SDK raises it (name = the API's error code). */
export class FakeEc2Error extends Error {
  readonly $fault = 'client';
  constructor(code: string, message: string) {
    super(message);
    this.name = code;
  }
}

export class FakeEc2Events {
  private readonly listed = new Map<string, InstanceStatusEvent[]>();
  /** Every move asked, accepted or not, in order. */
  readonly asked: Array<{ instanceId: string; eventId: string; notBefore: string }> = [];
  /** The refusals, as `<event id>: <message>`. */
  readonly refused: string[] = [];

  constructor(private readonly now: () => Date) {}

  set(instanceId: string, events: InstanceStatusEvent[]): void {
    this.listed.set(instanceId, events.map((e) => ({ ...e })));
  }

  /** DescribeInstanceStatus's InstanceStatuses. */
  statuses(): InstanceStatus[] {
    return [...this.listed].map(([InstanceId, Events]) => ({ InstanceId, AvailabilityZone: 'us-east-1a', InstanceState: { Code: 16, Name: 'running' }, Events: Events.map((e) => ({ ...e })) }));
  }

  /** ModifyInstanceEventStartTime. */
  modify(input: ModifyInstanceEventStartTimeCommandInput): ModifyInstanceEventStartTimeCommandOutput {
    const { InstanceId = '', InstanceEventId = '', NotBefore } = input;
    this.asked.push({ instanceId: InstanceId, eventId: InstanceEventId, notBefore: NotBefore ? new Date(NotBefore).toISOString() : '' });
    const event = this.listed.get(InstanceId)?.find((e) => e.InstanceEventId === InstanceEventId);
    const refuse = (code: string, message: string): never => {
      this.refused.push(`${InstanceEventId}: ${message}`);
      throw new FakeEc2Error(code, message);
    };
    if (event === undefined) return refuse('InvalidParameterValue', `The event ${InstanceEventId} of instance ${InstanceId} does not exist`);
    const now = this.now().getTime();
    const to = NotBefore ? new Date(NotBefore).getTime() : Number.NaN;
    const start = event.NotBefore?.getTime() ?? Number.NaN;
    const deadline = event.NotBeforeDeadline?.getTime();
    if (deadline === undefined) return refuse('InvalidParameterValue', 'Only events with a deadline can be rescheduled');
    if (!(start > now + 5 * 60_000)) return refuse('InvalidParameterValue', 'Events that have started or start within the next 5 minutes cannot be rescheduled');
    if (!(to >= now + 60 * 60_000)) return refuse('InvalidParameterValue', 'The new start time must be at least 60 minutes from the current time');
    if (to > deadline) return refuse('InvalidParameterValue', 'The new start time must not be after the event deadline');
    const length = (event.NotAfter?.getTime() ?? start) - start;
    event.NotBefore = new Date(to);
    if (event.NotAfter) event.NotAfter = new Date(to + length);
    return { Event: { ...event }, $metadata: {} };
  }
}
