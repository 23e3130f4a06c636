// What frees a wait, as `kmaint explain` says it, chosen by the refusal's gate and kind (shared/scheduling/refusal.ts):
// one row per kind, with the request's whole last line.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_NOT_BEFORE, type MaintenanceOperatorConfig, type NodeMaintenance } from '../shared/api/index.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { aMaintenance, aNode } from '../shared/scheduling/test-builders.ts';
import { explainRequest } from './explain.ts';

const NOW = new Date('2025-12-01T00:05:00Z');

function config(spec: Record<string, unknown>): MaintenanceOperatorConfig {
  return { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec } as MaintenanceOperatorConfig;
}

function lastLine(nm: NodeMaintenance, spec: Record<string, unknown> | undefined): string | undefined {
  const nodes = [aNode({ name: 'n1', labels: { pool: 'gpu', 'topology.kubernetes.io/zone': 'a' } })];
  return explainRequest({ maintenance: nm, nodes, maintenances: [nm], config: loadConfig({ rawConfig: spec && config(spec) }, nodes.length, 'kmaint'), namespace: 'kmaint', pods: [], pdbs: [], budgetPods: new Map(), claims: [] }, NOW).at(-1);
}

const waiting = (annotations: Record<string, string> = {}): NodeMaintenance => ({ ...aMaintenance({ name: 'r', nodeName: 'n1' }), metadata: { ...aMaintenance({ name: 'r', nodeName: 'n1' }).metadata, annotations } });

describe('explain: what frees a refusal, by its kind', () => {
  it.each<[string, NodeMaintenance, Record<string, unknown> | undefined, string]>([
    ['not-before ahead (time): it is not admitted before then', waiting({ [ANNOTATION_NOT_BEFORE]: '2025-12-01T06:00:00Z' }), undefined, 'next: not before 2025-12-01T06:00:00Z (kmaint.io/not-before); it is not admitted before then'],
    [
      'not-before unreadable (unusable, the request): its requestor fixes the annotation',
      waiting({ [ANNOTATION_NOT_BEFORE]: 'tomorrow' }),
      undefined,
      'next: its requestor fixes the annotation: request admits nothing: kmaint.io/not-before "tomorrow" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)',
    ],
    ['a window never opening (time): nothing new starts before then', waiting(), { windows: [{ schedule: '0 0 30 2 *', duration: '1h' }] }, 'next: window cluster never opens; nothing new starts before then'],
    [
      'a pool limit that cannot be used (unusable, the config): fix the config',
      waiting(),
      { pools: [{ name: 'gpu', nodeSelector: { matchLabels: { pool: 'gpu' } }, maxParallelOperations: 'lots' }] },
      'next: fix MaintenanceOperatorConfig kmaint/default: pool gpu admits nothing: spec.pools[0].maxParallelOperations: "lots" is not an integer or a percentage',
    ],
  ])('%s', (_rule, nm, spec, next) => {
    expect(lastLine(nm, spec)).toBe(next);
  });
});
