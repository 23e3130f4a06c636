import type { V1ManagedFieldsEntry, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { cordonIsOurs, cordonOwnership, type CordonOwnership } from './cordon-owner.ts';

const owner = (manager: string, operation = 'Update'): V1ManagedFieldsEntry => ({ manager, operation, fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } });
const taintsOf = (manager: string): V1ManagedFieldsEntry => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:taints': {} } } });
const record = (manager: string): V1ManagedFieldsEntry => ({ manager, operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } });
const node = (managedFields?: V1ManagedFieldsEntry[]): V1Node => ({ metadata: { name: 'n1', ...(managedFields ? { managedFields } : {}) }, spec: { unschedulable: true } });

describe('cordonOwnership', () => {
  it.each<{ rule: string; node: V1Node; expected: CordonOwnership; ours: boolean }>([
    { rule: "kmaint's write set it (with its record)", node: node([taintsOf('kube-controller-manager'), { ...owner('kmaint'), fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } }, 'f:spec': { 'f:unschedulable': {} } } }]), expected: { kind: 'ours' }, ours: true },
    { rule: "kmaint wrote the record, `kubectl cordon` set the cordon (after an uncordon)", node: node([record('kmaint'), owner('kubectl')]), expected: { kind: 'theirs', managers: ['kubectl'] }, ours: false },
    { rule: 'kmaint wrote the record, a server-side apply asserts the cordon beside kmaint', node: node([record('kmaint'), owner('kmaint'), owner('applier', 'Apply')]), expected: { kind: 'theirs', managers: ['applier'] }, ours: false },
    { rule: 'several others, named once each in order', node: node([record('kmaint'), owner('z-tool'), owner('a-tool', 'Apply'), owner('z-tool', 'Apply')]), expected: { kind: 'theirs', managers: ['a-tool', 'z-tool'] }, ours: false },
    { rule: 'a manager without a name is not kmaint', node: node([record('kmaint'), { fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } }]), expected: { kind: 'theirs', managers: [''] }, ours: false },
    { rule: 'a record handed over by `kubectl annotate` on the other operator\'s cordon (docs/migrate.md step 4): it vouches, ours', node: node([record('kubectl-annotate'), owner('maintenance-operator')]), expected: { kind: 'ours' }, ours: true },
    { rule: 'another cordon and no owner of the record seen: the record decides, ours', node: node([owner('kubectl')]), expected: { kind: 'ours' }, ours: true },
    { rule: 'no managedFields (not tracked, the embedded sim): unknown', node: node(), expected: { kind: 'unknown' }, ours: true },
    { rule: 'managedFields without an owner of the cordon: unknown', node: node([taintsOf('kmaint'), record('kmaint')]), expected: { kind: 'unknown' }, ours: true },
  ])('$rule', ({ node: n, expected, ours }) => {
    expect([cordonOwnership(n, 'kmaint'), cordonIsOurs(n, 'kmaint')]).toEqual([expected, ours]);
  });
  it('the field manager is the one given: kmaint installed under another name', () => {
    expect(cordonOwnership(node([owner('kmaint-prod')]), 'kmaint-prod')).toEqual({ kind: 'ours' });
  });
});
