import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { isStale, timeMs, toPodView } from './pod-view.ts';

const raw = {
  metadata: {
    uid: 'u1',
    namespace: 'batch',
    name: 'etl-x',
    resourceVersion: '42',
    generation: 1,
    labels: { a: 'b' },
    annotations: { 'kmaint.io/sim-run-seconds': '90', 'kmaint.io/sim-termination-seconds': '4' },
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'etl', uid: 'j' }],
    deletionTimestamp: '2025-01-01T00:00:30Z',
    deletionGracePeriodSeconds: 30,
  },
  spec: { nodeName: 'node-001', terminationGracePeriodSeconds: 45, containers: [{ name: 'main', image: 'pause' }] },
  status: { phase: 'Running', startTime: '2025-01-01T00:00:00Z', podIP: '10.64.1.2', conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }] },
};

describe('toPodView', () => {
  it('reads a raw watch object (string dates)', () => {
    expect(toPodView(raw as unknown as V1Pod)).toEqual({
      uid: 'u1',
      namespace: 'batch',
      name: 'etl-x',
      resourceVersion: '42',
      generation: 1,
      nodeName: 'node-001',
      labels: { a: 'b' },
      phase: 'Running',
      ready: true,
      scheduled: true,
      startTimeMs: Date.parse('2025-01-01T00:00:00Z'),
      podIP: '10.64.1.2',
      deleting: true,
      deletionGraceSeconds: 30,
      terminationGraceSeconds: 45,
      mirror: false,
      job: true,
      runSeconds: 90,
      terminationSeconds: 4,
      containers: [{ name: 'main', image: 'pause' }],
      initContainers: [],
    });
  });

  it('reads a typed object (Date dates) the same way', () => {
    const typed = { ...raw, status: { ...raw.status, startTime: new Date('2025-01-01T00:00:00Z') } };
    expect(toPodView(typed as unknown as V1Pod)).toEqual(toPodView(raw as unknown as V1Pod));
  });

  it("a Job pod's first container env gives its simulated exit code and run time (issue 44: a config's Job template has no pod annotations)", () => {
    const v = toPodView({ metadata: { uid: 'j', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'v', uid: 'jv' }] }, spec: { containers: [{ name: 'validation', image: 'dcgm', env: [{ name: 'KMAINT_SIM_EXIT_CODE', value: '1' }, { name: 'KMAINT_SIM_RUN_SECONDS', value: '3600' }] }] } });
    expect([v.job, v.exitCode, v.runSeconds]).toEqual([true, 1, 3600]);
  });

  it('defaults: Pending, 30s grace, not a job, mirror from the annotation', () => {
    const v = toPodView({ metadata: { uid: 'm', annotations: { 'kubernetes.io/config.mirror': 'h' } }, spec: { containers: [] } });
    expect(v).toMatchObject({ phase: 'Pending', terminationGraceSeconds: 30, job: false, mirror: true, deleting: false });
  });

  it.each([
    ['an older resource version', '41', true],
    ['the same', '42', false],
    ['a newer one', '43', false],
  ])('%s is stale: %s', (_name, rv, stale) => {
    const current = toPodView(raw as unknown as V1Pod);
    expect(isStale(current, { ...current, resourceVersion: rv })).toBe(stale);
  });

  it.each([
    ['true', true],
    ['false', undefined],
    ['yes', undefined],
  ])('kmaint.io/sim-never-ready: %s -> neverReady %s', (value, expected) => {
    const pod = { metadata: { uid: 'u', name: 'p', namespace: 'n', annotations: { 'kmaint.io/sim-never-ready': value } }, spec: { containers: [] } };
    expect(toPodView(pod as unknown as V1Pod).neverReady).toBe(expected);
  });

  it('timeMs takes Date, string, or nothing', () => {
    expect(timeMs(new Date(5))).toBe(5);
    expect(timeMs('1970-01-01T00:00:01Z')).toBe(1000);
    expect(timeMs(undefined)).toBeUndefined();
    expect(timeMs('nonsense')).toBeUndefined();
  });
});
