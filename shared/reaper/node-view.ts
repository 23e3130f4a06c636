// What the reaper reads of a Node: the facts its CEL predicates see, and since when the Node has been unhealthy.
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import type { NodeFacts } from './cel.ts';

function millis(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** The facts of `node` at `now`; `zoneLabel` names the zone label. Pure. */
export function nodeFacts(node: V1Node, now: Date, zoneLabel: string): NodeFacts {
  const created = millis(node.metadata?.creationTimestamp);
  const labels = new Map(Object.entries(node.metadata?.labels ?? {}));
  return {
    name: node.metadata?.name ?? '',
    labels,
    annotations: new Map(Object.entries(node.metadata?.annotations ?? {})),
    conditions: new Map((node.status?.conditions ?? []).map((c) => [c.type, c.status])),
    cordoned: node.spec?.unschedulable === true,
    ageSeconds: BigInt(created === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - created) / 1000))),
    providerID: node.spec?.providerID ?? '',
    zone: labels.get(zoneLabel) ?? '',
  };
}

/** Ready is healthy when True; every other condition (MemoryPressure, DiskPressure, NPD's …) when False. */
function isUnhealthyCondition(c: V1NodeCondition): boolean {
  return c.type === 'Ready' ? c.status !== 'True' : c.status !== 'False';
}

/**
 * Since when the Node has been in its current unhealthy state: the latest lastTransitionTime among its unhealthy
 * conditions (so any of them flapping restarts the clock). A Node with no unhealthy condition — matched by labels
 * alone — counts from the latest transition of any condition. Undefined when no such time is known: a Node whose
 * conditions carry no lastTransitionTime is never old enough (fail closed).
 */
export function unhealthySince(node: V1Node): number | undefined {
  const conditions = node.status?.conditions ?? [];
  const unhealthy = conditions.filter(isUnhealthyCondition);
  const counted = unhealthy.length > 0 ? unhealthy : conditions;
  let latest: number | undefined;
  for (const c of counted) {
    const t = millis(c.lastTransitionTime);
    if (t === undefined) return undefined;
    latest = latest === undefined ? t : Math.max(latest, t);
  }
  return latest;
}

export function nodeCreatedAt(node: V1Node): number | undefined {
  return millis(node.metadata?.creationTimestamp);
}
