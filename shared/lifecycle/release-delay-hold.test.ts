// Cleanup's 'release delay' step (spec.releaseDelaySeconds, issue 43 point 3): the node back in service, the finalizer
// stays until kmaint.io/released-at plus the delay, then goes with the record; never longer (owner-table row RD1).
import { describe, expect, it } from 'vitest';
import { ANNOTATION_REBOOT_ISSUED, ANNOTATION_RELEASED_AT, type Action, type MaintenanceRef, type NodeMaintenance } from '../api/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { planCleanup } from './cleanup.ts';
import { walkReleases } from './releases.ts';
import { aLifecycleMaintenance, aNodeWithUid } from './test-builders.ts';

const JOB = 'kmaint-reboot-uid-a';
const nodes = new Map([['worker-01', aNodeWithUid({ name: 'worker-01' })]]);

function request(annotations: Record<string, string> = {}, phase = 'Ready'): NodeMaintenance {
  return aLifecycleMaintenance({ name: 'a', nodeName: 'worker-01', phase, deleting: true, annotations: { [ANNOTATION_REBOOT_ISSUED]: `job kmaint/${JOB}`, ...annotations } });
}
const refOf = (nm: NodeMaintenance): MaintenanceRef => ({ namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, resourceVersion: nm.metadata.resourceVersion ?? '', ...(nm.metadata.uid ? { uid: nm.metadata.uid } : {}) });
const released = (at: string) => ({ [ANNOTATION_RELEASED_AT]: at });

/** What a finished release writes: the reboot Job's delete, then the finalizer's patch dropping `drop`. */
function finished(nm: NodeMaintenance, drop: string[]): Action[] {
  const ref = refOf(nm);
  return [
    { kind: 'deleteRebootJob', job: { namespace: 'kmaint', name: JOB }, maintenance: ref, reason: 'default/a released: its reboot Job goes with it' },
    { kind: 'patchMaintenanceMeta', target: ref, ...(drop.length > 0 ? { annotations: Object.fromEntries(drop.map((k) => [k, null])) } : {}), removeFinalizer: true, reason: 'default/a deleted in phase Ready' },
  ];
}

describe("cleanup's 'release delay' step (NOW 2026-01-01T00:00:00Z, delay 60 s)", () => {
  it('first pass after the node is back: records the release time and keeps the finalizer (the Job too)', () => {
    const nm = request();
    const plan = planCleanup({ nodes, maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: 60 }, NOW);
    const why = 'released at 2026-01-01T00:00:00Z, finalizer kept until 2026-01-01T00:01:00Z (releaseDelaySeconds 60)';
    expect(plan.actions).toEqual([{ kind: 'patchMaintenanceMeta', target: refOf(nm), annotations: { [ANNOTATION_RELEASED_AT]: '2026-01-01T00:00:00Z' }, reason: `record the release of default/a: ${why}` }]);
    expect(plan.held).toEqual([{ key: 'default/a', why }]);
    expect(plan.released).toBe(0);
  });

  it('within the delay: holds and writes nothing (an idle pass)', () => {
    const plan = planCleanup({ nodes, maintenances: [request(released('2025-12-31T23:59:30Z'))] }, { maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: 60 }, NOW);
    expect(plan.actions).toEqual([]);
    expect(plan.held).toEqual([{ key: 'default/a', why: 'released at 2025-12-31T23:59:30Z, finalizer kept until 2026-01-01T00:00:30Z (releaseDelaySeconds 60)' }]);
    expect(plan.idle).toBe(true);
  });

  it.each([
    { rule: 'the delay over (exactly at its end): the Job and the finalizer go, the record with it', at: '2025-12-31T23:59:00Z', seconds: 60 },
    { rule: 'the setting turned off meanwhile: released at once, the record dropped', at: '2025-12-31T23:59:30Z', seconds: 0 },
    { rule: 'a record more than the delay ahead of the clock is not believed: released (never held past twice the delay)', at: '2026-01-01T00:01:01Z', seconds: 60 },
    { rule: 'a record that is not a time: released', at: 'soon', seconds: 60 },
  ])('$rule', ({ at, seconds }) => {
    const nm = request(released(at));
    const plan = planCleanup({ nodes, maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: seconds }, NOW);
    expect(plan.actions).toEqual(finished(nm, [ANNOTATION_RELEASED_AT]));
    expect(plan.held).toEqual([]);
    expect(plan.released).toBe(1);
  });

  it('a request never admitted (deleted while Pending) disrupted nothing: released at once, no delay', () => {
    const nm = request({}, 'Pending');
    const plan = planCleanup({ nodes, maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: 60 }, NOW);
    expect(plan.held).toEqual([]);
    expect(plan.actions.at(-1)).toEqual({ kind: 'patchMaintenanceMeta', target: refOf(nm), removeFinalizer: true, reason: 'default/a deleted in phase Pending' });
  });

  it('off by default: the release goes on as before', () => {
    const nm = request();
    expect(planCleanup({ nodes, maintenances: [nm] }, { maxNodeMaintenanceTimeSeconds: 3600 }, NOW).actions).toEqual(finished(nm, []));
  });

  it('the node gone: nothing to settle, released without a delay', () => {
    const trace = walkReleases(request(), { nodes: new Map(), maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: 60 }, NOW);
    expect(trace.map((t) => t.name)).toEqual(['node gone']);
    expect(trace[0]?.result.kind).toBe('end');
  });

  it('sits after the node is back (uncordon, taints, device taint rules) and before the reboot Job and the finalizer', () => {
    const names = walkReleases(request(released('2025-12-31T23:59:00Z')), { nodes, maxNodeMaintenanceTimeSeconds: 3600, releaseDelaySeconds: 60 }, NOW).map((t) => t.name);
    expect(names.indexOf('release delay')).toBe(names.indexOf('device taint rules') + 1);
    expect(names.indexOf('device taint rules')).toBe(names.indexOf('devices-draining taint') + 1);
    expect(names.indexOf('reboot Job')).toBe(names.indexOf('release delay') + 1);
    expect(names.indexOf('uncordon')).toBeLessThan(names.indexOf('release delay'));
  });
});
