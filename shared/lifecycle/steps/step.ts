// The contract of a drainer step: what it reads about one request, and what it returns (advance or hold) with its
// writes as data, which the drainer alone assembles into the request's actions.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { readyCondition } from '../../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance, NodeMaintenanceStatus, NodeRef, Phase, PHASE_REBOOTING, WaitKind, WaitingOn } from '../../api/index.ts';
import type { LoadedReboot } from '../../reboot/index.ts';
import type { SlurmContext, SlurmWrite } from '../../slurm/index.ts';
import type { DraView, OwnPods } from '../../drain/index.ts';
import type { BudgetLedger } from '../budgets.ts';
import type { Medik8sLeases } from '../node-lease.ts';

/** Where a request's events go. */
export type MaintenanceEventTarget = Extract<Action, { kind: 'emitEvent' }>['target'];

/** What a step reads: one request, its node and pods, and what the pass read around them. */
export interface StepContext {
  nm: NodeMaintenance;
  /** The phase being planned: the request's own, or the one an earlier step advanced it to in this pass. */
  phase: string;
  node: V1Node;
  nodeRef: NodeRef;
  ref: MaintenanceRef;
  eventTarget: MaintenanceEventTarget;
  /** The pods on the request's node. */
  pods: readonly V1Pod[];
  /** The status as the earlier steps of this pass left it (the request's own, copied, at the first step). */
  status: NodeMaintenanceStatus;
  /** undefined reads as a cluster without the medik8s-leases namespace. */
  medik8s: Medik8sLeases | undefined;
  /** undefined = Slurm off. */
  slurm: SlurmContext | undefined;
  /** The pass's ResourceClaims and driver table; undefined: podEvictionFilters see requested resources only. */
  dra: DraView | undefined;
  /** kmaint's own pods (its namespace and ServiceAccounts), never drained; undefined: kmaint has no pods here. */
  ownPods?: OwnPods | undefined;
  /**
   * Shared by every request of the pass, planned in namespace/name order: an admitted eviction spends its budget's
   * slot here, so the step's only effect outside its result is the one later requests must see.
   */
  ledger: BudgetLedger;
  now: Date;
  /** kmaint's namespace: where its own reap requests are (forceRetryOnError applies only to those); undefined: to none. */
  kmaintNamespace?: string;
  /** spec.reboot (issue 43), for the Rebooting step; undefined: not read, so no reboot is issued. */
  reboot?: LoadedReboot;
}

/** What a step asks to write, whether it advances or holds. The drainer puts each kind in its fixed place. */
export interface StepWrites {
  /** Merged, in step order, into the request's one metadata patch (null deletes). */
  annotations?: Readonly<Record<string, string | null>>;
  addFinalizer?: true;
  ownerNode?: { name: string; uid: string };
  nodeActions?: readonly Action[];
  podActions?: readonly Action[];
  /** Warning events, sent after the request's ConditionChanged events. */
  warnings?: readonly Action[];
  /** Drains for slurmrestd. */
  slurm?: readonly SlurmWrite[];
  /** Replaces the status carried so far. */
  status?: NodeMaintenanceStatus;
}

/** Move on to `to` in this pass. */
export interface Advance extends StepWrites {
  kind: 'advance';
  to: Phase | typeof PHASE_REBOOTING;
  /** The Ready condition's message when the walk then holds in `to` with no message of its own (Ready's). */
  note?: string;
}

/** Stay in the phase: `message` becomes the Ready condition's; `inFlight` when another pass soon may move it. */
export interface Hold extends StepWrites {
  kind: 'hold';
  message: string;
  inFlight: boolean;
  /** What the message waits on when it is another system (kmaint.io/wait-kind); absent: no such wait. */
  wait?: WaitKind;
  /** What the request waits on in kmaint's own terms (kmaint.io/Waiting: a PodDisruptionBudget); absent: no such wait. */
  on?: WaitingOn;
}

export type StepResult = Advance | Hold;

/** One phase's work. Pure but for the budget ledger (see StepContext.ledger). */
export type DrainerStep = (ctx: StepContext) => StepResult;

/** The Ready condition's message as stored: a warning goes out only when the new message differs from it. */
export function shownMessage(nm: NodeMaintenance): string {
  return readyCondition(nm)?.message ?? '';
}

/** A Warning event on the request. */
export function warningEvent(target: MaintenanceEventTarget, eventReason: string, message: string, reason: string): Action {
  return { kind: 'emitEvent', target, type: 'Warning', eventReason, message, reason };
}

/** Seconds from the RFC 3339 time `iso` to `now`; undefined when absent or unreadable (a window not yet started). */
export function secondsSince(iso: string | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : (now.getTime() - t) / 1000;
}

