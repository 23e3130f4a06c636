// Step Cordon: the node's prior state recorded, the medik8s node lease claimed, then the cordon with who and why (and,
// on a Slinky-managed node, the reason Slinky's Slurm drain will carry).
import { namespacedName } from '../../api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDON_RECORDED,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_MEDIK8S_LEASE,
  DEFAULTS,
  EVENT_REASON_NODE_LEASE_HELD,
  MEDIK8S_LEASE_NAMESPACE,
  Phase,
  SLINKY_NODE_CORDON_REASON,
  WaitKind,
  rfc3339Seconds,
} from '../../api/index.ts';
import type { Action, NodeMaintenance } from '../../api/index.ts';
import { isSlinkyPod, KMAINT_CORDON_REASON_PREFIX, slinkyCordonReason } from '../../slurm/index.ts';
import { holderFor, leaseWrite, nodeLeaseName, viewLease, type Medik8sLeases } from '../node-lease.ts';
import { shownMessage, warningEvent, type StepContext, type StepResult } from './step.ts';

type LeaseClaim = { kind: 'none' } | { kind: 'take'; lease: ReturnType<typeof leaseWrite> } | { kind: 'wait'; message: string };

/** Before cordoning: take (or renew) the medik8s node lease when its namespace exists, or wait for its live holder. */
function claimNodeLease(nm: NodeMaintenance, node: V1Node, medik8s: Medik8sLeases | undefined, now: Date): LeaseClaim {
  if (medik8s === undefined || medik8s.kind === 'absent') return { kind: 'none' };
  const name = nodeLeaseName(node.metadata?.name ?? '');
  if (medik8s.kind === 'unreadable') {
    return { kind: 'wait', message: `waiting to cordon: cannot read the medik8s node lease ${MEDIK8S_LEASE_NAMESPACE}/${name}: ${medik8s.message}` };
  }
  const holder = holderFor(nm);
  const view = viewLease(medik8s.leases.get(name), holder, now);
  if (view.state === 'held') {
    // An absolute time, so the message (and the status) changes only when the holder renews.
    return { kind: 'wait', message: `waiting to cordon: the medik8s node lease ${MEDIK8S_LEASE_NAMESPACE}/${name} is held by ${view.holder} until ${rfc3339Seconds(view.until)}` };
  }
  if (view.state === 'ours' && !view.renewDue) return { kind: 'none' };
  return { kind: 'take', lease: leaseWrite(node, view, holder, now) };
}

/**
 * On a Slinky-managed node (a NodeSet pod runs there), the reason Slinky's Slurm drain will name, written in the
 * cordon's own patch so Slinky never sees the cordon without it. A reason someone else set first is left as it is.
 */
function slinkyReasonFor(ctx: StepContext): Record<string, string> {
  if (!ctx.pods.some(isSlinkyPod)) return {};
  const ours = slinkyCordonReason(ctx.ref);
  const current = ctx.node.metadata?.annotations?.[SLINKY_NODE_CORDON_REASON];
  // Another request's `kmaint: ns/name` is stale by construction (one request holds a node at a time; that one was
  // removed without its cleanup): it would make Slinky's drain name the wrong request, so ours replaces it.
  if (current !== undefined && (current === ours || !current.startsWith(KMAINT_CORDON_REASON_PREFIX))) return {};
  return { [SLINKY_NODE_CORDON_REASON]: ours };
}

/** Cordon -> WaitForPodCompletion, or hold while another tool holds the node's medik8s lease. */
export function cordon(ctx: StepContext): StepResult {
  const { nm, node, nodeRef, ref } = ctx;
  if (!(nm.spec.cordon ?? DEFAULTS.cordon)) return { kind: 'advance', to: Phase.WaitForPodCompletion };
  const recorded = nm.metadata.annotations ?? {};
  const annotations: Record<string, string | null> = {};
  const unschedulable = node.spec?.unschedulable === true;
  // Another tool working on the node (the medik8s node lease) goes first: wait, and say for whom. Nothing is recorded
  // while waiting: the lease holder (or an administrator) may cordon the node meanwhile, and a "false" written now would
  // then be stale, and the upstream operator (after a switch back) uncordons by it.
  const claim = claimNodeLease(nm, node, ctx.medik8s, ctx.now);
  if (claim.kind === 'wait') {
    const warnings = claim.message !== shownMessage(nm) ? [warningEvent(ctx.eventTarget, EVENT_REASON_NODE_LEASE_HELD, claim.message, 'medik8s node lease not available')] : [];
    return { kind: 'hold', message: claim.message, inFlight: true, wait: WaitKind.NodeLease, annotations, warnings };
  }
  // The node's prior state, as upstream records it, in the pass that cordons: for upstream requestors to read. It never
  // lifts a cordon by itself (a requestor can preset it); cleanup uncordons only on the node's kmaint.io/cordoned-by.
  if (recorded[ANNOTATION_INITIAL_UNSCHEDULABLE] === undefined) annotations[ANNOTATION_INITIAL_UNSCHEDULABLE] = String(unschedulable);
  const nodeActions: Action[] = [];
  if (claim.kind === 'take') {
    // Recorded on the request before the lease is taken, so cleanup always looks for it.
    if (recorded[ANNOTATION_MEDIK8S_LEASE] === undefined) annotations[ANNOTATION_MEDIK8S_LEASE] = namespacedName(claim.lease);
    nodeActions.push({ kind: 'takeNodeLease', lease: claim.lease, maintenance: ref, reason: `before cordoning node ${nodeRef.name}` });
  }
  if (!unschedulable) {
    // Who cordoned the node and why, on the node itself, in the cordon's own patch: cleanup uncordons only on this
    // record, which requestors cannot write. One write: a second one would race the controllers that react to the
    // cordon (the unschedulable taint).
    const record = { [ANNOTATION_CORDONED_BY]: holderFor(nm), [ANNOTATION_CORDON_REASON]: `NodeMaintenance ${ref.namespace}/${ref.name} (requestor ${nm.spec.requestorID})`, ...slinkyReasonFor(ctx) };
    if (recorded[ANNOTATION_CORDON_RECORDED] === undefined) annotations[ANNOTATION_CORDON_RECORDED] = 'true';
    nodeActions.push({ kind: 'cordonNode', node: nodeRef, maintenance: ref, reason: `cordon for ${ref.namespace}/${ref.name}`, annotations: record });
  }
  return { kind: 'advance', to: Phase.WaitForPodCompletion, annotations, nodeActions };
}
