// `kmaint explain` shows the validation step (issue 44) from cleanup's own table: its wait while the Job runs.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY } from '../shared/api/index.ts';
import { aLifecycleMaintenance, aNodeWithUid } from '../shared/lifecycle/test-builders.ts';
import { NOW } from '../shared/scheduling/test-builders.ts';
import { loadValidationSettings } from '../shared/validation/index.ts';
import { explainCleanup } from './explain-cleanup.ts';
import { printSection } from './explain-sections.ts';

const node = aNodeWithUid({ name: 'worker-01', unschedulable: true });
const deleted = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Ready', deleting: true });
const annotations = {
  [ANNOTATION_CORDONED_BY]: 'kmaint/default/nm-1',
  [ANNOTATION_CORDON_REASON]: 'NodeMaintenance default/nm-1 (requestor requestor-a)',
  'validation.kmaint.io/job': 'kmaint/kmaint-validate-uid-nm-1',
  'validation.kmaint.io/for': 'default/nm-1/uid-nm-1',
  'validation.kmaint.io/start-time': '2025-12-31T23:59:00Z',
};
const validating: V1Node = { ...node, metadata: { ...node.metadata, annotations } };
const validation = { loaded: loadValidationSettings({ spec: { validation: { job: { image: 'dcgm' }, timeoutSeconds: 600 } } }), namespace: 'kmaint', jobs: new Map([['kmaint-validate-uid-nm-1', 'running' as const]]) };

describe('explain: the validating stage', () => {
  it('while the Job runs: WAIT validation, with when it times out, and nothing after it', () => {
    const why = 'validating node worker-01 before its uncordon: job kmaint/kmaint-validate-uid-nm-1 running since 2025-12-31T23:59:00Z; times out at 2026-01-01T00:09:00Z';
    expect(printSection(explainCleanup({ maintenance: deleted, nodes: [validating], maxNodeMaintenanceTimeSeconds: 3600, validation }, NOW))).toEqual({
      stage: 'cleanup',
      title: 'cleanup (as the next cleanup pass decides)',
      lines: [`WAIT  validation: ${why}`],
      next: `cleanup keeps the finalizer until this is resolved (validation): ${why}`,
    });
  });
});
