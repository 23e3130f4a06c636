// Which requests forceRetryOnError may force-delete pods for: the reaper's own reap requests only, recognised by
// kmaint's namespace, the name the reaper computes, its label and requestorID — never by strings a requestor can copy.
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import { forceRetryApplies } from './force-retry.ts';

function request(over: { namespace?: string; name?: string; labels?: Record<string, string>; requestorID?: string; annotations?: Record<string, string> }): NodeMaintenance {
  return {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'NodeMaintenance',
    metadata: {
      namespace: over.namespace ?? 'kmaint',
      name: over.name ?? 'reap-n1',
      labels: over.labels ?? { 'kmaint.io/reaper': 'true' },
      annotations: over.annotations ?? { 'kmaint.io/reaper-force-retry-on-error': 'true' },
    },
    spec: { requestorID: over.requestorID ?? 'reaper.kmaint.io', nodeName: 'n1' },
  };
}

describe('forceRetryApplies', () => {
  it.each<[string, NodeMaintenance, string | undefined, boolean]>([
    ["the reaper's own reap request with the annotation", request({}), 'kmaint', true],
    ['without the annotation', request({ annotations: {} }), 'kmaint', false],
    ['a copy in a tenant namespace', request({ namespace: 'tenant' }), 'kmaint', false],
    ['under a name the reaper did not compute for its node', request({ name: 'reap-n2' }), 'kmaint', false],
    ["without the reaper's label", request({ labels: {} }), 'kmaint', false],
    ['of another requestor', request({ requestorID: 'upgrade.example.com' }), 'kmaint', false],
    ["kmaint's namespace unknown to the caller: none (fail closed)", request({}), undefined, false],
  ])('%s', (_rule, nm, namespace, expected) => {
    expect(forceRetryApplies(nm, namespace)).toBe(expected);
  });
});
