// What a what-if measures, from the store's events: when each request was admitted, drained, Ready and released;
// which pods a drain evicted late and which budget held them; how many nodes were unavailable per pool.
import { DRAIN_STARTED_PHASES, maintenanceKey } from '../../shared/api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import type { NodeMaintenance } from '../../shared/api/index.ts';
import { deviceNameText, deviceRequestOf } from '../../shared/devices/index.ts';
import { isInProgress, isNodeUnavailable, maintenancePhase } from '../../shared/scheduling/index.ts';
import type { JsonObject, StoreEvent } from '../apiserver/index.ts';
import type { PodRecord } from './pod-record.ts';
import { TimelineRecorder, type Timeline } from '../report/index.ts';
import { ValidationLanes, type ValidationAttempt } from './validation-lanes.ts';

export interface RequestTimes {
  key: string;
  node: string;
  createdMs: number;
  admittedMs?: number;
  drainStartMs?: number;
  readyMs?: number;
  releasedMs?: number;
  /**
   * A device request's devices (`driver/pool/device`, issue 45; [] when its annotation cannot be read). Its node is
   * not cordoned, but counts as unavailable while the request is in progress, as maxUnavailable counts it.
   */
  devices?: string[];
  /** A device request's holders when it was admitted: the pods whose allocated claims held its devices. */
  holders?: DeviceHolderEntry[];
  /** A device request's: the pods that began to leave its node while it was in progress (`namespace/name`). */
  evicted?: string[];
  /** A device request's: its node was unschedulable at some moment while it was in progress. */
  nodeCordoned?: boolean;
}

/** A pod holding devices of a device request (`namespace/name`), with those devices (`driver/pool/device`, sorted). */
export interface DeviceHolderEntry {
  pod: string;
  devices: string[];
}

/** A device request's note on the timeline: "devices: gpu-0, gpu-1; held by: ml/a, ml/b" (`no pod` when none). */
export function deviceNote(devices: readonly string[], holders: readonly DeviceHolderEntry[]): string {
  const names = devices.map((d) => d.slice(d.lastIndexOf('/') + 1)).join(', ');
  return `devices: ${names}; held by: ${holders.map((h) => h.pod).join(', ') || 'no pod'}`;
}

/** The devices a request names, for RequestTimes; nothing for a node request. */
export function requestDevices(nm: NodeMaintenance): { devices?: string[] } {
  const request = deviceRequestOf(nm);
  if (request.kind === 'node') return {};
  return { devices: request.kind === 'devices' ? request.devices.map(deviceNameText) : [] };
}

export interface Eviction {
  pod: string;
  node: string;
  atMs: number;
  budgets: string[];
}

/** Phases at or after the start of the drain. */

export class WhatIfObserver {
  readonly requests = new Map<string, RequestTimes>();
  readonly evictions: Eviction[] = [];
  /** Admission order, as namespace/name. */
  readonly admitted: string[] = [];
  private readonly inProgressByNode = new Map<string, Set<string>>();
  private readonly nodeDown = new Map<string, boolean>();
  private readonly unavailable = new Set<string>();
  private readonly poolCount = new Map<string, number>();
  readonly poolPeak = new Map<string, number>();
  peakUnavailable = 0;
  peakInProgress = 0;
  private inProgress = 0;
  private open = 0;
  /** Every transition as the store saw it, for the HTML report. */
  private readonly recorder = new TimelineRecorder();
  /** Nodes cordoned now, by name (a validation that failed keeps its node so). */
  private readonly cordoned = new Set<string>();
  /** Released requests' nodes validating before their uncordon (issue 44), drawn on the nodes' lanes. */
  private readonly validation = new ValidationLanes({
    phase: (request, node, phase, atMs) => this.recorder.phase(request, node, phase, atMs),
    end: (request, atMs) => this.recorder.released(request, atMs),
    released: (request) => this.requests.get(request)?.releasedMs !== undefined,
  });

  constructor(
    private readonly now: () => number,
    /** The pool a node belongs to, for the peaks. */
    private readonly poolOf: (node: string) => string,
    /** The budgets selecting a pod. */
    private readonly budgetsOf: (podKey: string) => string[],
    /** A request reached Ready (the requestor's cue). */
    private readonly onReady: (nm: NodeMaintenance) => void,
    /** The pods on `node` holding any of `devices` now (issue 45); without it, a device request's holders are not kept. */
    private readonly holdersOf?: (node: string, devices: readonly string[]) => DeviceHolderEntry[],
  ) {}

  /** Nodes as they are before the run. */
  seedNodes(nodes: readonly V1Node[]): void {
    for (const n of nodes) {
      const name = n.metadata?.name ?? '';
      const pool = this.poolOf(name);
      this.poolCount.set(pool, this.poolCount.get(pool) ?? 0);
      this.poolPeak.set(pool, this.poolPeak.get(pool) ?? 0);
      this.nodeDown.set(name, isNodeUnavailable(n));
      this.recount(name);
      this.onNodeValidation(n);
    }
  }

  /** Every validation before an uncordon seen so far, in the order they started. */
  get validations(): readonly ValidationAttempt[] {
    return this.validation.attempts;
  }

  /** The node has a request in progress. */
  inMaintenance(node: string): boolean {
    return (this.inProgressByNode.get(node)?.size ?? 0) > 0;
  }

  /** Every request has been released (deleted by its requestor and let go by cleanup). */
  get done(): boolean {
    return this.open === 0;
  }

  /** Requests released so far. */
  get released(): number {
    return this.requests.size - this.open;
  }

  onStoreEvent(e: StoreEvent): void {
    if (e.kind.resource === 'nodes' && e.kind.group === '' && e.type !== 'DELETED') {
      const node = JSON.parse(e.object.json) as V1Node;
      const name = node.metadata?.name ?? '';
      this.nodeDown.set(name, isNodeUnavailable(node));
      this.recount(name);
      this.onNodeValidation(node);
      this.recordCounts();
    } else if (e.kind.resource === 'nodemaintenances') {
      this.onMaintenance(JSON.parse(e.object.json) as JsonObject as unknown as NodeMaintenance, e.type === 'DELETED');
    }
  }

  /** kmaint evicting a pod from a node it maintains (the pod turned terminating). */
  onPod(r: PodRecord, previous: PodRecord | undefined, gone: boolean): void {
    if (gone || !r.terminating || previous?.terminating !== false || r.nodeName === undefined) return;
    const requests = this.inProgressByNode.get(r.nodeName);
    if (!requests?.size) return;
    this.evictions.push({ pod: r.key, node: r.nodeName, atMs: this.now(), budgets: this.budgetsOf(r.key) });
    for (const key of requests) this.deviceRequest(key)?.evicted?.push(r.key);
  }

  private onMaintenance(nm: NodeMaintenance, gone: boolean): void {
    const key = maintenanceKey(nm);
    const now = this.now();
    let t = this.requests.get(key);
    if (!t) {
      const devices = requestDevices(nm);
      t = { key, node: nm.spec.nodeName, createdMs: now, ...devices, ...(devices.devices !== undefined ? { evicted: [], nodeCordoned: false } : {}) };
      this.requests.set(key, t);
      this.open++;
    }
    const phase = maintenancePhase(nm);
    const active = !gone && isInProgress(nm);
    if (active && t.admittedMs === undefined) {
      t.admittedMs = now;
      this.admitted.push(key);
      // Read at admission, before the drainer's first pass: the pods its drain is for.
      if (t.devices !== undefined && t.devices.length > 0 && this.holdersOf) {
        t.holders = this.holdersOf(t.node, t.devices);
        this.recorder.note(key, deviceNote(t.devices, t.holders));
      }
    }
    if (!gone && DRAIN_STARTED_PHASES.has(phase) && t.drainStartMs === undefined) t.drainStartMs = now;
    if (!gone && phase === 'Ready' && t.readyMs === undefined) {
      t.readyMs = now;
      this.onReady(nm);
    }
    if (gone && t.releasedMs === undefined) {
      t.releasedMs = now;
      this.open--;
    }
    const onNode = this.inProgressByNode.get(t.node) ?? new Set<string>();
    const had = onNode.has(key);
    if (active) onNode.add(key);
    else onNode.delete(key);
    this.inProgressByNode.set(t.node, onNode);
    if (had !== active) {
      this.inProgress += active ? 1 : -1;
      this.peakInProgress = Math.max(this.peakInProgress, this.inProgress);
    }
    this.recount(t.node);
    this.markCordoned(t.node);
    if (gone) {
      this.validation.onReleased(key, t.node, this.cordoned.has(t.node), now);
      if (!this.validation.keepsSpan(key, t.node)) this.recorder.released(key, now);
    } else this.recorder.phase(key, t.node, nm.metadata.deletionTimestamp ? this.validation.deletingPhase(key, t.node) : phase || 'new', now);
    this.recordCounts();
  }

  /** The request's times when it is a device request. */
  private deviceRequest(key: string): RequestTimes | undefined {
    const t = this.requests.get(key);
    return t?.devices !== undefined ? t : undefined;
  }

  /** Marks the device requests in progress on a cordoned node: their node did not stay schedulable. */
  private markCordoned(node: string): void {
    if (!this.cordoned.has(node)) return;
    for (const key of this.inProgressByNode.get(node) ?? []) {
      const t = this.deviceRequest(key);
      if (t) t.nodeCordoned = true;
    }
  }

  private onNodeValidation(node: V1Node): void {
    const name = node.metadata?.name ?? '';
    if (node.spec?.unschedulable === true) this.cordoned.add(name);
    else this.cordoned.delete(name);
    this.markCordoned(name);
    this.validation.onNode(node, this.now());
  }

  private recordCounts(): void {
    this.recorder.counts(this.now(), this.unavailable.size, this.inProgress);
  }

  /** Every node through the phases seen, and the counts over time, up to `endMs`. */
  timeline(limits: Timeline['limits'], endMs: number): Timeline {
    return this.recorder.timeline(limits, endMs);
  }

  /** Unavailable as kmaint counts it: cordoned, not Ready, or under maintenance. */
  private recount(node: string): void {
    const down = (this.nodeDown.get(node) ?? false) || (this.inProgressByNode.get(node)?.size ?? 0) > 0;
    if (down === this.unavailable.has(node)) return;
    const pool = this.poolOf(node);
    if (down) this.unavailable.add(node);
    else this.unavailable.delete(node);
    const count = (this.poolCount.get(pool) ?? 0) + (down ? 1 : -1);
    this.poolCount.set(pool, count);
    this.poolPeak.set(pool, Math.max(this.poolPeak.get(pool) ?? 0, count));
    this.peakUnavailable = Math.max(this.peakUnavailable, this.unavailable.size);
  }
}
