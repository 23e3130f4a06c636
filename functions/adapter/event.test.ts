// The three accepted events, and the documented answer to anything else.
import { describe, expect, it } from 'vitest';
import { InvalidEventError } from './errors.ts';
import { parseKmaintEvent, type KmaintEvent } from './event.ts';
import { aScheduledEvent } from './test-context.ts';

describe('parseKmaintEvent', () => {
  it.each<[string, unknown, KmaintEvent]>([
    ['an EventBridge schedule runs at depth 0', aScheduledEvent(), { kind: 'scheduled', chainDepth: 0, dryRun: false }],
    ['a schedule with fields AWS may add is still a schedule', { ...aScheduledEvent(), 'replay-name': 'r1' }, { kind: 'scheduled', chainDepth: 0, dryRun: false }],
    ['a chain event carries its depth', { source: 'kmaint', chainDepth: 2, from: 'scheduler' }, { kind: 'chain', chainDepth: 2, dryRun: false }],
    ['an empty manual event is one ordinary run', {}, { kind: 'manual', chainDepth: 0, dryRun: false }],
    ['a manual dry run of one pass', { dryRun: true, maxPasses: 1 }, { kind: 'manual', chainDepth: 0, dryRun: true, maxPasses: 1 }],
  ])('%s', (_rule, raw, expected) => {
    expect(parseKmaintEvent(raw)).toEqual(expected);
  });

  it.each<[string, unknown, string, Array<{ path: string; message: string }>]>([
    ['a non-object is refused', 'run', 'invalid event: expected a JSON object (an EventBridge scheduled event, {"source":"kmaint","chainDepth":n}, or {"dryRun"?: boolean, "maxPasses"?: 1..1000}), got string', [{ path: '', message: 'expected an object' }]],
    ['null is refused', null, 'invalid event: expected a JSON object (an EventBridge scheduled event, {"source":"kmaint","chainDepth":n}, or {"dryRun"?: boolean, "maxPasses"?: 1..1000}), got null', [{ path: '', message: 'expected an object' }]],
    ['an unknown source is refused', { source: 'aws.s3' }, 'invalid event: unknown source "aws.s3"; expected an EventBridge scheduled event, {"source":"kmaint","chainDepth":n}, or {"dryRun"?: boolean, "maxPasses"?: 1..1000}', [{ path: 'source', message: 'unknown source' }]],
    ['a manual event with a string dryRun', { dryRun: 'yes' }, 'invalid manual event: dryRun: Invalid input: expected boolean, received string', [{ path: 'dryRun', message: 'Invalid input: expected boolean, received string' }]],
    ['a manual event with maxPasses 0', { maxPasses: 0 }, 'invalid manual event: maxPasses: Too small: expected number to be >=1', [{ path: 'maxPasses', message: 'Too small: expected number to be >=1' }]],
    ['a manual event with an unknown key', { dryrun: true }, 'invalid manual event: Unrecognized key: "dryrun"', [{ path: '', message: 'Unrecognized key: "dryrun"' }]],
    ['a chain event without a depth', { source: 'kmaint' }, 'invalid chain event: chainDepth: Invalid input: expected number, received undefined', [{ path: 'chainDepth', message: 'Invalid input: expected number, received undefined' }]],
    ['a chain event with a fractional depth', { source: 'kmaint', chainDepth: 1.5 }, 'invalid chain event: chainDepth: Invalid input: expected int, received number', [{ path: 'chainDepth', message: 'Invalid input: expected int, received number' }]],
    ['a schedule of another detail-type', { ...aScheduledEvent(), 'detail-type': 'Object Created' }, 'invalid scheduled event: detail-type: Invalid input: expected "Scheduled Event"', [{ path: 'detail-type', message: 'Invalid input: expected "Scheduled Event"' }]],
  ])('%s', (_rule, raw, message, issues) => {
    const err = (() => {
      try {
        parseKmaintEvent(raw);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(InvalidEventError);
    expect([(err as InvalidEventError).message, (err as InvalidEventError).issues]).toEqual([message, issues]);
  });
});
