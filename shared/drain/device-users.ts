// drainSpec.freeDevices (issue 45 point 3): which pods on the node use its devices and are freed by the drain —
// DaemonSet pods and pods outside drainSpec.podSelector or podEvictionFilters included — and which the maintenance
// keeps. Pure: the claims come from the pass's one LIST (claims.ts).
import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FREE_DEVICES_KEEP, OWN_JOB_POD_SELECTOR, type FreeDevicesSpec } from '#api';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '#selectors';
import { devicesHeldBy, deviceId, type DraView } from './claims.ts';
import { podKey } from './pod-facts.ts';

/** freeDevices read once: its selectors parsed, what is wrong with it said. */
export interface CompiledFreeDevices {
  readonly dra: boolean;
  readonly resources: ReadonlySet<string>;
  /** undefined: no selector (absent or empty: an empty selector would match every pod). */
  readonly podSelector: LabelSelector | undefined;
  readonly keep: readonly LabelSelector[];
  /** One line per unreadable selector; with any, no pod is freed (never guess which pods the maintenance needs). */
  readonly problems: readonly string[];
}

const OWN_JOB_POD = parseLabelSelector(OWN_JOB_POD_SELECTOR);

export function compileFreeDevices(spec: FreeDevicesSpec): CompiledFreeDevices {
  const problems: string[] = [];
  const parse = (text: string, field: string): LabelSelector | undefined => {
    const parsed = parseLabelSelector(text);
    if (parsed.ok) return parsed.selector;
    problems.push(`drainSpec.freeDevices.${field}: ${parsed.error}`);
    return undefined;
  };
  const podSelector = spec.podSelector !== undefined && spec.podSelector.trim() !== '' ? parse(spec.podSelector, 'podSelector') : undefined;
  const keep = (spec.keep ?? DEFAULT_FREE_DEVICES_KEEP).flatMap((text, i) => parse(text, `keep[${i}]`) ?? []);
  return { dra: spec.dra ?? true, resources: new Set(spec.resources ?? []), podSelector, keep, problems };
}

/** Resource names in requests or limits of every container, init containers (sidecars) included. */
function resourceNamesOf(pod: V1Pod): string[] {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return [...new Set(containers.flatMap((c) => [...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})]))];
}

/** Why `pod` uses the node's devices in freeDevices' terms ("DRA claim …", "resource …", "podSelector"); empty: it does not. */
export function deviceUseOf(pod: V1Pod, free: CompiledFreeDevices, dra: DraView | undefined): string[] {
  const why: string[] = [];
  if (free.dra && dra !== undefined) {
    const held = devicesHeldBy(pod, dra.claims);
    if (held.length > 0) why.push(`DRA ${held.map(deviceId).join(', ')}`);
  }
  const resources = resourceNamesOf(pod).filter((r) => free.resources.has(r)).sort();
  if (resources.length > 0) why.push(`resource ${resources.join(', ')}`);
  if (free.podSelector !== undefined && matchesLabels(free.podSelector, pod.metadata?.labels)) why.push('freeDevices.podSelector');
  return why;
}

/** A pod the maintenance needs: one of freeDevices.keep, or one of kmaint's own Jobs (by its label, in kmaint's namespace only). */
export function keptFromFreeing(pod: V1Pod, free: CompiledFreeDevices, kmaintNamespace: string | undefined): boolean {
  const labels = pod.metadata?.labels;
  if (kmaintNamespace !== undefined && pod.metadata?.namespace === kmaintNamespace && OWN_JOB_POD.ok && matchesLabels(OWN_JOB_POD.selector, labels)) return true;
  return free.keep.some((k) => matchesLabels(k, labels));
}

/** One pod freeDevices adds to the drain, and why it uses the node's devices. */
export interface FreedPod {
  readonly pod: V1Pod;
  readonly why: string;
}

/**
 * The pods of one node that freeDevices frees (sorted by namespace/name): those using the node's devices that the
 * maintenance does not keep. Mirror pods and kmaint's own pods are left out by the caller's earlier rules; none at all
 * while a selector is unreadable (`problems`).
 */
export function podsToFree(pods: readonly V1Pod[], free: CompiledFreeDevices, dra: DraView | undefined, kmaintNamespace: string | undefined): FreedPod[] {
  if (free.problems.length > 0) return [];
  const out: FreedPod[] = [];
  for (const pod of pods) {
    const why = deviceUseOf(pod, free, dra);
    if (why.length > 0 && !keptFromFreeing(pod, free, kmaintNamespace)) out.push({ pod, why: why.join('; ') });
  }
  return out.sort((a, b) => (podKey(a.pod) < podKey(b.pod) ? -1 : podKey(a.pod) > podKey(b.pod) ? 1 : 0));
}
