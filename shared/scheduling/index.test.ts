import { describe, expect, it } from 'vitest';
import * as scheduling from '#scheduling';

describe('#scheduling', () => {
  it('exports exactly its public surface', () => {
    expect(Object.keys(scheduling).sort()).toEqual([
      'FEWER_PENDING_CAP',
      'RANKERS',
      'SchedulingInvariantError',
      'admitRanked',
      'admittedMessage',
      'buildSchedulingState',
      'checkSchedulingInvariants',
      'computeBudget',
      'firstPerNode',
      'isBeingDeleted',
      'isInProgress',
      'isNodeUnavailable',
      'isUnscheduled',
      'limitWaitReason',
      'maintenanceKey',
      'maintenancePhase',
      'planScheduling',
      'rankCandidates',
      'readyCondition',
      'rfc3339Seconds',
      'waitReason',
      'waitingMessage',
      'withReadyCondition',
    ]);
  });
});
