import { describe, expect, it } from 'vitest';
import { parseRfc3339, requestDeadline, requestNotBefore } from './request-timing.ts';
import type { NodeMaintenance } from './types.ts';

function nm(annotations: Record<string, string>): NodeMaintenance {
  return {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'NodeMaintenance',
    metadata: { name: 'a', namespace: 'default', annotations },
    spec: { nodeName: 'n1', requestorID: 'r.example.com' },
  } as NodeMaintenance;
}

describe('parseRfc3339', () => {
  it.each([
    ['2026-12-01T06:00:00Z', '2026-12-01T06:00:00.000Z'],
    ['2026-12-01T06:00:00.5Z', '2026-12-01T06:00:00.500Z'],
    ['2026-12-01T08:00:00+02:00', '2026-12-01T06:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('%s is %s', (input, iso) => {
    expect(parseRfc3339(input)?.toISOString()).toBe(iso);
  });

  it.each(['2026-12-01', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-12-01T24:00:00Z', 'tomorrow', '2026-12-01T06:00:00'])(
    '%s is refused',
    (input) => {
      expect(parseRfc3339(input)).toBeUndefined();
    },
  );
});

describe('request times', () => {
  it('reads kmaint.io/deadline and kmaint.io/not-before', () => {
    const obj = nm({ 'kmaint.io/deadline': '2026-12-01T06:00:00Z', 'kmaint.io/not-before': '2026-11-30T00:00:00Z' });
    expect(requestDeadline(obj)).toEqual({ kind: 'valid', at: new Date('2026-12-01T06:00:00Z') });
    expect(requestNotBefore(obj)).toEqual({ kind: 'valid', at: new Date('2026-11-30T00:00:00Z') });
  });

  it('absent and invalid values say so', () => {
    expect(requestDeadline(nm({}))).toEqual({ kind: 'absent' });
    expect(requestNotBefore(nm({ 'kmaint.io/not-before': 'soon' }))).toEqual({
      kind: 'invalid',
      reason: 'kmaint.io/not-before "soon" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)',
    });
  });
});
