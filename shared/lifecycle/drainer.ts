// The drainer's pure plan: Scheduled -> Cordon -> WaitForPodCompletion -> Draining -> Ready (<-> RequestorFailed),
// advancing each request as far as the snapshot allows in one pass.
import { isDeepStrictEqual } from 'node:util';
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { maintenanceKey, maintenancePhase, maintenanceRef, podRef, readyCondition, rfc3339Seconds, withReadyCondition } from '../api/index.ts';
import type { Action, NodeMaintenance, NodeMaintenanceStatus } from '../api/index.ts';
import {
  ANNOTATION_CORDON_REASON,
  ANNOTATION_CORDON_RECORDED,
  ANNOTATION_CORDONED_BY,
  ANNOTATION_DRAIN_START,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_MEDIK8S_LEASE,
  ANNOTATION_READY_TIME,
  ANNOTATION_WAIT_POD_COMPLETION_START,
  CONDITION_REQUESTOR_FAILED,
  DEFAULTS,
  EVENT_REASON_CONDITION_CHANGED,
  EVENT_REASON_DRAIN_REFUSED,
  EVENT_REASON_DRAIN_TIMEOUT,
  EVENT_REASON_EVICTION_BLOCKED,
  EVENT_REASON_INVALID_MAINTENANCE,
  EVENT_REASON_NODE_LEASE_HELD,
  FINALIZER,
  MEDIK8S_LEASE_NAMESPACE,
  Phase,
} from '../api/index.ts';
import { computeDrainStatus, podsBlockingCompletion, reapForceDeletes, selectPodsForDrain } from '../drain/index.ts';
import { BudgetLedger } from './budgets.ts';
import { cordonedBy, holderFor, leaseWrite, nodeLeaseName, viewLease, type Medik8sLeases } from './node-lease.ts';
import { planSlurmGate, type SlurmContext, type SlurmWrite } from '../slurm/index.ts';

/** Phases the drainer moves (objects being deleted belong to cleanup). */
export const DRAINER_PHASES: ReadonlySet<string> = new Set([
  Phase.Scheduled,
  Phase.Cordon,
  Phase.WaitForPodCompletion,
  Phase.Draining,
  Phase.Ready,
  Phase.RequestorFailed,
]);

/** Phases whose node's pods the drainer must read. */
export const PHASES_NEEDING_PODS: ReadonlySet<string> = new Set([Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining]);

export interface DrainerSnapshot {
  nodes: ReadonlyMap<string, V1Node>;
  maintenances: readonly NodeMaintenance[];
  /** Pods by node name, for the nodes of requests in PHASES_NEEDING_PODS. */
  podsByNode: ReadonlyMap<string, readonly V1Pod[]>;
  pdbs: readonly V1PodDisruptionBudget[];
  /** By budget key: the pods of budgets that allow no eviction (budgetsToExplain), to say why they hold. */
  budgetPods?: ReadonlyMap<string, readonly V1Pod[]>;
  /** The medik8s node leases; undefined reads as a cluster without the medik8s-leases namespace. */
  medik8s?: Medik8sLeases;
  /** spec.slurm when enabled: its settings and the Slurm nodes as read this pass; undefined = Slurm off. */
  slurm?: SlurmContext;
}

export interface DrainerPlan {
  actions: Action[];
  /** Drains to send to slurmrestd (each already recorded on its request in an earlier pass). */
  slurm: SlurmWrite[];
  /** Requests still moving (waiting for pods, draining): another pass soon is useful. */
  inFlight: number;
  /** Requests that reached Ready in this plan. */
  becameReady: number;
  idle: boolean;
}


function secondsSince(iso: string | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : (now.getTime() - t) / 1000;
}

function podKey(p: V1Pod): string {
  return `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
}

function requestorFailed(nm: NodeMaintenance): boolean {
  return nm.status?.conditions?.some((c) => c.type === CONDITION_REQUESTOR_FAILED && c.status === 'True') ?? false;
}

function listHead(items: readonly string[], max = 3): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

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
 * While the maintenance holds the node: renew our medik8s lease when half of it is used up, and drop our cordon record
 * once someone has uncordoned the node (a later cordon is then theirs, and cleanup leaves it).
 */
function keepHold(nm: NodeMaintenance, node: V1Node, medik8s: Medik8sLeases | undefined, ref: ReturnType<typeof maintenanceRef>, now: Date): Action[] {
  const out: Action[] = [];
  const holder = holderFor(nm);
  const nodeRef = { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };
  if (cordonedBy(node) === holder && node.spec?.unschedulable !== true) {
    out.push({ kind: 'patchNodeAnnotations', node: nodeRef, annotations: { [ANNOTATION_CORDONED_BY]: null, [ANNOTATION_CORDON_REASON]: null }, maintenance: ref, reason: 'node uncordoned by someone else: the cordon is no longer ours' });
  }
  if (medik8s?.kind === 'present' && nm.metadata.annotations?.[ANNOTATION_MEDIK8S_LEASE] !== undefined) {
    const view = viewLease(medik8s.leases.get(nodeLeaseName(nodeRef.name)), holder, now);
    if (view.state === 'ours' && view.renewDue) out.push({ kind: 'takeNodeLease', lease: leaseWrite(node, view, holder, now), maintenance: ref, reason: 'renew the medik8s node lease' });
  }
  return out;
}

/** Plans one request; returns its actions and whether it is still in flight. */
function planOne(nm: NodeMaintenance, node: V1Node, snapshot: DrainerSnapshot, ledger: BudgetLedger, now: Date): { actions: Action[]; slurm: SlurmWrite[]; inFlight: boolean; ready: boolean } {
  const ref = maintenanceRef(nm);
  const eventTarget = { kind: 'NodeMaintenance' as const, namespace: ref.namespace, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) };
  const start = maintenancePhase(nm);
  const annotations = nm.metadata.annotations ?? {};
  const metaAnnotations: Record<string, string | null> = {};
  let addFinalizer = false;
  let ownerNode: { name: string; uid: string } | undefined;
  const nodeActions: Action[] = [];
  const podActions: Action[] = [];
  const warnings: Action[] = [];
  const slurmWrites: SlurmWrite[] = [];
  let status: NodeMaintenanceStatus = structuredClone(nm.status ?? {});
  let phase: string = start;
  let message = '';
  const passed: string[] = [];
  const pods = snapshot.podsByNode.get(node.metadata?.name ?? '') ?? [];
  let inFlight = false;
  const nodeRef = { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };

  const advance = (to: string): void => {
    phase = to;
    passed.push(to);
  };

  for (let guard = 0; guard < 8; guard++) {
    if (phase === Phase.Scheduled) {
      // The finalizer goes on before anything touches the node, so deletion always reaches cleanup.
      if (!(nm.metadata.finalizers ?? []).includes(FINALIZER)) addFinalizer = true;
      const owned = (nm.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node' && o.name === nodeRef.name);
      if (!owned && node.metadata?.uid) ownerNode = { name: nodeRef.name, uid: node.metadata.uid };
      advance(Phase.Cordon);
      continue;
    }
    if (phase === Phase.Cordon) {
      if (nm.spec.cordon ?? DEFAULTS.cordon) {
        const unschedulable = node.spec?.unschedulable === true;
        // Record the node's prior state before cordoning: cleanup undoes only what we did.
        if (annotations[ANNOTATION_INITIAL_UNSCHEDULABLE] === undefined) metaAnnotations[ANNOTATION_INITIAL_UNSCHEDULABLE] = String(unschedulable);
        // Another tool working on the node (the medik8s node lease) goes first: wait, and say for whom.
        const claim = claimNodeLease(nm, node, snapshot.medik8s, now);
        if (claim.kind === 'wait') {
          message = claim.message;
          inFlight = true;
          if (message !== (readyCondition(nm)?.message ?? '')) {
            warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: EVENT_REASON_NODE_LEASE_HELD, message, reason: 'medik8s node lease not available' });
          }
          break;
        }
        if (claim.kind === 'take') {
          // Recorded on the request before the lease is taken, so cleanup always looks for it.
          if (annotations[ANNOTATION_MEDIK8S_LEASE] === undefined) metaAnnotations[ANNOTATION_MEDIK8S_LEASE] = `${claim.lease.namespace}/${claim.lease.name}`;
          nodeActions.push({ kind: 'takeNodeLease', lease: claim.lease, maintenance: ref, reason: `before cordoning node ${nodeRef.name}` });
        }
        if (!unschedulable) {
          // Who cordoned the node and why, on the node itself, in the cordon's own patch: cleanup uncordons only on this
          // record. One write: a second one would race the controllers that react to the cordon (the unschedulable taint).
          const record = { [ANNOTATION_CORDONED_BY]: holderFor(nm), [ANNOTATION_CORDON_REASON]: `NodeMaintenance ${ref.namespace}/${ref.name} (requestor ${nm.spec.requestorID})` };
          if (annotations[ANNOTATION_CORDON_RECORDED] === undefined) metaAnnotations[ANNOTATION_CORDON_RECORDED] = 'true';
          nodeActions.push({ kind: 'cordonNode', node: nodeRef, maintenance: ref, reason: `cordon for ${ref.namespace}/${ref.name}`, annotations: record });
        }
      }
      advance(Phase.WaitForPodCompletion);
      continue;
    }
    if (phase === Phase.WaitForPodCompletion) {
      const wait = nm.spec.waitForPodCompletion;
      if (!wait) {
        advance(Phase.Draining);
        continue;
      }
      let startedAt = annotations[ANNOTATION_WAIT_POD_COMPLETION_START] ?? '';
      if (secondsSince(startedAt, now) === undefined) {
        startedAt = rfc3339Seconds(now);
        metaAnnotations[ANNOTATION_WAIT_POD_COMPLETION_START] = startedAt;
      }
      const completion = podsBlockingCompletion(pods, wait.podSelector ?? '');
      if (!completion.ok) {
        // Never guess with a selector we cannot read: stay here and say why.
        message = completion.error; // already names the field: "waitForPodCompletion.podSelector: invalid label selector …"
        inFlight = true;
        break;
      }
      const blocking = completion.waitingFor;
      const timeout = wait.timeoutSeconds ?? DEFAULTS.waitTimeoutSeconds;
      const elapsed = secondsSince(startedAt, now) ?? 0;
      if (blocking.length > 0 && !(timeout > 0 && elapsed >= timeout)) {
        status = { ...status, waitForCompletion: blocking };
        // An absolute deadline, not "in N s": the message must not change (and be written again) every pass.
        const deadline = timeout > 0 ? ` (timeout at ${rfc3339Seconds(new Date(Date.parse(startedAt) + timeout * 1000))})` : '';
        message = `waiting for ${blocking.length} pod${blocking.length === 1 ? '' : 's'} to complete: ${listHead(blocking)}${deadline}`;
        inFlight = true;
        break;
      }
      const { waitForCompletion: _done, ...rest } = status;
      status = rest;
      advance(Phase.Draining);
      continue;
    }
    if (phase === Phase.Draining) {
      const spec = nm.spec.drainSpec;
      const selection = spec ? selectPodsForDrain(pods, spec) : undefined;
      if (selection?.podSelectorProblem !== undefined) {
        // Never guess with a selector we cannot read: no pod is judged or removed, no drain window starts and no Slurm
        // node is drained for it; stay here, lead with the field, say once that nothing is evicted, warn once per message.
        const { podSelectorProblem } = selection;
        message = [unreadableSelectorMessage(podSelectorProblem), ...selection.problems.filter((p) => p !== podSelectorProblem)].join('; ');
        inFlight = true;
        if (message !== (readyCondition(nm)?.message ?? '')) {
          warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: EVENT_REASON_INVALID_MAINTENANCE, message, reason: 'unreadable drainSpec.podSelector' });
        }
        break;
      }
      if (snapshot.slurm) {
        // Slurm first: no pod leaves the node before its Slurm nodes are Drained (or Slurm can be read at all).
        const gate = planSlurmGate(nm, node, pods, snapshot.slurm, now);
        Object.assign(metaAnnotations, gate.annotations);
        slurmWrites.push(...gate.writes);
        // Once per new wait message; a warning that lets the drain go on, once as the drain starts.
        const previous = readyCondition(nm)?.message ?? '';
        if (gate.warning && (gate.hold ? gate.message !== previous : !previous.startsWith('draining:'))) {
          warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: gate.warning.eventReason, message: gate.warning.message, reason: 'Slurm drain' });
        }
        if (gate.hold) {
          message = gate.message;
          inFlight = true;
          break;
        }
      }
      if (!spec || !selection) {
        const { drain: _none, ...rest } = status;
        status = rest;
        advance(Phase.Ready);
        continue;
      }
      let drainStart = annotations[ANNOTATION_DRAIN_START];
      let newWindow = false;
      if (secondsSince(drainStart, now) === undefined) {
        drainStart = rfc3339Seconds(now);
        metaAnnotations[ANNOTATION_DRAIN_START] = drainStart;
        newWindow = true;
      }
      const timeout = spec.timeoutSeconds ?? DEFAULTS.drainTimeoutSeconds;
      const elapsed = secondsSince(drainStart, now) ?? 0;
      const timedOut = timeout > 0 && elapsed >= timeout;
      for (const p of selection.deleteFinished) {
        podActions.push({ kind: 'deletePod', pod: podRef(p), maintenance: ref, reason: 'finished pod removed without a budget check' });
      }
      const blocked: string[] = [];
      const refusals = selection.refused.map((r) => r.message);
      // forceRetryOnError (reap requests only): after the timeout, delete instead of evicting; see shared/reaper.
      const forced = timedOut ? reapForceDeletes(nm, selection.evict, ref, timeout) : undefined;
      if (forced) podActions.push(...forced.actions);
      for (const p of forced ? [] : selection.evict) {
        const d = ledger.decide(p);
        if (d.kind === 'blocked') blocked.push(d.message ?? '');
        else if (d.kind === 'refused') refusals.push(d.message ?? '');
        else podActions.push({ kind: 'evictPod', pod: podRef(p), maintenance: ref, reason: d.budget ? `drain (budget ${d.budget} allows it)` : 'drain' });
      }
      // A new drain window (first entry, or a timed-out one restarting) recomputes status.drain, as upstream's new drain does.
      const drain = computeDrainStatus(selection, newWindow || timedOut ? undefined : status.drain);
      status = { ...status, drain };
      const remaining = drain.waitForEviction?.length ?? 0;
      if (remaining === 0 && refusals.length === 0 && blocked.length === 0 && selection.problems.length === 0) {
        advance(Phase.Ready);
        continue;
      }
      inFlight = true;
      const parts = [`draining: ${remaining} of ${drain.evictionPods} pods left`];
      if (blocked.length > 0) parts.push(listHead(blocked, 2));
      if (refusals.length > 0) parts.push(`refused: ${listHead(refusals, 2)}`);
      for (const problem of selection.problems) parts.push(problem);
      if (forced) parts.push(forced.message);
      message = parts.join('; ');
      if (timedOut) {
        // As upstream: report the timeout, then start a fresh window instead of giving up.
        metaAnnotations[ANNOTATION_DRAIN_START] = rfc3339Seconds(now);
        warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: EVENT_REASON_DRAIN_TIMEOUT, message: `drain did not finish within ${timeout} s (${remaining} pods left); retrying with a new window`, reason: 'drain timeout' });
      }
      const previous = readyCondition(nm)?.message ?? '';
      if (message !== previous) {
        if (refusals.length > 0) warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: EVENT_REASON_DRAIN_REFUSED, message: listHead(refusals, 5), reason: 'drain refused pods' });
        if (blocked.length > 0) warnings.push({ kind: 'emitEvent', target: eventTarget, type: 'Warning', eventReason: EVENT_REASON_EVICTION_BLOCKED, message: listHead(blocked, 5), reason: 'eviction blocked by a budget' });
      }
      break;
    }
    if (phase === Phase.Ready || phase === Phase.RequestorFailed) {
      if (annotations[ANNOTATION_READY_TIME] === undefined) metaAnnotations[ANNOTATION_READY_TIME] = rfc3339Seconds(now);
      const target = requestorFailed(nm) ? Phase.RequestorFailed : Phase.Ready;
      if (target !== phase) advance(target);
      break;
    }
    break;
  }

  if (start !== Phase.Scheduled && start !== Phase.Cordon) nodeActions.push(...keepHold(nm, node, snapshot.medik8s, ref, now));

  const actions: Action[] = [];
  if (addFinalizer || ownerNode || Object.keys(metaAnnotations).length > 0) {
    actions.push({
      kind: 'patchMaintenanceMeta',
      target: ref,
      ...(Object.keys(metaAnnotations).length > 0 ? { annotations: metaAnnotations } : {}),
      ...(addFinalizer ? { addFinalizer: true } : {}),
      ...(ownerNode ? { ownerNode } : {}),
      reason: addFinalizer ? 'finalizer before touching the node' : 'record progress',
    });
  }
  actions.push(...nodeActions, ...podActions);
  const withStatus: NodeMaintenance = { ...nm, status };
  const cond = withReadyCondition(withStatus, { status: phase === Phase.Ready ? 'True' : 'False', reason: phase, message }, now);
  // Structural, not JSON text: the API server returns custom resources with their keys sorted, so a freshly built
  // status.drain ({totalPods, …}) never equals the stored one ({drainProgress, …}) as a string.
  const statusChanged = cond !== undefined || !isDeepStrictEqual(status, nm.status ?? {});
  if (statusChanged) {
    actions.push({
      kind: 'writeStatus',
      target: ref,
      status: cond ?? status,
      ...(phase !== start ? { phaseFrom: start, phaseTo: phase } : {}),
      reason: phase !== start ? `${start} -> ${phase}` : message || 'status update',
    });
  }
  for (const p of passed) {
    actions.push({ kind: 'emitEvent', target: eventTarget, type: 'Normal', eventReason: EVENT_REASON_CONDITION_CHANGED, message: p, reason: `phase ${p}` });
  }
  actions.push(...warnings);
  return { actions, slurm: slurmWrites, inFlight, ready: passed.includes(Phase.Ready) };
}

/** What the drainer (and `kmaint explain`) say of a request whose drainSpec.podSelector cannot be read. */
export function unreadableSelectorMessage(podSelectorProblem: string): string {
  return `${podSelectorProblem}; nothing is evicted until it is fixed`;
}

/** Plans every request the drainer owns, in namespace/name order. Pure: inputs are not mutated. */
export function planDrainer(snapshot: DrainerSnapshot, now: Date): DrainerPlan {
  const ledger = new BudgetLedger(snapshot.pdbs, snapshot.budgetPods);
  const actions: Action[] = [];
  const slurm: SlurmWrite[] = [];
  let inFlight = 0;
  let becameReady = 0;
  const owned = snapshot.maintenances
    .filter((nm) => !nm.metadata.deletionTimestamp && DRAINER_PHASES.has(maintenancePhase(nm)))
    .sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : maintenanceKey(a) > maintenanceKey(b) ? 1 : 0));
  for (const nm of owned) {
    const node = snapshot.nodes.get(nm.spec.nodeName);
    if (!node) continue; // cleanup releases requests whose node is gone
    const one = planOne(nm, node, snapshot, ledger, now);
    actions.push(...one.actions);
    slurm.push(...one.slurm);
    if (one.inFlight) inFlight++;
    if (one.ready) becameReady++;
  }
  return { actions, slurm, inFlight, becameReady, idle: actions.length === 0 && slurm.length === 0 && inFlight === 0 };
}

export { podKey };
