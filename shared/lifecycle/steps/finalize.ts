// Step Scheduled: the finalizer and the Node owner reference, asked for before anything touches the node.
import { FINALIZER, Phase } from '../../api/index.ts';
import type { StepContext, StepResult } from './step.ts';

/** Scheduled -> Cordon, always; with the finalizer and owner reference the request does not carry yet. */
export function finalize({ nm, node, nodeRef }: StepContext): StepResult {
  // The finalizer goes on before anything touches the node, so deletion always reaches cleanup.
  const addFinalizer = !(nm.metadata.finalizers ?? []).includes(FINALIZER);
  const owned = (nm.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node' && o.name === nodeRef.name);
  const uid = node.metadata?.uid;
  return {
    kind: 'advance',
    to: Phase.Cordon,
    ...(addFinalizer ? { addFinalizer: true } : {}),
    ...(!owned && uid ? { ownerNode: { name: nodeRef.name, uid } } : {}),
  };
}
