// What a pod asks of a node and what a node offers, as the scheduler's NodeResourcesFit counts them.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { parseQuantity } from './quantity.ts';

export type ResourceList = Record<string, number>;

function add(into: ResourceList, from: Readonly<Record<string, string>> | undefined): void {
  for (const [name, q] of Object.entries(from ?? {})) into[name] = (into[name] ?? 0) + (parseQuantity(q) ?? 0);
}

/**
 * A container's requests; a resource with a limit but no request requests its limit (the API server's
 * defaulting, repeated here so a pod created without it is counted the same).
 */
function containerRequests(resources: { requests?: Record<string, string>; limits?: Record<string, string> } | undefined): ResourceList {
  const out: ResourceList = {};
  add(out, { ...resources?.limits, ...resources?.requests });
  return out;
}

/** Sum over containers, at least the largest init container, plus overhead; `pods: 1`. */
export function podRequests(pod: V1Pod): ResourceList {
  const total: ResourceList = {};
  for (const c of pod.spec?.containers ?? []) {
    for (const [name, v] of Object.entries(containerRequests(c.resources))) total[name] = (total[name] ?? 0) + v;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [name, v] of Object.entries(containerRequests(c.resources))) total[name] = Math.max(total[name] ?? 0, v);
  }
  add(total, pod.spec?.overhead);
  total['pods'] = 1;
  return total;
}

export function nodeAllocatable(node: V1Node): ResourceList {
  const out: ResourceList = {};
  add(out, node.status?.allocatable ?? node.status?.capacity);
  return out;
}

export function addResources(into: ResourceList, more: Readonly<ResourceList>): void {
  for (const [name, v] of Object.entries(more)) into[name] = (into[name] ?? 0) + v;
}

/** Names of resources the pod asks more of than is left, sorted (the scheduler's "Insufficient X"). */
export function insufficient(requested: Readonly<ResourceList>, used: Readonly<ResourceList>, allocatable: Readonly<ResourceList>): string[] {
  const short: string[] = [];
  for (const [name, want] of Object.entries(requested)) {
    if (want <= 0) continue;
    // A tolerance well below one milli-unit absorbs float noise from decimal suffixes.
    if ((used[name] ?? 0) + want > (allocatable[name] ?? 0) + 1e-9) short.push(name);
  }
  return short.sort();
}
