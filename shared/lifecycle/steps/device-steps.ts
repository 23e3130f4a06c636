// The steps of a device request (issue 45, kmaint.io/devices): instead of the cordon, a NoSchedule DeviceTaintRule per
// device (recorded on the request first); instead of the node's drain, the eviction of only the pods whose claims hold
// those devices, under the same drainSpec rules, budgets and timeout (evict-pods.ts). The node is never cordoned.
import { ANNOTATION_DEVICE_TAINT_RULES, Phase, namespacedName } from '../../api/index.ts';
import type { Action } from '../../api/index.ts';
import { referencesClaims, unreadableClaimsMessage } from '../../drain/index.ts';
import { deviceNameText, deviceRequestOf, deviceTaintRuleWrites, isDeviceRequest, podsHoldingDevices } from '../../devices/index.ts';
import { drain } from './evict-pods.ts';
import type { DrainerStep, StepContext, StepResult } from './step.ts';

/** A device request's step where a node request's is `nodeStep`. */
export function byScope(nodeStep: DrainerStep, deviceStep: DrainerStep): DrainerStep {
  return (ctx) => (isDeviceRequest(ctx.nm) ? deviceStep(ctx) : nodeStep(ctx));
}

/** What an admitted request whose kmaint.io/devices was changed to a bad value says: it stays where it is. */
function unreadable(ctx: StepContext, problem: string): StepResult {
  return { kind: 'hold', message: `kmaint.io/devices cannot be read: ${problem}; nothing more is done for this request until it is fixed`, inFlight: false };
}

/** Cordon's place: record the rules' names on the request, then create one NoSchedule rule per device. */
export function taintDevices(ctx: StepContext): StepResult {
  const request = deviceRequestOf(ctx.nm);
  if (request.kind === 'invalid') return unreadable(ctx, request.problem);
  if (request.kind === 'node') return { kind: 'advance', to: Phase.WaitForPodCompletion };
  const writes = deviceTaintRuleWrites(ctx.nm, request.devices, { name: ctx.nodeRef.name, uid: ctx.node.metadata?.uid });
  const names = writes.map((w) => w.name).join(',');
  const annotations: Record<string, string> = ctx.nm.metadata.annotations?.[ANNOTATION_DEVICE_TAINT_RULES] === names ? {} : { [ANNOTATION_DEVICE_TAINT_RULES]: names };
  const nodeActions: Action[] = writes.map((rule) => ({
    kind: 'createDeviceTaintRule',
    rule,
    maintenance: ctx.ref,
    reason: `${namespacedName(ctx.ref)}: no new claim is allocated ${deviceNameText(rule.device)} (NoSchedule)`,
  }));
  return { kind: 'advance', to: Phase.WaitForPodCompletion, annotations, nodeActions };
}

/**
 * Draining's place: the drain of evict-pods.ts over the pods holding the request's devices only (a request without a
 * drainSpec drains them with the defaults), never behind the Slurm gate (the node is not drained), never a reboot.
 * While the claims cannot be read and pods here reference some, it holds: nothing is evicted on a guess.
 */
export function drainDevices(ctx: StepContext): StepResult {
  const request = deviceRequestOf(ctx.nm);
  if (request.kind === 'invalid') return unreadable(ctx, request.problem);
  if (request.kind === 'node') return { kind: 'advance', to: Phase.Ready };
  const problem = ctx.dra?.unreadable;
  if (problem !== undefined && ctx.pods.some(referencesClaims)) return { kind: 'hold', message: unreadableClaimsMessage(problem, ctx.pods), inFlight: true };
  const holders = podsHoldingDevices(ctx.pods, ctx.dra?.claims ?? new Map(), request.devices).map((h) => h.pod);
  const nm = { ...ctx.nm, spec: { ...ctx.nm.spec, drainSpec: ctx.nm.spec.drainSpec ?? {} } };
  return drain({ ...ctx, nm, pods: holders, slurm: undefined });
}
