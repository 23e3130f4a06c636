// Step Rebooting (issue 43): a drained node whose request asks for it is rebooted once, and the request becomes Ready
// when the Node reports a new status.nodeInfo.bootID and Ready. Every fact is an annotation on the request. The reboot
// is a Job on the node (spec.reboot.method job) or EC2 RebootInstances on the Node's instance (method ec2).
import {
  ANNOTATION_REBOOT,
  ANNOTATION_REBOOT_BOOT_ID,
  ANNOTATION_REBOOT_ISSUED,
  ANNOTATION_REBOOT_START,
  EVENT_REASON_REBOOT_TIMEOUT,
  PHASE_REBOOTING,
  Phase,
  rfc3339Seconds,
} from '../../api/index.ts';
import { maintenancePhase, namespacedName, type Action, type NodeMaintenance } from '../../api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import { ec2RebootIssued, ec2RebootTarget, rebootJobName, type LoadedReboot, type RebootSettings } from '../../reboot/index.ts';
import { secondsSince, shownMessage, warningEvent, type DrainerStep, type StepContext, type StepResult } from './step.ts';

/** Whether the request asks for a reboot (kmaint.io/reboot: "true"); read when its drain completes. */
export function rebootAsked(nm: NodeMaintenance): boolean {
  return nm.metadata.annotations?.[ANNOTATION_REBOOT] === 'true';
}

/** `step` (the Draining one), whose advance to Ready goes to Rebooting instead for a request that asks for a reboot. */
export function rebootAfter(step: DrainerStep): DrainerStep {
  return (ctx) => {
    const result = step(ctx);
    return result.kind === 'advance' && result.to === Phase.Ready && rebootAsked(ctx.nm) ? { ...result, to: PHASE_REBOOTING } : result;
  };
}

function bootIdOf(node: V1Node): string {
  return node.status?.nodeInfo?.bootID ?? '';
}

function nodeReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The first pass of the step: record the boot ID, the time and what is issued, then (same unit, after) issue it. */
function issue(ctx: StepContext, settings: RebootSettings, bootId: string): StepResult {
  const { nodeRef, now } = ctx;
  const planned = settings.method === 'ec2' ? ec2Reboot(ctx, bootId) : jobReboot(ctx, settings, bootId);
  if (planned.kind === 'problem') return { kind: 'hold', message: `reboot of node ${nodeRef.name} not issued: ${planned.problem}`, inFlight: false };
  return {
    kind: 'hold',
    message: `rebooting node ${nodeRef.name}: ${planned.issued} issued; waiting for a new boot ID (was ${bootId}) and Ready`,
    inFlight: true,
    annotations: { [ANNOTATION_REBOOT_BOOT_ID]: bootId, [ANNOTATION_REBOOT_START]: rfc3339Seconds(now), [ANNOTATION_REBOOT_ISSUED]: planned.issued },
    nodeActions: [planned.action],
  };
}

type Issue = { kind: 'issue'; issued: string; action: Action } | { kind: 'problem'; problem: string };

/** method job: the one Job pinned to the node, named after the request's uid. */
function jobReboot(ctx: StepContext, settings: RebootSettings, bootId: string): Issue {
  const { nm, node, nodeRef, ref } = ctx;
  const namespace = ctx.kmaintNamespace ?? nm.metadata.namespace ?? '';
  const name = rebootJobName(nm.metadata.uid ?? '');
  const nodeUid = node.metadata?.uid;
  const action: Action = {
    kind: 'createRebootJob',
    job: { namespace, name, nodeName: nodeRef.name, ...(nodeUid ? { nodeUid } : {}), ...settings.job, command: [...settings.job.command], request: namespacedName(ref) },
    maintenance: ref,
    reason: `reboot node ${nodeRef.name} (boot ID ${bootId})`,
  };
  return { kind: 'issue', issued: `job ${namespace}/${name}`, action };
}

/** method ec2: RebootInstances on the instance of the Node's own spec.providerID, sent once (after the record lands). */
function ec2Reboot(ctx: StepContext, bootId: string): Issue {
  const target = ec2RebootTarget(ctx.node);
  if (target.kind === 'problem') return target;
  const { instance } = target;
  const action: Action = { kind: 'rebootInstance', instance, maintenance: ctx.ref, reason: `reboot node ${ctx.nodeRef.name} (boot ID ${bootId})` };
  return { kind: 'issue', issued: ec2RebootIssued(instance.instanceId), action };
}

/**
 * The Job's create again, when the pass that recorded it did not show `Rebooting`. In a request's write unit the status
 * write follows the node writes and goes only if they all landed (shared/api/write-order.ts), so a request that is
 * recorded but not yet `Rebooting` had its create fail, its answer lost, or its status write refused. The Job's name is
 * the request's uid: a create of one already there is answered 409 and counts as done, so a Job that ran is never run
 * twice. Only method job: a second RebootInstances would reboot the instance again, so an EC2 record waits.
 */
function jobAgain(ctx: StepContext, issued: string, before: string): StepResult | undefined {
  const { nm, node, nodeRef } = ctx;
  if (maintenancePhase(nm) === PHASE_REBOOTING || !issued.startsWith('job ') || bootIdOf(node) !== before || ctx.reboot?.kind !== 'valid') return undefined;
  const { settings } = ctx.reboot;
  if (settings.method === 'ec2') return undefined;
  const planned = jobReboot(ctx, settings, before);
  if (planned.kind !== 'issue' || planned.issued !== issued) return undefined;
  return {
    kind: 'hold',
    message: `rebooting node ${nodeRef.name}: ${issued} created again (recorded by a pass whose writes did not all land); waiting for a new boot ID (was ${before}) and Ready`,
    inFlight: true,
    nodeActions: [{ ...planned.action, reason: `reboot node ${nodeRef.name} (boot ID ${before}): ${issued} recorded, request not yet ${PHASE_REBOOTING}` }],
  };
}

/**
 * Rebooting -> Ready once the Node has a new boot ID and is Ready; the reboot is issued at most once per request (a Job
 * created again is the same Job: see jobAgain).
 */
export function reboot(ctx: StepContext): StepResult {
  const { nm, node, nodeRef, now } = ctx;
  const annotations = nm.metadata.annotations ?? {};
  const bootId = bootIdOf(node);
  const before = annotations[ANNOTATION_REBOOT_BOOT_ID];
  const issued = annotations[ANNOTATION_REBOOT_ISSUED];
  if (before === undefined || issued === undefined) {
    const loaded: LoadedReboot = ctx.reboot ?? { kind: 'invalid', problem: 'spec.reboot was not read' };
    if (loaded.kind === 'invalid') return { kind: 'hold', message: `reboot of node ${nodeRef.name} not issued: ${loaded.problem}`, inFlight: false };
    if (bootId === '') return { kind: 'hold', message: `reboot of node ${nodeRef.name} not issued: it reports no status.nodeInfo.bootID, so its reboot could not be seen`, inFlight: false };
    return issue(ctx, loaded.settings, bootId);
  }
  if (bootId !== '' && bootId !== before && nodeReady(node)) return { kind: 'advance', to: Phase.Ready, note: `node ${nodeRef.name} rebooted (boot ID ${before} -> ${bootId})` };
  const waitingFor = bootId === before || bootId === '' ? `a new boot ID (was ${before})` : `Ready (new boot ID ${bootId})`;
  const timeoutSeconds = ctx.reboot?.kind === 'valid' ? ctx.reboot.settings.timeoutSeconds : undefined;
  const elapsed = secondsSince(annotations[ANNOTATION_REBOOT_START], now);
  if (timeoutSeconds !== undefined && elapsed !== undefined && elapsed > timeoutSeconds) {
    const state = bootId === before || bootId === '' ? `kept boot ID ${before}` : `has a new boot ID ${bootId} but is not Ready`;
    const message = `reboot timed out: node ${nodeRef.name} ${state} ${timeoutSeconds} s after ${issued}; it stays cordoned`;
    const warnings = shownMessage(nm) === message ? [] : [warningEvent(ctx.eventTarget, EVENT_REASON_REBOOT_TIMEOUT, `step ${PHASE_REBOOTING}: ${message}`, 'reboot timed out')];
    return { kind: 'hold', message, inFlight: false, warnings };
  }
  return jobAgain(ctx, issued, before) ?? { kind: 'hold', message: `rebooting node ${nodeRef.name}: ${issued} issued; waiting for ${waitingFor}`, inFlight: true };
}
