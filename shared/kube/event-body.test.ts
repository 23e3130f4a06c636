import { describe, expect, it } from 'vitest';
import { EVENT_MESSAGE_MAX, eventBody } from './event-body.ts';

const request = {
  namespace: 'team-a',
  involved: { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', name: 'nm-1', namespace: 'team-a', uid: 'u-1' },
  type: 'Normal' as const,
  reason: 'ConditionChanged',
  message: 'Draining',
  now: new Date('2026-11-22T12:00:00.250Z'),
  component: 'kmaint-drainer',
};

describe('eventBody', () => {
  it('names the event after the object and the suffix, seen once at now, from the component', () => {
    expect(eventBody(request, '19a2b')).toEqual({
      metadata: { name: 'nm-1.19a2b', namespace: 'team-a' },
      involvedObject: { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'NodeMaintenance', name: 'nm-1', namespace: 'team-a', uid: 'u-1' },
      type: 'Normal',
      reason: 'ConditionChanged',
      message: 'Draining',
      source: { component: 'kmaint-drainer' },
      reportingComponent: 'kmaint-drainer',
      reportingInstance: 'kmaint-drainer',
      firstTimestamp: '2026-11-22T12:00:00.250Z',
      lastTimestamp: '2026-11-22T12:00:00.250Z',
      count: 1,
    });
  });

  it(`keeps the first ${EVENT_MESSAGE_MAX} characters of a longer message`, () => {
    const body = eventBody({ ...request, message: 'x'.repeat(EVENT_MESSAGE_MAX) + 'tail' }, 's');
    expect(body.message).toBe('x'.repeat(EVENT_MESSAGE_MAX));
  });
});
