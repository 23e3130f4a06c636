import { describe, expect, it } from 'vitest';
import * as scheduling from '#scheduling';

describe('#scheduling', () => {
  it('exports exactly its public surface', () => {
    expect(Object.keys(scheduling).sort()).toEqual([
      'FEWER_PENDING_CAP',
      'GATES',
      'RANKERS',
      'SchedulingInvariantError',
      'admitRanked',
      'admittedMessage',
      'buildSchedulingState',
      'checkSchedulingInvariants',
      'computeBudget',
      'findGangs',
      'firstPerNode',
      'gangIdentityOf',
      'gangNameOf',
      'isBeingDeleted',
      'isInProgress',
      'isKmaintRequest',
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
