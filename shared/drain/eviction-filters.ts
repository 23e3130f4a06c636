// drainSpec.podEvictionFilters: which pods a drain may remove, by RE2 regexes over the resource names a pod uses:
// those its containers request and those its allocated DRA devices answer to (claims.ts).
// Compiled once per selection; RE2 keeps matching linear, so no pattern can stall a pass.
import { RE2JS, RE2JSException } from 're2js';
import type { V1Pod } from '@kubernetes/client-node';
import type { PodEvictionFilter } from '#api';
import { claimedResourceNames, type DraView } from './claims.ts';
import { requestedResourceNames } from './pod-facts.ts';

export interface CompiledEvictionFilters {
  /** False when the spec lists no filter: then every pod passes. */
  readonly active: boolean;
  /** The usable entries; an entry without a regex or with an invalid one matches nothing and is left out. */
  readonly patterns: readonly RE2JS[];
  /** One line per unusable entry, for a condition message or event. */
  readonly problems: readonly string[];
}

export function compileEvictionFilters(filters: readonly PodEvictionFilter[] | undefined): CompiledEvictionFilters {
  const patterns: RE2JS[] = [];
  const problems: string[] = [];
  for (const [index, filter] of (filters ?? []).entries()) {
    const where = `drainSpec.podEvictionFilters[${index}]`;
    const regex = filter.byResourceNameRegex;
    if (regex === undefined || regex === null) {
      // Upstream dereferences the missing pointer and its reconcile panics; an empty entry simply selects nothing here.
      problems.push(`${where} has no byResourceNameRegex; the entry matches no pod`);
      continue;
    }
    try {
      patterns.push(RE2JS.compile(regex));
    } catch (error) {
      if (!(error instanceof RE2JSException)) throw error;
      problems.push(`${where}.byResourceNameRegex ${JSON.stringify(regex)} is not a valid RE2 expression (${error.message}); the entry matches no pod`);
    }
  }
  return { active: (filters ?? []).length > 0, patterns, problems };
}

/**
 * OR across entries; an entry matches when its regex is found anywhere in one resource name the pod uses: a name its
 * regular containers request, or a name one of its allocated DRA devices answers to (driver, device class, mapped names).
 */
export function passesEvictionFilters(pod: V1Pod, filters: CompiledEvictionFilters, dra?: DraView): boolean {
  if (!filters.active) return true;
  const names = [...requestedResourceNames(pod), ...claimedResourceNames(pod, dra)];
  return filters.patterns.some((pattern) => names.some((name) => pattern.test(name)));
}
