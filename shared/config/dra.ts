// spec.draResourceNames: which resource names each DRA driver's devices answer to in podEvictionFilters, read once.
import { DEFAULT_DRA_RESOURCE_NAMES, maintenanceOperatorConfigSpecSchema } from '#api';

export interface LoadedDraResourceNames {
  /** Driver -> resource names. */
  names: ReadonlyMap<string, readonly string[]>;
  /** Set when the field cannot be used; the default table applies then. */
  problem?: string;
}

function tableOf(items: ReadonlyArray<{ readonly driver: string; readonly resourceNames: readonly string[] }>): ReadonlyMap<string, readonly string[]> {
  return new Map(items.map((i) => [i.driver, [...i.resourceNames]]));
}

/**
 * The table from a MaintenanceOperatorConfig (absent config or field: the default, gpu.nvidia.com -> nvidia.com/gpu).
 * An unusable field falls back to the default rather than to no mapping: a GPU drain must not go blind to DRA GPUs
 * because of a typo elsewhere; the config's Valid condition reports the field.
 */
export function loadDraResourceNames(config: unknown): LoadedDraResourceNames {
  const spec = typeof config === 'object' && config !== null ? (config as { spec?: unknown }).spec : undefined;
  const field = typeof spec === 'object' && spec !== null ? (spec as { draResourceNames?: unknown }).draResourceNames : undefined;
  if (field === undefined) return { names: tableOf(DEFAULT_DRA_RESOURCE_NAMES) };
  const parsed = maintenanceOperatorConfigSpecSchema.shape.draResourceNames.safeParse(field);
  if (!parsed.success || parsed.data === undefined) {
    const why = parsed.success ? 'missing' : parsed.error.issues.map((i) => i.message).join('; ');
    return { names: tableOf(DEFAULT_DRA_RESOURCE_NAMES), problem: `spec.draResourceNames: ${why}; the default table applies` };
  }
  return { names: tableOf(parsed.data) };
}
