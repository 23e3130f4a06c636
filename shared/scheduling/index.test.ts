import { describe, expect, it } from 'vitest';
import * as scheduling from '#scheduling';

describe('#scheduling', () => {
  it('exports exactly its public surface', () => {
    expect(Object.keys(scheduling).sort()).toEqual([
      'FEWER_PENDING_CAP',
      'GATES',
      'RANKERS',
      'SchedulingInvariantError',
      'admissionRecord',
      'admissionRecordDrop',
      'admissionRecordOf',
      'admissionRecordOwner',
      'admissionStanding',
      'admitRanked',
      'admittedMessage',
      'buildSchedulingState',
      'checkSchedulingInvariants',
      'computeBudget',
      'findGangs',
      'firstPerNode',
      'gangIdentityOf',
      'gangNameOf',
      'holdsAdmission',
      'isBeingDeleted',
      'isInProgress',
      'isKmaintRequestor',
      'isNodeUnavailable',
      'isUnscheduled',
      'limitWaitReason',
      'maintenanceKey',
      'maintenancePhase',
      'missedDeadline',
      'notBeforeRefusal',
      'planDeadlineReports',
      'planScheduling',
      'rankCandidates',
      'readyCondition',
      'recordAdmission',
      'resolveScopes',
      'rfc3339Seconds',
      'startTally',
      'waitReason',
      'waitingMessage',
      'withReadyCondition',
    ]);
  });
});
