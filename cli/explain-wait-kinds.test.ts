// The drainer's waits on other systems end to end: the hold's kind is written as kmaint.io/wait-kind, and explain's
// section and the metrics' gate follow from the kind alone (issue 41: no text matching in explain).
import type { V1Lease } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_WAIT_KIND, WaitKind, waitingOn, type NodeMaintenance } from '../shared/api/index.ts';
import { planDrainer } from '../shared/lifecycle/index.ts';
import { aLifecycleMaintenance, aNodeWithUid, recorded } from '../shared/lifecycle/test-builders.ts';
import { waitGateOf } from '../shared/metrics/index.ts';
import { NOW } from '../shared/scheduling/test-builders.ts';
import { explainReportedWait, printSection } from './explain-sections.ts';

const lease: V1Lease = {
  metadata: { name: 'node-worker-01', namespace: 'medik8s-leases', resourceVersion: '55' },
  spec: { holderIdentity: 'node-maintenance', leaseDurationSeconds: 3600, renewTime: new Date('2025-12-31T23:50:00Z') },
};

/** The request as the drainer's writes leave it: its metadata patch's annotations and its status. */
function applied(nm: NodeMaintenance, actions: ReturnType<typeof planDrainer>['actions']): NodeMaintenance {
  const out = structuredClone(nm);
  for (const a of actions) {
    if (a.kind === 'patchMaintenanceMeta') {
      const annotations: Record<string, string> = { ...(out.metadata.annotations ?? {}) };
      for (const [k, v] of Object.entries(a.annotations ?? {})) {
        if (v === null) delete annotations[k];
        else annotations[k] = v;
      }
      out.metadata.annotations = annotations;
    }
    if (a.kind === 'writeStatus') out.status = a.status;
  }
  return out;
}

describe('a medik8s lease held by another tool, from the drainer hold to explain and the metric', () => {
  it('the hold writes kmaint.io/wait-kind node-lease; explain says what frees it; the gate is lease; the kind goes once the lease is free', () => {
    const node = aNodeWithUid({ name: 'worker-01' });
    const scheduled = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Scheduled' });
    const plan = (nm: NodeMaintenance, leases: V1Lease[]) =>
      planDrainer(recorded({ nodes: new Map([['worker-01', node]]), maintenances: [nm], podsByNode: new Map(), pdbs: [], medik8s: { kind: 'present', leases: new Map(leases.map((l) => [l.metadata?.name ?? '', l])) } }), NOW).actions;
    const waiting = applied(scheduled, plan(scheduled, [lease]));
    expect(waiting.metadata.annotations).toEqual({ [ANNOTATION_WAIT_KIND]: 'node-lease' });
    expect(printSection(explainReportedWait(waiting))).toEqual({
      stage: 'node',
      title: 'node lease',
      lines: ['WAIT  waiting to cordon: the medik8s node lease medik8s-leases/node-worker-01 is held by node-maintenance until 2026-01-01T00:50:00Z'],
      next: 'the other holder must release the medik8s node lease or let it expire (above); then the drainer cordons the node',
    });
    expect(waitGateOf(waitingOn(waiting), WaitKind.NodeLease)).toBe('lease');
    // The holder lets go: kmaint cordons, and the kind is removed in the same metadata patch.
    const cordoned = applied(waiting, plan(waiting, []));
    expect(cordoned.metadata.annotations?.[ANNOTATION_WAIT_KIND]).toBeUndefined();
    expect(explainReportedWait(cordoned)).toBeUndefined();
  });
});

describe('each wait kind: explain title and the gate, whatever the words of the message', () => {
  it.each<[WaitKind, string, string | undefined]>([
    [WaitKind.NodeLease, 'node lease', 'lease'],
    [WaitKind.SlurmDrain, 'Slurm', 'slurm'],
    [WaitKind.SlinkyDrain, 'Slurm (Slinky)', 'slurm'],
    [WaitKind.SlinkyJobs, 'Slurm (Slinky)', 'slurm'],
    [WaitKind.SlurmProblem, 'Slurm', 'slurm'],
    [WaitKind.DeadNode, 'dead node', undefined],
    [WaitKind.DeadNodeTainted, 'dead node', undefined],
  ])('%s', (kind, title, gate) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Draining', message: 'draining: some words', annotations: { [ANNOTATION_WAIT_KIND]: kind } });
    expect(explainReportedWait(nm)?.title).toBe(title);
    expect(printSection(explainReportedWait(nm))?.lines).toEqual(['WAIT  draining: some words']);
    expect(waitGateOf(waitingOn(nm), kind)).toBe(gate);
  });

  it('an unknown kind (a newer kmaint) or none: no section', () => {
    const unknown = aLifecycleMaintenance({ name: 'nm-1', nodeName: 'worker-01', phase: 'Draining', message: 'waiting: Slurm node n1 draining', annotations: { [ANNOTATION_WAIT_KIND]: 'reboot' } });
    expect(explainReportedWait(unknown)).toBeUndefined();
  });
});
