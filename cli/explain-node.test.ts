// `kmaint explain node/<name>`: the repair ladder's records of one Node, its current rung and its fault history, exact.
import { describe, expect, it } from 'vitest';
import { aReaperNode, aReapRequest, NOW, reaperConfig, secondsBefore } from '../shared/reaper/test-builders.ts';
import { explainNode, parseNodeRef } from './explain-node.ts';

const FAILED = "conditions[?'KmaintValidationFailed'].orValue('') == 'True'";
const REAPER = { unhealthyForSeconds: 300, reapPredicate: FAILED, repair: { ladder: [{ remedy: 'reboot', timeoutSeconds: 600 }, { remedy: 'replace' }], repeatLimit: 1 } };
const history = (...ats: string[]): string => JSON.stringify(ats.map((at) => ({ at, rung: 0, remedy: 'reboot' })));

describe('kmaint explain node/<name>', () => {
  it('parses node/<name> only', () => {
    expect([parseNodeRef('node/gpu-1'), parseNodeRef('kmaint/reap-gpu-1'), parseNodeRef('node/')]).toEqual(['gpu-1', undefined, undefined]);
  });

  it('a rebooted Node still failing, a repeat offender: since, rung with its deadline, request, the ladder now, history', () => {
    const node = aReaperNode({
      name: 'gpu-1',
      conditions: { KmaintValidationFailed: ['True', 60] },
      annotations: {
        'repair.kmaint.io/unhealthy-since': secondsBefore(3600),
        'repair.kmaint.io/rung': JSON.stringify({ rung: 0, remedy: 'reboot', state: 'rebooted', at: secondsBefore(700) }),
        'repair.kmaint.io/history': history(secondsBefore(8 * 86400), secondsBefore(2 * 86400), secondsBefore(900)),
      },
    });
    const lines = explainNode({ node, reaper: { kind: 'enabled', config: reaperConfig(REAPER) }, requests: [aReapRequest('gpu-1', 'Pending')] }, NOW);
    expect(lines).toEqual([
      'Node gpu-1: reaper enabled, repair ladder of 2 rungs (0 reboot, 1 replace)',
      `  unhealthy since: ${secondsBefore(3600)} (60m ago)`,
      `  current rung: 0 (reboot), rebooted at ${secondsBefore(700)}; the next rung is due at ${secondsBefore(100)} if the node is still unhealthy`,
      '  request kmaint/reap-gpu-1 of reaper.kmaint.io: phase Pending',
      `  the ladder now: rung 1 (replace): rung 0 (reboot) did not make the node healthy within 600 s of its reboot at ${secondsBefore(700)}: next rung 1 (replace) (the reaper's gates and the pool cap apply first)`,
      '  history: 2 repairs in the last 604800 s (repeatLimit 1: a repeat offender, reboot rungs are skipped)',
      `    reboot (rung 0) at ${secondsBefore(2 * 86400)}`,
      `    reboot (rung 0) at ${secondsBefore(900)}`,
    ]);
  });

  it("a rebooted Node its rung's request validates: the ladder waits for the outcome, whatever the rung's timeout", () => {
    const rung = aReapRequest('gpu-3', 'Ready', { uid: 'uid-reap-gpu-3', deletionTimestamp: secondsBefore(60) });
    const node = aReaperNode({
      name: 'gpu-3',
      conditions: { KmaintValidationFailed: ['True', 3600] },
      annotations: {
        'repair.kmaint.io/unhealthy-since': secondsBefore(3600),
        'repair.kmaint.io/rung': JSON.stringify({ rung: 0, remedy: 'reboot', state: 'rebooted', at: secondsBefore(700) }),
        'validation.kmaint.io/for': 'kmaint/reap-gpu-3/uid-reap-gpu-3',
        'validation.kmaint.io/job': 'kmaint/kmaint-validate-uid-reap-gpu-3',
        'validation.kmaint.io/start-time': secondsBefore(60),
      },
    });
    const lines = explainNode({ node, reaper: { kind: 'enabled', config: reaperConfig(REAPER) }, requests: [rung] }, NOW);
    expect(lines.find((l) => l.startsWith('  the ladder now: '))).toBe(
      `  the ladder now: validation Job kmaint/kmaint-validate-uid-reap-gpu-3 for kmaint/reap-gpu-3 running on the node since ${secondsBefore(60)}: the repair ladder waits for its outcome`,
    );
    // The same records with the request gone (its finalizer removed by hand): nothing runs any more, the ladder chooses.
    const gone = explainNode({ node, reaper: { kind: 'enabled', config: reaperConfig(REAPER) }, requests: [] }, NOW);
    expect(gone.find((l) => l.startsWith('  the ladder now: '))).toBe(
      `  the ladder now: rung 1 (replace): rung 0 (reboot) did not make the node healthy within 600 s of its reboot at ${secondsBefore(700)}: next rung 1 (replace) (the reaper's gates and the pool cap apply first)`,
    );
  });

  it('a healthy Node with the reaper off: nothing recorded', () => {
    expect(explainNode({ node: aReaperNode({ name: 'gpu-2' }), reaper: { kind: 'disabled' }, requests: [] }, NOW)).toEqual([
      'Node gpu-2: reaper disabled, repair ladder off',
      '  unhealthy since: not recorded (healthy, or not yet seen unhealthy by the reaper)',
      '  current rung: none',
      '  history: 0 repairs in the last 604800 s',
    ]);
  });
});
