import { describe, expect, it } from 'vitest';
import { suiteParts } from './suite-parts.ts';

describe('suiteParts: what npm test runs side by side', () => {
  it('both clusters: unit, sim and testbed, each its own vitest; unit and sim yield the CPU to the testbed', () => {
    expect(suiteParts(undefined)).toEqual([
      { label: 'unit', args: ['run', '--project', 'unit'], nice: 5 },
      { label: 'sim', args: ['run', '--project', 'sim'], nice: 5 },
      { label: 'testbed', args: ['run', '--project', 'testbed'], nice: 0 },
    ]);
    expect(suiteParts('')).toEqual(suiteParts(undefined));
  });

  it('KMAINT_TEST_CLUSTER=sim: unit and sim, no testbed, nobody yields', () => {
    expect(suiteParts('sim')).toEqual([
      { label: 'unit', args: ['run', '--project', 'unit'], nice: 0 },
      { label: 'sim', args: ['run', '--project', 'sim'], nice: 0 },
    ]);
  });

  it('KMAINT_TEST_CLUSTER=testbed: unit alone beside the testbed, yielding the CPU to it', () => {
    expect(suiteParts('testbed')).toEqual([
      { label: 'unit', args: ['run', '--project', 'unit'], nice: 5 },
      { label: 'testbed', args: ['run', '--project', 'testbed'], nice: 0 },
    ]);
  });

  it('KMAINT_UNIT_NICE replaces the niceness beside the testbed; anything but 0-19 is refused', () => {
    expect(suiteParts(undefined, '0').map((p) => p.nice)).toEqual([0, 0, 0]);
    expect(suiteParts('testbed', '19').map((p) => p.nice)).toEqual([19, 0]);
    expect(suiteParts('sim', '7').map((p) => p.nice)).toEqual([0, 0]);
    for (const bad of ['20', '-1', '2.5', 'low']) expect(() => suiteParts(undefined, bad)).toThrow(new Error(`KMAINT_UNIT_NICE must be a whole number from 0 to 19, got "${bad}"`));
  });

  it('another value is refused with the one line vitest.config.ts gives', () => {
    expect(() => suiteParts('kind')).toThrow(new Error('KMAINT_TEST_CLUSTER must be one of testbed, sim (or unset for both), got "kind"'));
  });
});
