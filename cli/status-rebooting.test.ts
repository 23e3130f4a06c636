// Issue 43 follow-up: `kmaint status` shows a request whose node reboots (Ready reason Rebooting) as in progress — its
// phase, the finished drain and the reboot step's message verbatim — and counts it by its phase.
import { describe, expect, it } from 'vitest';
import { PHASE_REBOOTING } from '../shared/api/index.ts';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { statusRow } from './status.ts';
import { renderStatusText } from './status-render.ts';

const NOW = new Date('2026-01-01T00:10:00Z');
const MESSAGE = 'rebooting node node-1: job kmaint/kmaint-reboot-node-1 issued; waiting for a new boot ID (was b-1) and Ready';

function rebooting() {
  const nm = aMaintenance({ name: 'upgrade-1', namespace: 'ops', nodeName: 'node-1', requestorID: 'os-upgrade.acme.com', phase: PHASE_REBOOTING, created: '2026-01-01T00:00:00Z', message: MESSAGE });
  return { ...nm, status: { ...nm.status, drain: { totalPods: 4, evictionPods: 3, drainProgress: 100, waitForEviction: [] } } };
}

describe('kmaint status with a request in Rebooting', () => {
  it('prints its row with the phase, a full drain bar and the message, and counts it', () => {
    const waiting = aMaintenance({ name: 'upgrade-2', namespace: 'ops', nodeName: 'node-2', requestorID: 'os-upgrade.acme.com', phase: 'Pending', created: '2026-01-01T00:09:00Z', message: 'waiting: maxParallelOperations 1 reached (1 in progress)' });
    const view = { config: 'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 1, maxUnavailable unlimited', rows: [statusRow(rebooting(), NOW), statusRow(waiting, NOW)] };
    expect(renderStatusText(view).split('\n')).toEqual([
      'MaintenanceOperatorConfig kmaint/default: maxParallelOperations 1, maxUnavailable unlimited',
      '2 requests: 1 Rebooting, 1 Pending',
      'REQUEST        NODE    REQUESTOR            PHASE      AGE  DRAIN                             MESSAGE',
      `ops/upgrade-1  node-1  os-upgrade.acme.com  Rebooting  10m  ██████████ 100% 0 of 3 pods left  ${MESSAGE}`,
      'ops/upgrade-2  node-2  os-upgrade.acme.com  Pending    60s  -                                 waiting: maxParallelOperations 1 reached (1 in progress)',
      '',
    ]);
  });

  it('colours Rebooting as in progress (cyan), as the drain phases', () => {
    const lines = renderStatusText({ config: 'c', rows: [statusRow(rebooting(), NOW)] }, { colour: true, wide: true }).split('\n');
    expect(lines[3]?.split('  ').find((c) => c.includes('Rebooting'))).toBe('\x1b[36mRebooting\x1b[0m');
  });
});
