// The what-if's workload controllers: a ReplicaSet (or Job, or any controller the snapshot names) replaces a pod
// as soon as it is being deleted; a StatefulSet recreates a pod under the same name once the old one is gone.
// DaemonSet and static pods are never drained, so nothing replaces them.
import type { JsonObject, LocalApi, ResourceRef } from '../apiserver/index.ts';
import { isActive, type PodRecord } from './pod-record.ts';

const PODS: ResourceRef = { apiVersion: 'v1', resource: 'pods' };
/** Kinds whose pods are not replaced here. */
const NOT_REPLACED = new Set(['DaemonSet', 'Node']);

export interface Controller {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** Active pods the controller keeps. */
  replicas: number;
}

interface Tracked extends Controller {
  /** A pod manifest to create replacements from (no name, node or status). */
  template: JsonObject;
  active: Set<string>;
  /** StatefulSet: manifests by pod name, recreated once the name is free. */
  byName: Map<string, JsonObject>;
  missing: Set<string>;
}

/** The manifest of `pod` without what the server sets: a template for its replacements. */
export function templateOf(pod: JsonObject): JsonObject {
  const copy = structuredClone(pod);
  const meta = (copy['metadata'] ?? {}) as Record<string, unknown>;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields']) delete meta[k];
  const spec = (copy['spec'] ?? {}) as Record<string, unknown>;
  delete spec['nodeName'];
  delete copy['status'];
  return copy;
}

export class WhatIfWorkloads {
  private readonly controllers = new Map<string, Tracked>();
  private readonly dirty = new Set<string>();
  /** Pods created as replacements. */
  created = 0;

  constructor(private readonly local: LocalApi) {}

  /** Registers a controller with one of its pods as the template; `stateful` pods keep their names. */
  track(c: Controller, template: JsonObject): void {
    if (NOT_REPLACED.has(c.kind) || this.controllers.has(c.uid)) return;
    this.controllers.set(c.uid, { ...c, template: templateOf(template), active: new Set(), byName: new Map(), missing: new Set() });
  }

  /** StatefulSet pods: remember each one's own manifest. */
  trackStatefulPod(ownerUid: string, pod: JsonObject): void {
    const c = this.controllers.get(ownerUid);
    const name = (pod['metadata'] as { name?: string } | undefined)?.name;
    if (c && name) c.byName.set(name, templateOf(pod));
  }

  list(): Controller[] {
    return [...this.controllers.values()].map(({ kind, namespace, name, uid, replicas }) => ({ kind, namespace, name, uid, replicas }));
  }

  observe(r: PodRecord, gone: boolean): void {
    const c = r.owner ? this.controllers.get(r.owner.uid) : undefined;
    if (!c) return;
    const was = c.active.has(r.key);
    const now = !gone && isActive(r);
    if (now) c.active.add(r.key);
    else c.active.delete(r.key);
    if (c.kind === 'StatefulSet') {
      if (gone && c.byName.has(r.name)) {
        c.missing.add(r.name);
        this.dirty.add(c.uid);
      }
      return;
    }
    if (was !== now) this.dirty.add(c.uid);
  }

  /** Creates what the dirty controllers miss; returns how many pods it created. */
  settle(): number {
    let made = 0;
    for (const uid of this.dirty) {
      const c = this.controllers.get(uid);
      if (!c) continue;
      if (c.kind === 'StatefulSet') {
        for (const name of [...c.missing].sort()) {
          const manifest = c.byName.get(name);
          if (!manifest) continue;
          // create copies what it is given: the manifest stays as it is for the next time.
          this.local.createVersion(PODS, c.namespace, manifest);
          c.missing.delete(name);
          made++;
        }
        continue;
      }
      while (c.active.size < c.replicas) {
        // create copies what it is given: a shallow copy with new metadata leaves the template as it is.
        const { name: _name, ...meta } = (c.template['metadata'] ?? {}) as JsonObject;
        const pod: JsonObject = { ...c.template, metadata: { ...meta, generateName: `${c.name}-` } };
        // The new pod's ADDED event puts it in `active` before create returns.
        const before = c.active.size;
        this.local.createVersion(PODS, c.namespace, pod);
        made++;
        if (c.active.size === before) break;
      }
    }
    this.dirty.clear();
    this.created += made;
    return made;
  }
}
