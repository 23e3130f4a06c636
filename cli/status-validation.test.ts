// Issue 44: `kmaint status` shows a deleted request whose node cleanup validates with that stage, read from the Node.
import { describe, expect, it } from 'vitest';
import { aNodeWithUid } from '../shared/lifecycle/test-builders.ts';
import { aMaintenance } from '../shared/scheduling/test-builders.ts';
import { statusRows } from './status.ts';
import { renderStatusText } from './status-render.ts';

const NOW = new Date('2026-01-01T00:10:00Z');
const node = aNodeWithUid({ name: 'node-1', unschedulable: true });
const records = { 'validation.kmaint.io/job': 'kmaint/kmaint-validate-uid-upgrade-1', 'validation.kmaint.io/for': 'ops/upgrade-1/uid-upgrade-1', 'validation.kmaint.io/start-time': '2026-01-01T00:08:00Z' };
const validating = { ...node, metadata: { ...node.metadata, annotations: records } };
const deleted = aMaintenance({ name: 'upgrade-1', namespace: 'ops', nodeName: 'node-1', requestorID: 'os-upgrade.acme.com', phase: 'Ready', created: '2026-01-01T00:00:00Z', message: 'drained', deleting: true });
const STAGE = 'validating node node-1 before its uncordon: job kmaint/kmaint-validate-uid-upgrade-1 since 2026-01-01T00:08:00Z';

describe('kmaint status with a node being validated', () => {
  it('the deleted request shows the validating stage in its message; once the outcome is on the Node it does not', () => {
    const [row] = statusRows([deleted], NOW, { nodes: new Map([['node-1', validating]]) });
    expect([row?.deleting, row?.validating]).toEqual([true, STAGE]);
    expect(renderStatusText({ config: 'c', rows: [row!] }, { headers: false }).split('\n')).toEqual(['c', '1 request: 1 Ready', `ops/upgrade-1  node-1  os-upgrade.acme.com  Ready (deleting)  10m  -      ${STAGE}`, '']);
    const failed = { ...validating, metadata: { ...validating.metadata, annotations: { ...records, 'validation.kmaint.io/outcome': 'Failed' } } };
    expect(statusRows([deleted], NOW, { nodes: new Map([['node-1', failed]]) })[0]?.validating).toBe(undefined);
  });
});
