// status.drain from one pass's selection alone: the previous status is the only memory between passes.
import type { DrainStatus } from '#api';
import { podKey } from './pod-facts.ts';
import type { DrainSelection } from './select-pods.ts';

/** Pods the drain still has to see gone: to evict, to delete, refused, and already terminating. */
export function podsStillToRemove(selection: DrainSelection): string[] {
  return [...selection.evict, ...selection.deleteFinished, ...selection.refused.map(({ pod }) => pod), ...selection.terminating]
    .map(podKey)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Upstream fixes totalPods and evictionPods when its drain starts. Stateless, kmaint takes them from the first
 * pass (`previous` undefined: pass it so whenever a new drain window starts) and afterwards keeps the larger of
 * the previous value and the current count, so progress never divides by a shrinking base and a pod that shows
 * up mid-drain still counts. drainProgress = floor((evictionPods - remaining) * 100 / evictionPods), 100 when
 * evictionPods is 0. waitForEviction is sorted and left out when empty (the Go client's omitempty form).
 */
export function computeDrainStatus(selection: DrainSelection, previous: DrainStatus | undefined): DrainStatus {
  const remaining = podsStillToRemove(selection);
  const totalPods = Math.max(previous?.totalPods ?? 0, selection.totalPods);
  const evictionPods = Math.max(previous?.evictionPods ?? 0, remaining.length);
  const drainProgress = evictionPods === 0 ? 100 : Math.floor(((evictionPods - remaining.length) * 100) / evictionPods);
  return remaining.length === 0 ? { totalPods, evictionPods, drainProgress } : { totalPods, evictionPods, drainProgress, waitForEviction: remaining };
}
