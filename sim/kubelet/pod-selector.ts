// Matching pods against scenario selectors (namespace, name, equality labels).
import { podSelectorSchema, type PodSelectorSpec } from '../generator/scenario.ts';
import type { PodView } from './pod-view.ts';

/** `namespace/name`, `key=value[,key=value]`, or `{ namespace?, name?, matchLabels? }`. */
export type PodSelectorInput = string | PodSelectorSpec;

export function parsePodSelector(input: PodSelectorInput): PodSelectorSpec {
  return podSelectorSchema.parse(input);
}

export function matchesPod(selector: PodSelectorSpec, pod: Pick<PodView, 'namespace' | 'name' | 'labels'>): boolean {
  if (selector.namespace !== undefined && selector.namespace !== pod.namespace) return false;
  if (selector.name !== undefined && selector.name !== pod.name) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (pod.labels[key] !== value) return false;
  }
  return true;
}

/** Ordered overrides: the last matching entry wins, so a later scenario action refines an earlier one. */
export class SelectorOverrides<T> {
  private readonly entries: Array<{ selector: PodSelectorSpec; value: T }> = [];

  add(selector: PodSelectorSpec, value: T): void {
    this.entries.push({ selector, value });
  }

  lookup(pod: Pick<PodView, 'namespace' | 'name' | 'labels'>): T | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (entry && matchesPod(entry.selector, pod)) return entry.value;
    }
    return undefined;
  }

  get size(): number {
    return this.entries.length;
  }
}
