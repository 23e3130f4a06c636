// The what-if's scheduler: binds every pod waiting for a node through the placer, keeps each node's usage and
// cordon in step with the store, and counts the pods that fit nowhere.
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import type { LocalApi, ResourceRef } from '../apiserver/index.ts';
import { holdsResources, isFinished, type PodRecord } from './pod-record.ts';
import { Placer } from './placer.ts';

const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };

function queueOrder(a: PodRecord, b: PodRecord): number {
  return b.priority - a.priority || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

export class WhatIfScheduler {
  private readonly placer: Placer;
  private readonly pending = new Map<string, PodRecord>();
  /** Pods whose usage the placer holds, by key: the node and owner it was counted under. */
  private readonly counted = new Map<string, { node: string; owner: string | undefined; requests: PodRecord['requests'] }>();
  /** Pods that fit no node on their last try, with the placer's roomVersion then. */
  readonly unschedulable = new Map<string, number>();
  bound = 0;

  constructor(
    private readonly local: LocalApi,
    nodes: readonly V1Node[],
  ) {
    this.placer = new Placer([...nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1)));
  }

  nodeChanged(name: string, unschedulable: boolean): void {
    this.placer.setUnschedulable(name, unschedulable);
  }

  observe(r: PodRecord, gone: boolean): void {
    const was = this.counted.get(r.key);
    const holds = !gone && holdsResources(r);
    if (was && (!holds || was.node !== r.nodeName)) {
      this.placer.remove(was.node, was.owner, was.requests);
      this.counted.delete(r.key);
    }
    if (holds && r.nodeName !== undefined && !this.counted.has(r.key)) {
      this.placer.add(r.nodeName, r.owner?.uid, r.requests);
      this.counted.set(r.key, { node: r.nodeName, owner: r.owner?.uid, requests: r.requests });
    }
    if (!gone && r.nodeName === undefined && !r.terminating && !isFinished(r)) this.pending.set(r.key, r);
    else {
      this.pending.delete(r.key);
      this.unschedulable.delete(r.key);
    }
  }

  /** Binds what fits, in queue order; returns how many pods it bound. */
  settle(): number {
    if (this.pending.size === 0) return 0;
    let made = 0;
    for (const r of [...this.pending.values()].sort(queueOrder)) {
      // A pod that fit nowhere waits until room may have appeared.
      if (this.unschedulable.get(r.key) === this.placer.roomVersion) continue;
      const stored = this.local.get(PODS, r.namespace, r.name) as { spec?: V1PodSpec } | undefined;
      if (!stored?.spec) continue;
      const node = this.placer.choose({ spec: stored.spec, shapeKey: r.owner?.uid ?? r.key, owner: r.owner?.uid, requests: r.requests });
      if (node === undefined) {
        this.unschedulable.set(r.key, this.placer.roomVersion);
        continue;
      }
      this.local.bind(r.namespace, r.name, node);
      made++;
    }
    this.bound += made;
    return made;
  }
}
