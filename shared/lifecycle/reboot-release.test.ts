// The release of the reboot Job (issue 43): the Job the request recorded goes with the request, in cleanup's walk of
// RELEASES ('reboot Job', before the finalizer); a Node already gone took its Job along (owner reference), so nothing is
// sent. The owner table's row for the reboot Job (docs/security.md, docs/owner-table-tests.md RB1) names this test.
import { describe, expect, it } from 'vitest';
import { ANNOTATION_REBOOT, ANNOTATION_REBOOT_ISSUED, type MaintenanceRef } from '../api/index.ts';
import { NOW } from '../scheduling/test-builders.ts';
import { recordedRebootJob, releaseRebootJob } from './reboot-release.ts';
import { walkReleases } from './releases.ts';
import { aLifecycleMaintenance, aNodeWithUid } from './test-builders.ts';

const UID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const JOB = `kmaint-reboot-${UID}`;

/** A reboot request with the uid its Job's name comes from. */
const aRebootRequest = (issued: string | undefined, deleting = true) => {
  const nm = aLifecycleMaintenance({ name: 'reboot-worker-01', nodeName: 'worker-01', phase: 'Ready', deleting, annotations: { [ANNOTATION_REBOOT]: 'true', ...(issued !== undefined ? { [ANNOTATION_REBOOT_ISSUED]: issued } : {}) } });
  return { ...nm, metadata: { ...nm.metadata, uid: UID } };
};

describe('recordedRebootJob', () => {
  it.each<{ rule: string; issued: string | undefined; expected: { namespace: string; name: string } | undefined }>([
    { rule: 'the record names the Job as job <namespace>/<name>', issued: `job kmaint/${JOB}`, expected: { namespace: 'kmaint', name: JOB } },
    { rule: 'no record: no Job was issued', issued: undefined, expected: undefined },
    { rule: 'another method (ec2 …) names no Job', issued: 'ec2 i-0123456789abcdef0', expected: undefined },
    { rule: 'a name that is no Kubernetes name is not read', issued: 'job kmaint/Kmaint_Reboot', expected: undefined },
    { rule: 'a record without a namespace is not read', issued: `job ${JOB}`, expected: undefined },
    // Forged: another request's reboot Job, or any Job at all, is never this request's to delete.
    { rule: "a record naming another request's reboot Job is not read", issued: 'job kmaint/kmaint-reboot-11111111-2222-3333-4444-555555555555', expected: undefined },
    { rule: 'a record naming a Job kmaint did not name is not read', issued: 'job team-a/nightly-backup', expected: undefined },
  ])('$rule', ({ issued, expected }) => {
    expect(recordedRebootJob(aRebootRequest(issued))).toEqual(expected);
  });
});

describe("cleanup's 'reboot Job' release", () => {
  const nodes = new Map([['worker-01', aNodeWithUid({ name: 'worker-01', unschedulable: true })]]);
  const reads = { nodes, maxNodeMaintenanceTimeSeconds: 3600 };

  it('deletes the recorded Job in the request\'s release, after the uncordon and before the finalizer goes', () => {
    const nm = aRebootRequest(`job kmaint/${JOB}`);
    const ref: MaintenanceRef = { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, resourceVersion: nm.metadata.resourceVersion ?? '', ...(nm.metadata.uid ? { uid: nm.metadata.uid } : {}) };
    const del = { kind: 'deleteRebootJob', job: { namespace: 'kmaint', name: JOB }, maintenance: ref, reason: `${ref.namespace}/${ref.name} released: its reboot Job goes with it` };
    expect(releaseRebootJob(nm, ref)).toEqual([del]);
    const trace = walkReleases(nm, reads, NOW);
    const names = trace.map((t) => t.name);
    expect(names.indexOf('reboot Job')).toBeGreaterThan(names.indexOf('uncordon'));
    expect(names.at(-1)).toBe('finalizer');
    expect(trace.find((t) => t.name === 'reboot Job')?.result).toEqual({ kind: 'go', actions: [del] });
  });

  it.each<{ rule: string; issued: string | undefined; nodeGone: boolean; last: string }>([
    { rule: 'no Job issued: nothing to delete', issued: undefined, nodeGone: false, last: 'finalizer' },
    { rule: "the Node gone: its Job went with it (owner reference), nothing sent; 'node gone' ends the walk", issued: `job kmaint/${JOB}`, nodeGone: true, last: 'node gone' },
  ])('$rule', ({ issued, nodeGone, last }) => {
    const trace = walkReleases(aRebootRequest(issued), nodeGone ? { ...reads, nodes: new Map() } : reads, NOW);
    expect(trace.flatMap((t) => (t.result.kind === 'hold' ? [] : t.result.actions ?? [])).filter((a) => a.kind === 'deleteRebootJob')).toEqual([]);
    expect(trace.at(-1)?.name).toBe(last);
  });
});
