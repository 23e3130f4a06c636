// spec.cloudEvents of the MaintenanceOperatorConfig, resolved once per pass: which event codes get a request and the
// drainSpec of those requests. A config that fails its schema with cloud events on stops them (fail closed).
import { EC2_SCHEDULED_EVENT_CODES, maintenanceOperatorConfigSchema } from '#api';
import type { DrainSpec } from '#api';
import { DEFAULT_REAP_DRAIN_SPEC } from './config.ts';

export interface CloudEventsConfig {
  /** The event codes that get a request. @default all five EC2 codes */
  codes: ReadonlySet<string>;
  /** @default force and deleteEmptyDir: the instance reboots or stops anyway */
  drainSpec: DrainSpec;
  /** spec.cloudEvents.moveIntoWindows: events that allow it are moved into a window. @default undefined (not moved) */
  move?: { leadSeconds: number };
}

/** How long a window is open before a moved event starts, for the drain. */
export const DEFAULT_MOVE_LEAD_SECONDS = 3600;

export type LoadedCloudEvents = { kind: 'disabled' } | { kind: 'invalid'; problems: string[] } | { kind: 'enabled'; config: CloudEventsConfig };

/** Appended to every problem: what it stops. */
export const CLOUD_EVENTS_STOPPED = 'cloud scheduled events are not read until this is fixed';

/** Reads spec.cloudEvents (absent, or `enabled` not true: disabled). */
export function loadCloudEventsConfig(obj: unknown): LoadedCloudEvents {
  if (obj === undefined || obj === null) return { kind: 'disabled' };
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  if (!parsed.success) {
    const touches = parsed.error.issues.some((i) => i.path[0] === 'spec' && i.path[1] === 'cloudEvents');
    const raw = (obj as { spec?: { cloudEvents?: { enabled?: unknown } } }).spec?.cloudEvents;
    if (raw?.enabled !== true && !touches) return { kind: 'disabled' };
    return { kind: 'invalid', problems: [`spec.cloudEvents: the config does not pass its schema; ${CLOUD_EVENTS_STOPPED}`] };
  }
  const cloud = parsed.data.spec?.cloudEvents;
  if (cloud?.enabled !== true) return { kind: 'disabled' };
  const move = cloud.moveIntoWindows ? { move: { leadSeconds: cloud.moveIntoWindows.leadSeconds ?? DEFAULT_MOVE_LEAD_SECONDS } } : {};
  return { kind: 'enabled', config: { codes: new Set(cloud.codes ?? EC2_SCHEDULED_EVENT_CODES), drainSpec: cloud.drainSpec ?? { ...DEFAULT_REAP_DRAIN_SPEC }, ...move } };
}
