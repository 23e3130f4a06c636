// spec.releaseDelaySeconds (issue 43 point 3, kured's --lock-release-delay): a pause after a node comes back before the
// next admission. Cleanup records when it released a deleted, admitted request (kmaint.io/released-at) and keeps its
// finalizer until that time plus the delay (shared/lifecycle/release-delay-hold.ts); the `release delay` gate reads the
// times of the requests so held and admits nothing until the latest ends. Both read the time through releaseDelayEnd, so
// the gate never waits on a request cleanup would let go, and the delay never holds past its bound.
import { ANNOTATION_RELEASED_AT, FINALIZER, isBeingDeleted, maintenanceKey, maintenanceOperatorConfigSchema, rfc3339Seconds } from '#api';
import type { NodeMaintenance } from '#api';

/** What the scheduler reads for the gate: the delay, and the deleted requests that carry a release time. */
export interface ReleaseDelay {
  readonly seconds: number;
  /** Deleted requests with kmaint's finalizer and a kmaint.io/released-at value (as written), in input order. */
  readonly releases: ReadonlyArray<{ readonly key: string; readonly releasedAt: string }>;
}

/**
 * Section: spec.releaseDelaySeconds, 0 when absent or when the config does not pass its schema (the config report names
 * its problem; a delay is never guessed from an invalid whole). 0 is off.
 */
export function loadReleaseDelaySeconds(obj: unknown): number {
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  return parsed.success ? (parsed.data.spec?.releaseDelaySeconds ?? 0) : 0;
}

/**
 * When the delay after a release at `releasedAt` ends, while it holds at `now`; undefined when it does not hold: the
 * delay is off, the value is not a time, the end has come, or the time lies more than the delay ahead of `now` (not
 * written by kmaint's clock: never believed, so no value can hold longer than twice the delay). Pure.
 */
export function releaseDelayEnd(releasedAt: string | undefined, seconds: number, now: Date): Date | undefined {
  if (seconds <= 0 || releasedAt === undefined) return undefined;
  const at = Date.parse(releasedAt);
  if (Number.isNaN(at) || at - now.getTime() > seconds * 1000) return undefined;
  const end = at + seconds * 1000;
  return now.getTime() < end ? new Date(end) : undefined;
}

/** The deleted requests whose release time the gate reads (only kmaint's finalizer keeps one for the delay). */
export function releaseDelayOf(maintenances: readonly NodeMaintenance[], seconds: number): ReleaseDelay | undefined {
  if (seconds <= 0) return undefined;
  const releases: Array<{ key: string; releasedAt: string }> = [];
  for (const nm of maintenances) {
    const releasedAt = nm.metadata.annotations?.[ANNOTATION_RELEASED_AT];
    if (releasedAt !== undefined && isBeingDeleted(nm) && (nm.metadata.finalizers ?? []).includes(FINALIZER)) releases.push({ key: maintenanceKey(nm), releasedAt });
  }
  return { seconds, releases };
}

/** The release whose delay ends last at `now`, with that end; undefined when none holds. */
function latestHold(delay: ReleaseDelay, now: Date): { key: string; releasedAt: Date; end: Date } | undefined {
  let latest: { key: string; releasedAt: Date; end: Date } | undefined;
  for (const { key, releasedAt } of delay.releases) {
    const end = releaseDelayEnd(releasedAt, delay.seconds, now);
    // Equal ends: the first key in namespace/name order names it (a total order).
    if (end !== undefined && (latest === undefined || end > latest.end || (end.getTime() === latest.end.getTime() && key < latest.key))) latest = { key, releasedAt: new Date(Date.parse(releasedAt)), end };
  }
  return latest;
}

/** Why nothing may start at `now` for the release delay, or undefined. The same text every pass until the delay ends. */
export function releaseDelayRefusal(delay: ReleaseDelay | undefined, now: Date): string | undefined {
  const hold = delay === undefined ? undefined : latestHold(delay, now);
  return hold === undefined || delay === undefined
    ? undefined
    : `release delay: ${hold.key} released at ${rfc3339Seconds(hold.releasedAt)}, next admission at ${rfc3339Seconds(hold.end)} (releaseDelaySeconds ${delay.seconds})`;
}

/** What the gate read when it lets a request through (`kmaint explain`); undefined when the delay is off. */
export function releaseDelayAdmits(delay: ReleaseDelay | undefined): string | undefined {
  return delay === undefined ? undefined : `releaseDelaySeconds ${delay.seconds}: no release within the delay`;
}

/** The hold's text on a released request (cleanup's `held`, `kmaint explain` after the step's name). */
export function releaseDelayHoldText(releasedAt: string, end: Date, seconds: number): string {
  return `released at ${rfc3339Seconds(new Date(Date.parse(releasedAt)))}, finalizer kept until ${rfc3339Seconds(end)} (releaseDelaySeconds ${seconds})`;
}
