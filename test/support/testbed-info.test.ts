// The testbed project's settings read from the environment and the machine (test/support/testbed-info.ts).
import { describe, expect, it } from 'vitest';
import { controlPlaneProcs, testbedCount } from './testbed-info.ts';

describe('controlPlaneProcs', () => {
  it.each<[number, number, number]>([
    [4, 2, 1],
    [1, 2, 2],
    [2, 2, 1],
    [3, 2, 1],
    [4, 8, 2],
    [3, 8, 2],
    [4, 1, 1],
  ])('%i testbeds on %i cores: GOMAXPROCS %i', (testbeds, cores, procs) => {
    expect(controlPlaneProcs(testbeds, cores)).toBe(procs);
  });
});

describe('testbedCount', () => {
  it.each<[string | undefined, number]>([
    [undefined, 4],
    ['', 4],
    ['1', 1],
    ['4', 4],
  ])('KMAINT_TESTBEDS=%s: %i', (raw, n) => {
    expect(testbedCount(raw === undefined ? {} : { KMAINT_TESTBEDS: raw })).toBe(n);
  });

  it.each(['0', '5', '2.5', 'four'])('KMAINT_TESTBEDS=%s is refused', (raw) => {
    expect(() => testbedCount({ KMAINT_TESTBEDS: raw })).toThrow(`KMAINT_TESTBEDS must be a whole number from 1 to 4, got "${raw}"`);
  });
});
