// `kmaint explain` and spec.releaseDelaySeconds (issue 43 point 3): a waiting request shows the `release delay` gate's
// refusal and when it ends; the held request shows cleanup's hold. Both come from the tables the passes walk (GATES,
// RELEASES), at the same clock.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_RELEASED_AT, type MaintenanceOperatorConfig, type NodeMaintenance } from '../shared/api/index.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { aMaintenance, aNode } from '../shared/scheduling/test-builders.ts';
import { explainRequest } from './explain.ts';

const NOW = new Date('2025-12-01T00:05:00Z');
const config = { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec: { maxParallelOperations: 2, releaseDelaySeconds: 300 } } as MaintenanceOperatorConfig;
const nodes = [aNode({ name: 'n1' }), aNode({ name: 'n2' })];
const held = aMaintenance({ name: 'a', nodeName: 'n1', phase: 'Ready', deleting: true, annotations: { [ANNOTATION_RELEASED_AT]: '2025-12-01T00:03:00Z' } });
const waiting = aMaintenance({ name: 'b', nodeName: 'n2' });

function explain(nm: NodeMaintenance): string[] {
  return explainRequest({ maintenance: nm, nodes, maintenances: [held, waiting], config: loadConfig({ rawConfig: config }, nodes.length, 'kmaint'), namespace: 'kmaint', pods: [], pdbs: [], budgetPods: new Map(), claims: [] }, NOW);
}

describe('explain with spec.releaseDelaySeconds', () => {
  it('a waiting request: the release delay gate refuses, naming the release and the next admission time', () => {
    const lines = explain(waiting);
    const why = 'release delay: default/a released at 2025-12-01T00:03:00Z, next admission at 2025-12-01T00:08:00Z (releaseDelaySeconds 300)';
    expect(lines.filter((l) => l.includes('release delay'))).toEqual([`  verdict: waits: ${why}`, `  WAIT  ${why}`, `next: ${why}; nothing new starts before then`]);
  });
  it('the held request: cleanup keeps its finalizer until the delay ends', () => {
    expect(explain(held).filter((l) => l.includes('release delay'))).toEqual([
      '  WAIT  release delay: released at 2025-12-01T00:03:00Z, finalizer kept until 2025-12-01T00:08:00Z (releaseDelaySeconds 300)',
      'next: cleanup keeps the finalizer until this is resolved (release delay): released at 2025-12-01T00:03:00Z, finalizer kept until 2025-12-01T00:08:00Z (releaseDelaySeconds 300)',
    ]);
  });
});
