import { describe, expect, it } from 'vitest';
import { suiteParts } from './suite-parts.ts';

describe('suiteParts: what npm test runs side by side', () => {
  it('both clusters: unit then sim in one vitest, testbed in the other', () => {
    expect(suiteParts(undefined)).toEqual([
      { label: 'unit+sim', args: ['run', '--project', 'unit', '--project', 'sim'] },
      { label: 'testbed', args: ['run', '--project', 'testbed'] },
    ]);
    expect(suiteParts('')).toEqual(suiteParts(undefined));
  });

  it('KMAINT_TEST_CLUSTER=sim: one vitest, no testbed', () => {
    expect(suiteParts('sim')).toEqual([{ label: 'unit+sim', args: ['run', '--project', 'unit', '--project', 'sim'] }]);
  });

  it('KMAINT_TEST_CLUSTER=testbed: unit alone beside the testbed', () => {
    expect(suiteParts('testbed')).toEqual([
      { label: 'unit', args: ['run', '--project', 'unit'] },
      { label: 'testbed', args: ['run', '--project', 'testbed'] },
    ]);
  });

  it('another value is refused with the one line vitest.config.ts gives', () => {
    expect(() => suiteParts('kind')).toThrow(new Error('KMAINT_TEST_CLUSTER must be one of testbed, sim (or unset for both), got "kind"'));
  });
});
