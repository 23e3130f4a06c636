import { describe, expect, it } from 'vitest';
import { leanNode } from './lean-nodes.ts';
import { unschedulableOwners } from './unschedulable-owner.ts';

// Entries as the testbed's kube-apiserver (v1.35) wrote them for a node kmaint cordoned and kube-controller-manager annotated.
const KMAINT_CORDON = { manager: 'kmaint', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } }, 'f:spec': { 'f:unschedulable': {} } } };
const KCM = { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:taints': {} } } };
const STATUS = { manager: 'kubelet', operation: 'Update', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': {} } } };
const APPLIER = { manager: 'applier', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } };
const REDUCED = { 'f:spec': { 'f:unschedulable': {} } };
/** kmaint's entry reduced: the record and the cordon, nothing else it owns. */
const KMAINT_REDUCED = { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } }, 'f:spec': { 'f:unschedulable': {} } };
const ANNOTATOR = { manager: 'kubectl-annotate', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {}, 'f:other': {} } } } };

describe('unschedulableOwners', () => {
  it.each([
    { rule: 'kmaint owns both: its entry alone, reduced to the record and the cordon', managedFields: [KCM, KMAINT_CORDON, STATUS], expected: [{ manager: 'kmaint', operation: 'Update', fieldsV1: KMAINT_REDUCED }] },
    { rule: 'a record written by `kubectl annotate` is kept, reduced to it', managedFields: [ANNOTATOR], expected: [{ manager: 'kubectl-annotate', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } }] },
    {
      rule: 'two owners (a server-side apply beside an Update): both, in their order',
      managedFields: [APPLIER, KCM, KMAINT_CORDON],
      expected: [
        { manager: 'applier', operation: 'Apply', fieldsV1: REDUCED },
        { manager: 'kmaint', operation: 'Update', fieldsV1: KMAINT_REDUCED },
      ],
    },
    { rule: 'nobody owns either (the field and the record unset)', managedFields: [KCM, STATUS], expected: undefined },
    { rule: 'no managedFields (not tracked, the embedded sim)', managedFields: undefined, expected: undefined },
    { rule: 'malformed entries are skipped', managedFields: [null, 'x', { fieldsV1: null }, { manager: 'kubectl', fieldsV1: { 'f:spec': 1 } }], expected: undefined },
  ])('$rule', ({ managedFields, expected }) => {
    expect(unschedulableOwners(managedFields)).toEqual(expected);
  });
});

describe('leanNode keeps the owners of spec.unschedulable', () => {
  it('a LISTed node carries the reduced entries and nothing else of managedFields', () => {
    const node = leanNode({ metadata: { name: 'n1', resourceVersion: '9', managedFields: [KCM, KMAINT_CORDON, STATUS] }, spec: { unschedulable: true } });
    expect(node.metadata).toEqual({ name: 'n1', resourceVersion: '9', managedFields: [{ manager: 'kmaint', operation: 'Update', fieldsV1: KMAINT_REDUCED }] });
  });
  it('no owner: no managedFields key at all', () => {
    expect(leanNode({ metadata: { name: 'n1', managedFields: [KCM] } }).metadata).toEqual({ name: 'n1' });
  });
});
