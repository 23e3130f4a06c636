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
      'gangAdmittedIncompleteMessage',
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
      'nextOnNode',
      'notBeforeRefusal',
      'planDeadlineReports',
      'planScheduling',
      'rankCandidates',
      'readyCondition',
      'recordAdmission',
      'requestsHoldingNodes',
      'resolveScopes',
      'rfc3339Seconds',
      'startTally',
      'startableNow',
      'waitReason',
      'waitingMessage',
      'withReadyCondition',
    ]);
  });
});
