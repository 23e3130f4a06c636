// Terminations: the request is deleted only after its instance is terminated; failures and unknown prefixes keep it.
import { describe, expect, it } from 'vitest';
import { providerMap, type InstanceProvider } from './providers.ts';
import type { Termination } from './termination-plan.ts';
import { executeTerminations } from './terminate.ts';

const calls: string[] = [];
const aws: InstanceProvider = {
  prefix: 'aws',
  terminate: (id) => {
    calls.push(id);
    return id.endsWith('bad') ? Promise.reject(new Error('terminating i-bad: throttled')) : Promise.resolve(`terminated EC2 instance ${id.split('/').at(-1) ?? ''}`);
  },
};
const t = (node: string, providerID: string, provider: 'providerID' | 'none' = 'providerID'): Termination => ({
  maintenance: { namespace: 'kmaint', name: `reap-${node}`, uid: `uid-reap-${node}`, resourceVersion: '5' },
  node,
  nodeUid: `uid-${node}`,
  nodeResourceVersion: node === 'n4' ? '' : '9',
  providerID,
  provider,
});
const event = (node: string, type: string, eventReason: string, message: string) => ({ kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node, uid: `uid-${node}` }, type, eventReason, message, reason: 'reaper termination' });

describe('executeTerminations', () => {
  it('terminates, records kmaint.io/reaped on the Node (none when the Node is gone), then deletes; a failure or an unknown prefix keeps the request and says why on the Node', async () => {
    calls.length = 0;
    const r = await executeTerminations([t('n1', 'aws:///a/i-01'), t('n2', 'aws:///a/i-bad'), t('n3', 'azure:///x/vm'), t('n4', 'kwok://n4', 'none')], providerMap([aws]), new Date('2026-01-01T12:00:00.250Z'));
    expect(calls).toEqual(['aws:///a/i-01', 'aws:///a/i-bad']);
    expect(r).toEqual({
      terminated: 1,
      errors: ['kmaint/reap-n2: terminating i-bad: throttled', 'kmaint/reap-n3: no provider for providerID prefix "azure" of "azure:///x/vm" (known: aws)'],
      actions: [
        event('n1', 'Normal', 'InstanceTerminated', 'terminated EC2 instance i-01; deleting reap request kmaint/reap-n1'),
        {
          kind: 'patchNodeAnnotations',
          node: { name: 'n1', resourceVersion: '9' },
          annotations: { 'kmaint.io/reaped': '2026-01-01T12:00:00Z' },
          maintenance: { namespace: 'kmaint', name: 'reap-n1', uid: 'uid-reap-n1', resourceVersion: '5' },
          record: true,
          reason: 'record the reap before deleting the request',
        },
        { kind: 'deleteMaintenance', target: { namespace: 'kmaint', name: 'reap-n1', uid: 'uid-reap-n1', resourceVersion: '5' }, reason: 'reaped: terminated EC2 instance i-01' },
        event('n2', 'Warning', 'TerminationFailed', 'reap request kmaint/reap-n2: terminating i-bad: throttled; retried next pass'),
        event('n3', 'Warning', 'TerminationFailed', 'reap request kmaint/reap-n3 is Ready but no provider for providerID prefix "azure" of "azure:///x/vm" (known: aws); it stays until this is fixed'),
        event('n4', 'Normal', 'InstanceTerminated', 'nothing terminated (provider none); deleting reap request kmaint/reap-n4'),
        { kind: 'deleteMaintenance', target: { namespace: 'kmaint', name: 'reap-n4', uid: 'uid-reap-n4', resourceVersion: '5' }, reason: 'reaped: nothing terminated (provider none)' },
      ],
    });
  });

  it('a joined request: terminate, record kmaint.io/reaped, then leave it (additionalRequestors without the reaper) instead of deleting it; already reaped: only leave', async () => {
    calls.length = 0;
    const joined = (node: string, terminate: boolean): Termination => ({
      ...t(node, `aws:///a/i-${node}`),
      maintenance: { namespace: 'ops', name: `upgrade-${node}`, uid: `uid-upgrade-${node}`, resourceVersion: '6' },
      joined: { additionalRequestors: ['audit.example.com'], terminate },
    });
    const r = await executeTerminations([joined('n5', true), joined('n6', false)], providerMap([aws]), new Date('2026-01-01T12:00:00.250Z'));
    expect(calls).toEqual(['aws:///a/i-n5']);
    // The leave, then the join record on the Node, in the request's unit: the record goes only once the leave landed.
    const leave = (node: string, done: string) => [
      {
        kind: 'patchMaintenanceMeta',
        target: { namespace: 'ops', name: `upgrade-${node}`, uid: `uid-upgrade-${node}`, resourceVersion: '6' },
        additionalRequestors: ['audit.example.com'],
        annotations: { 'kmaint.io/reaper-provider-id': null },
        reason: `reaped: ${done}; the reaper leaves the request`,
      },
      {
        kind: 'patchNodeAnnotations',
        node: { name: node, resourceVersion: '9' },
        annotations: { 'kmaint.io/reaper-joined': null, 'kmaint.io/reaper-joined-provider-id': null },
        maintenance: { namespace: 'ops', name: `upgrade-${node}`, uid: `uid-upgrade-${node}`, resourceVersion: '6' },
        reason: 'the reaper left the request: drop its join record',
      },
    ];
    expect(r).toEqual({
      terminated: 1,
      errors: [],
      actions: [
        event('n5', 'Normal', 'InstanceTerminated', 'terminated EC2 instance i-n5; leaving ops/upgrade-n5 (additionalRequestors)'),
        {
          kind: 'patchNodeAnnotations',
          node: { name: 'n5', resourceVersion: '9' },
          annotations: { 'kmaint.io/reaped': '2026-01-01T12:00:00Z' },
          maintenance: { namespace: 'ops', name: 'upgrade-n5', uid: 'uid-upgrade-n5', resourceVersion: '6' },
          record: true,
          reason: 'record the reap before leaving the request',
        },
        ...leave('n5', 'terminated EC2 instance i-n5'),
        ...leave('n6', 'the node was reaped already'),
      ],
    });
  });
});
