// `kmaint status` rows and header from objects as the API server returns them.
import { describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig } from '../shared/api/index.ts';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { configLine, statusRow, statusRows, type StatusRow } from './status.ts';

const NOW = new Date('2026-01-02T03:04:05Z');

function config(spec: Record<string, unknown>): MaintenanceOperatorConfig {
  return { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec } as MaintenanceOperatorConfig;
}

describe('statusRow', () => {
  it('a waiting request: phase, age from creation, its Ready message verbatim, no drain yet', () => {
    const nm = aMaintenance({ name: 'b', namespace: 'ops', nodeName: 'node-2', requestorID: 'os-upgrade.acme.com', message: 'waiting: maxParallelOperations 1 reached (1 in progress)', created: '2026-01-02T02:59:05Z' });
    expect(statusRow(nm, NOW)).toEqual<StatusRow>({
      request: 'ops/b',
      namespace: 'ops',
      name: 'b',
      node: 'node-2',
      requestor: 'os-upgrade.acme.com',
      phase: 'Pending',
      createdAt: '2026-01-02T02:59:05Z',
      ageSeconds: 300,
      deleting: false,
      drain: null,
      message: 'waiting: maxParallelOperations 1 reached (1 in progress)',
    });
  });

  it('a draining request carries status.drain; a deleted one says so', () => {
    const nm = aMaintenance({ name: 'a', nodeName: 'node-1', phase: 'Draining', message: 'draining: 3 pods left', deleting: true });
    nm.status = { ...nm.status, drain: { totalPods: 5, evictionPods: 3, drainProgress: 40, waitForEviction: ['web/api-1'] } };
    expect(statusRow(nm, NOW)).toMatchObject({ phase: 'Draining', deleting: true, drain: { totalPods: 5, evictionPods: 3, drainProgress: 40, podsLeft: 1 } });
  });

  it('a request no pass has seen has phase "" and an empty message', () => {
    expect(statusRow(aMaintenance({ name: 'n', nodeName: 'x', phase: '' }), NOW)).toMatchObject({ phase: '', message: '' });
  });
});

it('statusRows orders by namespace/name', () => {
  const rows = statusRows([aMaintenance({ name: 'b', namespace: 'z', nodeName: 'n1' }), aMaintenance({ name: 'c', namespace: 'a', nodeName: 'n2' }), aMaintenance({ name: 'a', namespace: 'z', nodeName: 'n3' })], NOW);
  expect(rows.map((r) => r.request)).toEqual(['a/c', 'z/a', 'z/b']);
});

describe('configLine', () => {
  it.each<[string, MaintenanceOperatorConfig | undefined, string]>([
    ['no config: the defaults', undefined, 'MaintenanceOperatorConfig kmaint/default not found: defaults apply (maxParallelOperations 1, maxUnavailable unlimited)'],
    ['percentages resolved against the nodes', config({ maxParallelOperations: '25%', maxUnavailable: '50%' }), 'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 3, maxUnavailable 5'],
    ['extensions named', config({ maxParallelOperations: 2, maxUnavailablePerZone: 1, pools: [{ name: 'gpu', nodeSelector: {}, maxUnavailable: 1 }] }), 'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 2, maxUnavailable unlimited, pools gpu, maxUnavailablePerZone 1'],
    ['an unusable value', config({ maxParallelOperations: 'abc%' }), 'MaintenanceOperatorConfig kmaint/default has problems: spec.maxParallelOperations: "abc%" is not an integer or a percentage'],
  ])('%s', (_rule, obj, line) => {
    expect(configLine(loadConfig({ rawConfig: obj }, 10, 'kmaint'))).toBe(line);
  });
});
