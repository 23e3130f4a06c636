// The what-if's findings as one plain object (what `--output json` prints): makespans, admission order, budget
// waits by PodDisruptionBudget, limit waits, peak unavailable nodes by pool.
import type { LoadedConfig } from '../../shared/config/index.ts';
import type { PassSummary } from '../../shared/pass/index.ts';
import type { ClusterCounts } from './cluster.ts';
import type { DeviceHolderEntry, WhatIfObserver } from './observer.ts';
import type { Timeline } from '../report/index.ts';

export interface AdmissionEntry {
  node: string;
  request: string;
  admittedMs: number;
  readyMs?: number;
  releasedMs?: number;
  /** A device request's devices (issue 45): its node stays schedulable, counted unavailable as maxUnavailable counts it. */
  devices?: string[];
  /** A device request's holders when admitted: the pods its drain was for (issue 45). */
  holders?: DeviceHolderEntry[];
  /** A device request's: the pods that left its node while it was in progress (evicted or deleted), in that order. */
  evicted?: string[];
  /** A device request's: its node was unschedulable at some moment while it was in progress (kmaint never cordons for one). */
  nodeCordoned?: boolean;
}

export interface BudgetWait {
  /** namespace/name of the PodDisruptionBudget, or "(no budget)". */
  budget: string;
  /** Pods whose eviction waited. */
  pods: number;
  totalWaitMs: number;
  longestWaitMs: number;
}

/** A released request's node validated before its uncordon (issue 44): how long the node waited, and how it ended. */
export interface ValidationWait {
  node: string;
  request: string;
  startMs: number;
  /** From the start to the uncordon after a pass, to the failure, or (still running) to the end of the run. */
  waitMs: number;
  outcome: 'running' | 'Passed' | 'Failed' | 'TimedOut';
  /** Failed or timed out and the node stayed cordoned. */
  stayedCordoned: boolean;
}

export interface WhatIfReport {
  source: string;
  cluster: { nodes: number; pods: number; budgets: number };
  /** Nodes that got a (node) request. */
  nodes: number;
  /** Device requests filed (one per node) and the devices they name, all together (issue 45). */
  deviceRequests: { requests: number; devices: number };
  limits: { maxParallelOperations: number | null; maxUnavailable: number | 'unlimited' | null; problems: string[] };
  settings: { holdMs: number; podStartMs: number; /** Simulated ms charged per pass. */ passMs: number; transport: 'local' | 'http' };
  /** Every request released; otherwise why the run stopped. */
  outcome: 'done' | 'time-limit' | 'stuck';
  /** Simulated ms from creating the requests to the last one released; undefined unless done. */
  makespanMs: number | undefined;
  /** The floor: grace periods under the limits, no budget waits (see ideal.ts); undefined when nothing can be admitted. */
  idealMakespanMs: number | undefined;
  simulatedMs: number;
  admissionOrder: AdmissionEntry[];
  budgetWaits: BudgetWait[];
  /** Requests that waited for maxParallelOperations / maxUnavailable (or a pool, zone or window) before admission. */
  limitWaits: { requests: number; longestMs: number; meanMs: number };
  peakUnavailableByPool: Array<{ pool: string; peak: number }>;
  peakUnavailable: number;
  peakInProgress: number;
  evictions: number;
  activity: ClusterCounts;
  passes: { rounds: number; skippedQuiet: number; run: number; actions: Record<string, number>; apiRequests: Record<string, number>; errors: string[] };
  /** Nodes that validated before their uncordon, in the order they started; empty without spec.validation. */
  validations: ValidationWait[];
  /** Requests not released when the run stopped, with their phase and Ready message. */
  /** A device request's `holders` are the pods holding its devices when the run stopped. */
  unfinished: Array<{ request: string; node: string; phase: string; message: string; devices?: string[]; holders?: DeviceHolderEntry[] }>;
  wallMs: number;
  /** Of wallMs, loading the cluster into the sim (before the first pass). */
  loadMs: number;
  /** Every node through the phases observed and the unavailable count over time: the HTML report's data. */
  timeline: Timeline;
}

export interface SummaryInput {
  snapshot: { source: string; nodes: number; pods: number; budgets: number };
  chosen: readonly string[];
  /** @default none */
  deviceRequests?: WhatIfReport['deviceRequests'];
  loaded: LoadedConfig;
  observer: WhatIfObserver;
  cluster: ClusterCounts;
  ideal: number | undefined;
  stopped: WhatIfReport['outcome'];
  simMs: number;
  wallMs: number;
  loadMs: number;
  rounds: number;
  skipped: number;
  passes: PassTally;
  open: WhatIfReport['unfinished'];
  settings: WhatIfReport['settings'];
  topBudgets: number;
}

function add(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** Pass summaries added up as they come (a large run makes thousands; their plans are not kept). */
export class PassTally {
  run = 0;
  readonly actions: Record<string, number> = {};
  readonly apiRequests: Record<string, number> = {};
  readonly errors: string[] = [];

  add(s: PassSummary): void {
    this.run++;
    add(this.actions, s.actions);
    add(this.apiRequests, s.requests);
    for (const e of s.errors) if (this.errors.length < 20) this.errors.push(`${s.fn}: ${e}`);
  }
}

export function summarise(i: SummaryInput): WhatIfReport {
  const o = i.observer;
  const admissionOrder: AdmissionEntry[] = o.admitted.map((key) => {
    const t = o.requests.get(key);
    return {
      node: t?.node ?? '',
      request: key,
      admittedMs: t?.admittedMs ?? 0,
      ...(t?.readyMs !== undefined ? { readyMs: t.readyMs } : {}),
      ...(t?.releasedMs !== undefined ? { releasedMs: t.releasedMs } : {}),
      ...(t?.devices !== undefined ? { devices: t.devices } : {}),
      ...(t?.holders !== undefined ? { holders: t.holders } : {}),
      ...(t?.evicted !== undefined ? { evicted: t.evicted } : {}),
      ...(t?.nodeCordoned !== undefined ? { nodeCordoned: t.nodeCordoned } : {}),
    };
  });
  const drainStart = new Map([...o.requests.values()].map((t) => [t.node, t.drainStartMs]));
  const waits = new Map<string, BudgetWait>();
  for (const e of o.evictions) {
    const began = drainStart.get(e.node);
    const wait = began === undefined ? 0 : e.atMs - began;
    if (wait <= 0) continue;
    for (const budget of e.budgets.length > 0 ? e.budgets : ['(no budget)']) {
      const w = waits.get(budget) ?? { budget, pods: 0, totalWaitMs: 0, longestWaitMs: 0 };
      w.pods++;
      w.totalWaitMs += wait;
      w.longestWaitMs = Math.max(w.longestWaitMs, wait);
      waits.set(budget, w);
    }
  }
  const budgetWaits = [...waits.values()].sort((a, b) => b.totalWaitMs - a.totalWaitMs || b.longestWaitMs - a.longestWaitMs || (a.budget < b.budget ? -1 : 1)).slice(0, i.topBudgets);
  // The first scheduler pass (the first pass of a round) ends passMs after the requests are created: not a wait.
  const limitWaited = [...o.requests.values()].filter((t) => t.admittedMs !== undefined && t.admittedMs > t.createdMs + i.settings.passMs).map((t) => (t.admittedMs ?? 0) - t.createdMs);
  const released = [...o.requests.values()].map((t) => t.releasedMs ?? 0);
  return {
    source: i.snapshot.source,
    cluster: { nodes: i.snapshot.nodes, pods: i.snapshot.pods, budgets: i.snapshot.budgets },
    nodes: i.chosen.length,
    deviceRequests: i.deviceRequests ?? { requests: 0, devices: 0 },
    limits: { maxParallelOperations: i.loaded.config.maxParallelOperations, maxUnavailable: i.loaded.config.maxUnavailable, problems: i.loaded.problems },
    settings: i.settings,
    outcome: i.stopped,
    makespanMs: i.stopped === 'done' ? Math.max(0, ...released) : undefined,
    idealMakespanMs: i.ideal,
    simulatedMs: i.simMs,
    admissionOrder,
    budgetWaits,
    limitWaits: {
      requests: limitWaited.length,
      longestMs: Math.max(0, ...limitWaited),
      meanMs: limitWaited.length === 0 ? 0 : Math.round(limitWaited.reduce((a, b) => a + b, 0) / limitWaited.length),
    },
    peakUnavailableByPool: [...o.poolPeak.entries()].map(([pool, peak]) => ({ pool, peak })).sort((a, b) => (a.pool < b.pool ? -1 : 1)),
    peakUnavailable: o.peakUnavailable,
    peakInProgress: o.peakInProgress,
    evictions: o.evictions.length,
    activity: i.cluster,
    passes: { rounds: i.rounds, skippedQuiet: i.skipped, run: i.passes.run, actions: i.passes.actions, apiRequests: i.passes.apiRequests, errors: i.passes.errors },
    validations: o.validations.map((v) => ({ node: v.node, request: v.request, startMs: v.startMs, waitMs: (v.endMs ?? i.simMs) - v.startMs, outcome: v.outcome, stayedCordoned: v.stayedCordoned })),
    unfinished: i.open,
    wallMs: i.wallMs,
    loadMs: i.loadMs,
    timeline: o.timeline({ maxParallelOperations: i.loaded.config.maxParallelOperations, maxUnavailable: i.loaded.config.maxUnavailable }, i.simMs),
  };
}
