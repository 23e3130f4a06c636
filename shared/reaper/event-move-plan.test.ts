// Where an EC2 scheduled event moves: into the Node's next maintenance window, within EC2's rules, exact times; and the
// moves planned over a table of events, sent through the aws provider to a fake EC2 that plays the API's constraints,
// are never refused.
import { EC2Client, ModifyInstanceEventStartTimeCommand } from '@aws-sdk/client-ec2';
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { compileWindows } from '#config';
import type { WindowSet } from '#config';
import type { MaintenanceWindowSpec } from '#api';
import { FakeEc2Events } from '../../test/support/fake-ec2-events.ts';
import { awsProvider } from './aws-provider.ts';
import { planEventMove, type EventMove } from './event-move-plan.ts';
import type { ScheduledEvent } from './scheduled-events.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const windows = (...specs: MaintenanceWindowSpec[]): WindowSet => compileWindows(specs, 'spec.windows');
const NIGHTLY = windows({ schedule: '0 2 * * *', duration: '4h' });
const SATURDAY_POOL = windows({ schedule: '0 4 * * 6', duration: '3h' });

function anEvent(notBefore: string, deadline?: string): ScheduledEvent {
  return { id: 'instance-event-0123456789abcdef0', code: 'system-reboot', description: 'The instance is scheduled for a reboot', notBefore: new Date(notBefore), ...(deadline ? { notBeforeDeadline: new Date(deadline) } : {}), state: 'active' };
}

describe('planEventMove', () => {
  it.each<{ rule: string; event: ScheduledEvent; sets: WindowSet[]; lead?: number; expected: EventMove }>([
    {
      rule: 'an event after the next window moves into it, an hour (lead) after it opened',
      event: anEvent('2026-01-03T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [NIGHTLY],
      expected: { kind: 'move', to: new Date('2026-01-01T03:00:00Z') },
    },
    {
      rule: 'a pool window narrows the cluster\'s: Saturday 04:00-06:00 UTC is both, so 05:00',
      event: anEvent('2026-01-09T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [NIGHTLY, SATURDAY_POOL],
      expected: { kind: 'move', to: new Date('2026-01-03T05:00:00Z') },
    },
    {
      rule: 'the window\'s time zone counts: 02:00 Berlin is 01:00 UTC in January',
      event: anEvent('2026-01-03T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [windows({ schedule: '0 2 * * *', duration: '4h', timeZone: 'Europe/Berlin' })],
      expected: { kind: 'move', to: new Date('2026-01-01T02:00:00Z') },
    },
    {
      rule: 'lead 0 inside an open window: the earliest EC2 takes, 60 min + 5 min spare, on the minute',
      event: anEvent('2026-01-03T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [windows({ schedule: '0 0 * * *', duration: '4h' })],
      lead: 0,
      expected: { kind: 'move', to: new Date('2026-01-01T01:05:00Z') },
    },
    {
      rule: 'already in a window (open an hour before it too): stays',
      event: anEvent('2026-01-02T04:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [NIGHTLY],
      expected: { kind: 'keep', why: 'its start 2026-01-02T04:00:00Z is already in a maintenance window' },
    },
    {
      rule: 'no NotBeforeDeadline: EC2 does not let it move',
      event: anEvent('2026-01-03T12:00:00Z'),
      sets: [NIGHTLY],
      expected: { kind: 'keep', why: 'EC2 does not let this event move (it has no NotBeforeDeadline)' },
    },
    {
      rule: 'starting within 5 minutes (+5 spare): EC2 no longer moves it',
      event: anEvent('2026-01-01T00:10:00Z', '2026-01-10T00:00:00Z'),
      sets: [NIGHTLY],
      expected: { kind: 'keep', why: 'it starts at 2026-01-01T00:10:00Z, within 10 minutes: EC2 no longer moves it' },
    },
    {
      rule: 'no window fits before the deadline: stays, and says between which times',
      event: anEvent('2026-01-01T01:30:00Z', '2026-01-01T02:30:00Z'),
      sets: [NIGHTLY],
      expected: { kind: 'keep', why: 'no maintenance window (open 3600 s before the start) fits between 2026-01-01T01:05:00Z and its deadline 2026-01-01T02:30:00Z' },
    },
    {
      rule: 'no window applies to the node: nothing to move into',
      event: anEvent('2026-01-03T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [{ kind: 'valid', windows: [] }],
      expected: { kind: 'keep', why: 'no maintenance window applies to the node' },
    },
    {
      rule: 'a window that cannot be used: stays (fail closed), naming it',
      event: anEvent('2026-01-03T12:00:00Z', '2026-01-10T00:00:00Z'),
      sets: [{ kind: 'invalid', problem: 'spec.windows[0].schedule: "nope" is not a valid cron expression' }],
      expected: { kind: 'keep', why: 'a window cannot be used: spec.windows[0].schedule: "nope" is not a valid cron expression' },
    },
  ])('$rule', ({ event, sets, lead, expected }) => {
    expect(planEventMove(event, sets, lead ?? 3600, NOW)).toEqual(expected);
  });
});

describe('planned moves against the fake EC2 (its real constraints)', () => {
  it('every move planned is accepted; the moves kept back are ones EC2 refuses', async () => {
    const ec2 = mockClient(EC2Client);
    const fake = new FakeEc2Events(() => NOW);
    ec2.on(ModifyInstanceEventStartTimeCommand).callsFake((input: Parameters<FakeEc2Events['modify']>[0]) => fake.modify(input));
    const provider = awsProvider({ clients: () => ({ ec2: new EC2Client({ region: 'us-east-1' }), autoScaling: new AutoScalingClient({ region: 'us-east-1' }) }) });
    try {
      // Starts from 5 to 65 minutes out, deadlines from 30 minutes to a day out, under a window every 20 minutes.
      const every20 = windows({ schedule: '*/20 * * * *', duration: '10m' });
      const planned: string[] = [];
      for (let i = 0; i < 24; i++) {
        const id = `instance-event-${String(i).padStart(17, '0')}`;
        const start = new Date(NOW.getTime() + (5 + 5 * (i % 13)) * 60_000);
        const deadline = new Date(NOW.getTime() + (30 + 60 * i) * 60_000);
        const event: ScheduledEvent = { id, code: 'instance-reboot', description: 'reboot', notBefore: start, notBeforeDeadline: deadline, state: 'active' };
        fake.set(`i-0${String(i).padStart(16, '0')}`, [{ InstanceEventId: id, Code: 'instance-reboot', NotBefore: start, NotBeforeDeadline: deadline }]);
        const move = planEventMove(event, [every20], 300, NOW);
        if (move.kind !== 'move') continue;
        planned.push(id);
        await provider.moveEvent?.(`aws:///us-east-1a/i-0${String(i).padStart(16, '0')}`, id, move.to, undefined);
      }
      // 24 events: 4 start within 10 minutes (i = 0, 1, 13, 14) and 5 already start in a window (00:25, 00:45, 01:05).
      expect([planned.length, fake.asked.length, fake.refused]).toEqual([15, 15, []]);
      // What kmaint held back, asked anyway: EC2 refuses it, each for the rule that kept it back.
      await expect(provider.moveEvent?.('aws:///us-east-1a/i-00000000000000000', 'instance-event-00000000000000000', new Date('2026-01-01T02:00:00Z'))).rejects.toThrow('Events that have started or start within the next 5 minutes cannot be rescheduled');
      await expect(provider.moveEvent?.('aws:///us-east-1a/i-00000000000000001', 'instance-event-00000000000000001', new Date('2026-01-01T00:50:00Z'))).rejects.toThrow('The new start time must be at least 60 minutes from the current time');
      await expect(provider.moveEvent?.('aws:///us-east-1a/i-00000000000000001', 'instance-event-00000000000000001', new Date('2026-01-01T01:40:00Z'))).rejects.toThrow('The new start time must not be after the event deadline');
    } finally {
      ec2.restore();
    }
  });
});
