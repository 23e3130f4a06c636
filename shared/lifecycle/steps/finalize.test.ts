import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { aLifecycleMaintenance, aNodeWithUid, aStepContext } from '../test-builders.ts';
import { finalize } from './finalize.ts';
import type { StepResult } from './step.ts';

const NODE = 'worker-01';
const withoutUid = (node: V1Node): V1Node => ({ ...node, metadata: { ...node.metadata, uid: undefined } });

describe('finalize (Scheduled)', () => {
  it.each<{ rule: string; finalizer: boolean; ownedByNode: boolean; node?: V1Node; expected: StepResult }>([
    {
      rule: 'neither finalizer nor owner reference yet: both asked for, then on to Cordon',
      finalizer: false,
      ownedByNode: false,
      expected: { kind: 'advance', to: 'Cordon', addFinalizer: true, ownerNode: { name: NODE, uid: `uid-${NODE}` } },
    },
    { rule: 'both already there (a pass after a crash): nothing to write', finalizer: true, ownedByNode: true, expected: { kind: 'advance', to: 'Cordon' } },
    { rule: 'owned but no finalizer: only the finalizer', finalizer: false, ownedByNode: true, expected: { kind: 'advance', to: 'Cordon', addFinalizer: true } },
    {
      rule: 'a Node read without a uid: no owner reference (it needs the uid), the finalizer still',
      finalizer: false,
      ownedByNode: false,
      node: withoutUid(aNodeWithUid({ name: NODE })),
      expected: { kind: 'advance', to: 'Cordon', addFinalizer: true },
    },
  ])('$rule', ({ finalizer, ownedByNode, node, expected }) => {
    const nm = aLifecycleMaintenance({ name: 'nm-1', nodeName: NODE, phase: 'Scheduled', finalizer, ownedByNode });
    expect(finalize(aStepContext(nm, node ? { node } : {}))).toEqual(expected);
  });
});
