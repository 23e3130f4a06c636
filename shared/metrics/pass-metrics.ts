// What one pass measured, as plain data: requests by phase and by the gate they wait on (as the pass leaves them),
// evictions made and refused, drains finished, API errors by verb. Renderers (EMF, Prometheus text, the summary
// line) read this; nothing here writes anywhere.
import { ANNOTATION_DRAIN_START, ANNOTATION_WAIT_KIND, FINALIZER, Phase, isBeingDeleted, maintenancePhase, PHASE_REBOOTING, requestDeadline, waitingOn, waitKindOf } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { waitGateOf, type WaitGate } from './wait-gates.ts';

/** The phase label of a request without a Ready condition yet. */
export const PHASE_NEW = 'New';

/** Every phase in output order (renderers report zeros for the absent ones); Rebooting: a request whose node reboots (issue 43). */
export const PHASES = [PHASE_NEW, Phase.Pending, Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining, PHASE_REBOOTING, Phase.Ready, Phase.RequestorFailed] as const;

export interface PassMetrics {
  /** The pass's `now`, milliseconds since the epoch. */
  at: number;
  /** Requests by phase after this pass's writes (phases with none are left out). */
  requests: Record<string, number>;
  /** By phase: whole seconds since the oldest request in it was created. */
  oldestSeconds: Record<string, number>;
  /** Requests waiting, by the gate that holds them (gates holding none are left out). */
  waiting: Partial<Record<WaitGate, number>>;
  /**
   * By gate: whole seconds the longest-waiting request has waited — since its drain started for `budget` and
   * `slurm` (they hold a drain), since it was created for the others (a request waits for admission from the start).
   */
  waitingOldestSeconds: Partial<Record<WaitGate, number>>;
  /** Requests past their kmaint.io/deadline and still not Ready (not being deleted), after this pass's writes. */
  pastDeadline: number;
  /** Evictions the API server accepted. */
  evictions: number;
  /** Evictions the API server refused for a disruption budget (429, or a pod under several budgets). */
  evictionsRefused: number;
  /** Whole seconds from drain start to Ready of each request that became Ready in this pass, in plan order. */
  drainSeconds: number[];
  /** API requests that failed (after retries), by "verb resource". */
  apiErrors: Record<string, number>;
  /** Reaper passes with the repair ladder: Nodes repaired more than repeatLimit times in the history window. */
  repeatOffenders?: number;
}

export interface PassMetricsInput {
  /** The requests as the pass read them. */
  maintenances: readonly NodeMaintenance[];
  /** The pass's plan; its writes are taken as made, except those of `stoppedUnits`. */
  actions: readonly Action[];
  /** Units whose writes stopped at one that did not land (ApplyResult.stopped, "nm/<ns>/<name>"): measured as read. */
  stoppedUnits?: readonly string[];
  evictions: number;
  evictionsRefused: number;
  apiErrors: Record<string, number>;
  now: Date;
  /** Reaper passes with the repair ladder: Nodes over its repeatLimit, as the plan read them. */
  repeatOffenders?: number;
}

interface Projected {
  nm: NodeMaintenance;
  annotations: Record<string, string>;
}

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

/** The requests as the plan leaves them: statuses written, annotations patched, finalizers removed, objects created or deleted. */
function project(maintenances: readonly NodeMaintenance[], actions: readonly Action[], stoppedUnits: ReadonlySet<string>, now: Date): Map<string, Projected> {
  const out = new Map<string, Projected>(maintenances.map((nm) => [keyOf(nm.metadata.namespace, nm.metadata.name), { nm, annotations: { ...(nm.metadata.annotations ?? {}) } }]));
  for (const a of actions) {
    if ((a.kind === 'createMaintenance' || a.kind === 'writeStatus' || a.kind === 'patchMaintenanceMeta' || a.kind === 'deleteMaintenance') && stoppedUnits.has(`nm/${a.target.namespace}/${a.target.name}`)) continue;
    if (a.kind === 'createMaintenance') {
      const nm: NodeMaintenance = { metadata: { name: a.target.name, namespace: a.target.namespace, creationTimestamp: now.toISOString() }, spec: a.spec };
      out.set(keyOf(a.target.namespace, a.target.name), { nm, annotations: { ...a.annotations } });
      continue;
    }
    if (a.kind !== 'writeStatus' && a.kind !== 'patchMaintenanceMeta' && a.kind !== 'deleteMaintenance') continue;
    const key = keyOf(a.target.namespace, a.target.name);
    const p = out.get(key);
    if (p === undefined) continue;
    if (a.kind === 'writeStatus') {
      p.nm = { ...p.nm, status: a.status };
    } else if (a.kind === 'deleteMaintenance') {
      if ((p.nm.metadata.finalizers ?? []).length === 0) out.delete(key);
      else p.nm = { ...p.nm, metadata: { ...p.nm.metadata, deletionTimestamp: now.toISOString() } };
    } else {
      for (const [k, v] of Object.entries(a.annotations ?? {})) {
        if (v === null) delete p.annotations[k];
        else p.annotations[k] = v;
      }
      const left = (p.nm.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
      // The API server removes a deleted object once its last finalizer goes.
      if (a.removeFinalizer && p.nm.metadata.deletionTimestamp && left.length === 0) out.delete(key);
    }
  }
  return out;
}

/** Whole seconds from `iso` to `now`, never negative; undefined when `iso` is missing or unreadable. */
function secondsSince(iso: string | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.floor((now.getTime() - t) / 1000));
}

const bump = <K extends string>(rec: Partial<Record<K, number>>, key: K, by = 1): void => {
  rec[key] = (rec[key] ?? 0) + by;
};
const keepMax = <K extends string>(rec: Partial<Record<K, number>>, key: K, value: number): void => {
  rec[key] = Math.max(rec[key] ?? 0, value);
};

/** Measures one pass from what it read, planned and applied. Pure: inputs are not mutated. */
export function measurePass(input: PassMetricsInput): PassMetrics {
  const { now } = input;
  const stopped = new Set(input.stoppedUnits ?? []);
  const projected = project(input.maintenances, input.actions, stopped, now);
  const requests: Record<string, number> = {};
  const oldestSeconds: Record<string, number> = {};
  const waiting: Partial<Record<WaitGate, number>> = {};
  const waitingOldestSeconds: Partial<Record<WaitGate, number>> = {};
  let pastDeadline = 0;
  for (const { nm, annotations } of projected.values()) {
    const phase = maintenancePhase(nm) || PHASE_NEW;
    const deadline = requestDeadline(nm);
    if (deadline.kind === 'valid' && now.getTime() > deadline.at.getTime() && phase !== Phase.Ready && !isBeingDeleted(nm)) pastDeadline += 1;
    const age = secondsSince(nm.metadata.creationTimestamp, now) ?? 0;
    bump(requests, phase);
    keepMax(oldestSeconds, phase, age);
    // Both as the pass leaves them: its status write (kmaint.io/Waiting) and its metadata patch (kmaint.io/wait-kind).
    const gate = waitGateOf(waitingOn(nm), waitKindOf(annotations[ANNOTATION_WAIT_KIND]));
    if (gate === undefined) continue;
    bump(waiting, gate);
    const since = gate === 'budget' || gate === 'slurm' ? (secondsSince(annotations[ANNOTATION_DRAIN_START], now) ?? age) : age;
    keepMax(waitingOldestSeconds, gate, since);
  }
  const drainSeconds: number[] = [];
  for (const a of input.actions) {
    if (a.kind !== 'writeStatus' || stopped.has(`nm/${a.target.namespace}/${a.target.name}`)) continue;
    if (a.phaseTo !== Phase.Ready || a.phaseFrom === Phase.Ready || a.phaseFrom === Phase.RequestorFailed) continue;
    // A request with no drainSpec never drains and has no start: it is not a drain.
    const start = projected.get(keyOf(a.target.namespace, a.target.name))?.annotations[ANNOTATION_DRAIN_START];
    const seconds = secondsSince(start, now);
    if (seconds !== undefined) drainSeconds.push(seconds);
  }
  return {
    at: now.getTime(),
    requests,
    oldestSeconds,
    waiting,
    waitingOldestSeconds,
    pastDeadline,
    evictions: input.evictions,
    evictionsRefused: input.evictionsRefused,
    drainSeconds,
    apiErrors: { ...input.apiErrors },
    ...(input.repeatOffenders !== undefined ? { repeatOffenders: input.repeatOffenders } : {}),
  };
}
