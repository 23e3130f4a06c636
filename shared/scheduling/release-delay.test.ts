import { describe, expect, it } from 'vitest';
import { ANNOTATION_RELEASED_AT } from '#api';
import { loadConfig, schedulingLimitsOf } from '../pass/index.ts';
import { checkSchedulingInvariants } from './invariants.ts';
import { schedulerInputs } from './inputs.ts';
import { planScheduling } from './plan.ts';
import { loadReleaseDelaySeconds, releaseDelayEnd } from './release-delay.ts';
import { KMAINT_NAMESPACE, NOW, limits, pending, someNodes, withAdmissionRecords } from './test-builders.ts';

// spec.releaseDelaySeconds (issue 43 point 3, kured's --lock-release-delay). NOW is 2026-01-01T00:00:00Z.

describe('releaseDelayEnd: when the delay after a release ends, while it holds', () => {
  it.each([
    { rule: 'off (0 s): never holds', at: '2025-12-31T23:59:30Z', seconds: 0, end: undefined },
    { rule: 'no record: never holds', at: undefined, seconds: 60, end: undefined },
    { rule: 'released 30 s ago, 60 s delay: holds until 30 s from now', at: '2025-12-31T23:59:30Z', seconds: 60, end: '2026-01-01T00:00:30.000Z' },
    { rule: 'the end equal to now: over', at: '2025-12-31T23:59:00Z', seconds: 60, end: undefined },
    { rule: 'one second before the end: holds', at: '2025-12-31T23:59:01Z', seconds: 60, end: '2026-01-01T00:00:01.000Z' },
    { rule: 'a time a little ahead of the clock (another pass\'s clock): held from it', at: '2026-01-01T00:00:10Z', seconds: 60, end: '2026-01-01T00:01:10.000Z' },
    { rule: 'exactly the delay ahead: still believed (bounded by twice the delay)', at: '2026-01-01T00:01:00Z', seconds: 60, end: '2026-01-01T00:02:00.000Z' },
    { rule: 'more than the delay ahead: not kmaint\'s clock, never holds', at: '2026-01-01T00:01:01Z', seconds: 60, end: undefined },
    { rule: 'not a time: never holds', at: 'yesterday', seconds: 60, end: undefined },
  ])('$rule', ({ at, seconds, end }) => {
    expect(releaseDelayEnd(at, seconds, NOW)?.toISOString()).toBe(end);
  });
});

const released = (name: string, nodeName: string, at: string) => pending(name, nodeName, 1, { phase: 'Ready', deleting: true, annotations: { [ANNOTATION_RELEASED_AT]: at } });

/** One scheduler pass through schedulerInputs (as the pass and `kmaint explain` assemble it), invariants checked. */
function plan(maintenances: Parameters<typeof schedulerInputs>[0]['maintenances'], releaseDelaySeconds: number | undefined, maxParallel: number, now: Date = NOW) {
  const lim = { ...limits(maxParallel, 'unlimited'), ...(releaseDelaySeconds !== undefined ? { releaseDelaySeconds } : {}) };
  const { state, limits: l } = schedulerInputs({ nodes: withAdmissionRecords(someNodes(4), maintenances), maintenances, limits: lim, kmaintNamespace: KMAINT_NAMESPACE });
  const p = planScheduling(state, l, now);
  checkSchedulingInvariants(state, l, p, now);
  return p;
}

describe('the release delay gate', () => {
  it('refuses every request while a released request is within the delay, naming it and the next admission time; it holds no slot', () => {
    const p = plan([released('a', 'node-01', '2025-12-31T23:59:30Z'), pending('b', 'node-02', 2), pending('c', 'node-03', 3)], 60, 3);
    expect(p.admitted).toEqual([]);
    const why = 'release delay: default/a released at 2025-12-31T23:59:30Z, next admission at 2026-01-01T00:00:30Z (releaseDelaySeconds 60)';
    expect(p.waiting).toEqual([
      { key: 'default/b', why },
      { key: 'default/c', why },
    ]);
    expect(p.blocked).toBe(true);
  });

  it('names the release whose delay ends last', () => {
    const p = plan([released('a', 'node-01', '2025-12-31T23:59:50Z'), released('z', 'node-03', '2025-12-31T23:59:20Z'), pending('b', 'node-02', 2)], 60, 3);
    expect(p.waiting).toEqual([{ key: 'default/b', why: 'release delay: default/a released at 2025-12-31T23:59:50Z, next admission at 2026-01-01T00:00:50Z (releaseDelaySeconds 60)' }]);
  });

  it('admits at the end of the delay, exactly (the held request still counts as in progress until cleanup lets it go)', () => {
    const p = plan([released('a', 'node-01', '2025-12-31T23:59:00Z'), pending('b', 'node-02', 2)], 60, 2);
    expect(p.admitted).toEqual(['default/b']);
  });

  it('one second before the end it still waits', () => {
    const p = plan([released('a', 'node-01', '2025-12-31T23:59:01Z'), pending('b', 'node-02', 2)], 60, 2);
    expect(p.admitted).toEqual([]);
    expect(p.waiting).toEqual([{ key: 'default/b', why: 'release delay: default/a released at 2025-12-31T23:59:01Z, next admission at 2026-01-01T00:00:01Z (releaseDelaySeconds 60)' }]);
  });

  it('off (absent): a release record is ignored and the limits alone decide', () => {
    const p = plan([released('a', 'node-01', '2025-12-31T23:59:30Z'), pending('b', 'node-02', 2)], undefined, 2);
    expect(p.admitted).toEqual(['default/b']);
  });

  it('a request not being deleted never holds the delay, whatever its annotation says', () => {
    const live = pending('a', 'node-01', 1, { phase: 'Ready', annotations: { [ANNOTATION_RELEASED_AT]: '2025-12-31T23:59:30Z' } });
    const p = plan([live, pending('b', 'node-02', 2)], 60, 2);
    expect(p.admitted).toEqual(['default/b']);
  });
});

describe('spec.releaseDelaySeconds in loadConfig', () => {
  const config = (spec: Record<string, unknown>) => ({ apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec });
  it.each([
    { rule: 'absent: 0 (off)', spec: {}, seconds: 0 },
    { rule: 'set: its value', spec: { releaseDelaySeconds: 300 }, seconds: 300 },
    { rule: 'negative: the config does not pass its schema, so off (never guessed)', spec: { releaseDelaySeconds: -1 }, seconds: 0 },
    { rule: 'not an integer: off', spec: { releaseDelaySeconds: 1.5 }, seconds: 0 },
  ])('$rule', ({ spec, seconds }) => {
    const loaded = loadConfig({ rawConfig: config(spec) as never }, 4, 'kmaint');
    expect(loaded.releaseDelaySeconds).toBe(seconds);
    expect(loadReleaseDelaySeconds(config(spec))).toBe(seconds);
    // The scheduler's limits carry it only when on.
    expect(schedulingLimitsOf(loaded, undefined).releaseDelaySeconds).toBe(seconds > 0 ? seconds : undefined);
  });
  it('no config at all: off', () => {
    expect(loadConfig({ rawConfig: undefined }, 4, 'kmaint').releaseDelaySeconds).toBe(0);
  });
});
