// What a Slurm node's `state` array (base state first, then flags) says about draining.

/** Flags that mean work is still on the node: a drain is not finished while any is present. */
export const BUSY_STATES: readonly string[] = ['ALLOCATED', 'MIXED', 'COMPLETING'];

/** The DRAIN flag is set (someone asked for a drain; it may still be draining). */
export function hasDrainFlag(state: readonly string[]): boolean {
  return state.includes('DRAIN');
}

/** Drained: the DRAIN flag and none of ALLOCATED, MIXED, COMPLETING (sinfo's "drained", also "drained*" when down). */
export function isDrained(state: readonly string[]): boolean {
  return hasDrainFlag(state) && !state.some((s) => BUSY_STATES.includes(s));
}

/** `ALLOCATED+DRAIN`, as the wait message shows it; `UNKNOWN` for an empty array. */
export function formatState(state: readonly string[]): string {
  return state.length === 0 ? 'UNKNOWN' : state.join('+');
}
