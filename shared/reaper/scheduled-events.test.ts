// Reading EC2 DescribeInstanceStatus statuses into scheduled events: the shapes of the EC2 API Reference
// (InstanceStatusEvent: InstanceEventId, Code, Description, NotBefore, NotAfter, NotBeforeDeadline), and the
// `[Completed]` / `[Canceled]` description prefixes EC2 marks finished events with (interop-2026.md section 7.1).
import type { InstanceStatus } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { eventsByInstance, eventState } from './scheduled-events.ts';

describe('eventState', () => {
  it.each([
    ['The instance is scheduled for a reboot', 'active'],
    ['Scheduled reboot', 'active'],
    ['The instance is running on degraded hardware', 'active'],
    ['[Completed] The instance is scheduled for a reboot', 'completed'],
    ['[Completed] The instance is running on degraded hardware', 'completed'],
    ['[Canceled] The instance is scheduled for a reboot', 'canceled'],
    ['  [Canceled] leading blanks do not hide the mark', 'canceled'],
    ['Instance will be [Completed] soon: the mark only counts at the start', 'active'],
    ['', 'active'],
  ])('%j is %s', (description, state) => {
    expect(eventState(description)).toBe(state);
  });
});

describe('eventsByInstance', () => {
  it('maps each status to its events, dates kept, state from the description; instances without events get []', () => {
    const statuses: InstanceStatus[] = [
      {
        InstanceId: 'i-1234567890abcdef0',
        AvailabilityZone: 'us-east-1d',
        InstanceState: { Code: 16, Name: 'running' },
        Events: [
          {
            InstanceEventId: 'instance-event-0d59937288b749b32',
            Code: 'system-reboot',
            Description: 'The instance is scheduled for a reboot',
            NotBefore: new Date('2019-11-14T00:00:00.000Z'),
            NotAfter: new Date('2019-11-14T02:00:00.000Z'),
            NotBeforeDeadline: new Date('2019-11-21T00:00:00.000Z'),
          },
          { InstanceEventId: 'instance-event-0e0f0e0f0e0f0e0f0', Code: 'instance-stop', Description: '[Completed] The instance is running on degraded hardware', NotBefore: new Date('2019-11-01T00:00:00.000Z') },
        ],
      },
      { InstanceId: 'i-0598c7d356eba48d7', AvailabilityZone: 'us-east-1d', InstanceState: { Code: 16, Name: 'running' } },
      // A status without an instance id names nothing to map: left out.
      { Events: [{ Code: 'instance-reboot', Description: 'orphan' }] },
    ];
    expect(eventsByInstance(statuses)).toEqual(
      new Map([
        [
          'i-1234567890abcdef0',
          [
            { id: 'instance-event-0d59937288b749b32', code: 'system-reboot', description: 'The instance is scheduled for a reboot', notBefore: new Date('2019-11-14T00:00:00.000Z'), notAfter: new Date('2019-11-14T02:00:00.000Z'), notBeforeDeadline: new Date('2019-11-21T00:00:00.000Z'), state: 'active' },
            { id: 'instance-event-0e0f0e0f0e0f0e0f0', code: 'instance-stop', description: '[Completed] The instance is running on degraded hardware', notBefore: new Date('2019-11-01T00:00:00.000Z'), state: 'completed' },
          ],
        ],
        ['i-0598c7d356eba48d7', []],
      ]),
    );
  });

  it('an event without id, code, description or dates is kept with empty strings and no dates (the plan decides)', () => {
    expect(eventsByInstance([{ InstanceId: 'i-0aaaaaaaaaaaaaaaa', Events: [{ NotBefore: new Date('not a date') }] }])).toEqual(new Map([['i-0aaaaaaaaaaaaaaaa', [{ id: '', code: '', description: '', state: 'active' }]]]));
  });
});
