// Step Draining with drainSpec.freeDevices (issue 45 point 3): the kmaint.io/devices-draining taint goes on the node in
// a pass of its own, before any eviction, so that the DaemonSet controller has seen it when the first device user goes.
import { addDevicesDrainingTaint, DEVICES_DRAINING_EFFECT } from '../devices-taint.ts';
import type { DrainerStep } from './step.ts';

/** `step`, once the node carries the taint a request with freeDevices needs; until then a hold that adds it. */
export function behindDevicesTaint(step: DrainerStep): DrainerStep {
  return (ctx) => {
    const add = addDevicesDrainingTaint(ctx.nm, ctx.node, ctx.nodeRef, ctx.ref, ctx.now);
    if (add.length === 0) return step(ctx);
    return { kind: 'hold', message: `draining: adding ${DEVICES_DRAINING_EFFECT}; no pod is evicted before it is on the node`, inFlight: true, nodeActions: add };
  };
}
