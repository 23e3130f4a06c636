import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_REASON, ANNOTATION_CORDONED_BY, ANNOTATION_INITIAL_UNSCHEDULABLE, describeAction } from '../shared/api/index.ts';
import { RELEASES, planCleanup, type ReleaseStep } from '../shared/lifecycle/index.ts';
import { aLifecycleMaintenance, aNodeWithUid } from '../shared/lifecycle/test-builders.ts';
import { NOW } from '../shared/scheduling/test-builders.ts';
import { explainCleanup } from './explain-cleanup.ts';
import { printSection } from './explain-sections.ts';

const CONFIG = { maxNodeMaintenanceTimeSeconds: 3600 };
const node = aNodeWithUid({ name: 'worker-01', unschedulable: true });
/** Cordoned by kmaint for default/nm-1 (its record on the node). */
const cordonedByUs: V1Node = { ...node, metadata: { ...node.metadata, annotations: { [ANNOTATION_CORDONED_BY]: 'kmaint/default/nm-1', [ANNOTATION_CORDON_REASON]: 'NodeMaintenance default/nm-1 (requestor requestor-a)' } } };
const deleted = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Ready', deleting: true, annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' } });

/** A step a later feature adds (a validation Job before the node returns to service), in a test table only. */
const validate: ReleaseStep = { name: 'validate before uncordon', step: (ctx) => ({ kind: 'hold', why: `validation Job on node ${ctx.nm.spec.nodeName} has not passed` }) };
const withValidation: readonly ReleaseStep[] = RELEASES.flatMap((entry) => (entry.name === 'uncordon' ? [validate, entry] : [entry]));

describe('explain and the cleanup planner read one table of releases', () => {
  it("explain's cleanup view lists exactly the writes planCleanup plans, in its order", () => {
    const plan = planCleanup({ nodes: new Map([['worker-01', cordonedByUs]]), maintenances: [deleted] }, CONFIG, NOW);
    expect(plan.actions.map((a) => a.kind)).toEqual(['uncordonNode', 'patchMaintenanceMeta']);
    expect(printSection(explainCleanup({ maintenance: deleted, nodes: [cordonedByUs], ...CONFIG }, NOW))).toEqual({
      stage: 'cleanup',
      title: 'cleanup (as the next cleanup pass decides)',
      lines: [
        'will  uncordon node worker-01 -kmaint.io/cordoned-by -kmaint.io/cordon-reason: default/nm-1 deleted; node was schedulable before maintenance',
        'will  patch default/nm-1 -finalizer annotations maintenance.nvidia.com/node-initial-state.unschedulable: default/nm-1 deleted in phase Ready',
      ],
    });
    expect(printSection(explainCleanup({ maintenance: deleted, nodes: [cordonedByUs], ...CONFIG }, NOW))?.lines).toEqual(plan.actions.map((a) => `will  ${describeAction(a)}`));
  });

  it('a step added to a test table holds in both: planCleanup keeps the node cordoned and the finalizer, explain says why', () => {
    const plan = planCleanup({ nodes: new Map([['worker-01', cordonedByUs]]), maintenances: [deleted] }, CONFIG, NOW, withValidation);
    expect(plan).toEqual({ actions: [], slurm: [], held: [{ key: 'default/nm-1', why: 'validation Job on node worker-01 has not passed' }], released: 0, collected: 0, idle: true });
    expect(printSection(explainCleanup({ maintenance: deleted, nodes: [cordonedByUs], ...CONFIG }, NOW, withValidation))).toEqual({
      stage: 'cleanup',
      title: 'cleanup (as the next cleanup pass decides)',
      lines: ['WAIT  validate before uncordon: validation Job on node worker-01 has not passed'],
      next: 'cleanup keeps the finalizer until this is resolved (validate before uncordon): validation Job on node worker-01 has not passed',
    });
  });

  it('held for other requestors: the same wait in the plan and in explain', () => {
    const shared = { ...deleted, spec: { ...deleted.spec, additionalRequestors: ['requestor-b'] } };
    const plan = planCleanup({ nodes: new Map([['worker-01', cordonedByUs]]), maintenances: [shared] }, CONFIG, NOW);
    expect(plan.held).toEqual([{ key: 'default/nm-1', why: 'waiting for additional requestors: requestor-b' }]);
    expect(printSection(explainCleanup({ maintenance: shared, nodes: [cordonedByUs], ...CONFIG }, NOW))?.lines).toEqual(['WAIT  held for other requestors: waiting for additional requestors: requestor-b']);
  });

  it('a live request cleanup does nothing for has no cleanup section', () => {
    const live = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Draining' });
    expect(explainCleanup({ maintenance: live, nodes: [cordonedByUs], ...CONFIG }, NOW)).toBeUndefined();
  });
});
