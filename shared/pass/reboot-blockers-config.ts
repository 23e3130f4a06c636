// spec.rebootBlockers (issue 43, kured's blockers) as settings: the section parser loadConfig (config.ts) calls. The
// reads and the alert filters are reboot-blockers-read.ts's.
import { maintenanceOperatorConfigSchema } from '../api/index.ts';

export interface AlertsSettings {
  url: string;
  api: 'alertmanager' | 'prometheus';
  /** Only alerts whose alertname matches block; absent: every alert. */
  nameRegexp?: string;
  /** Alerts whose alertname matches never block (kured's --alert-filter-regexp). */
  ignoreNameRegexp?: string;
  firingOnly: boolean;
  timeoutSeconds: number;
}

export interface BlockerSettings {
  podSelector?: string;
  alerts?: AlertsSettings;
}

/**
 * spec.rebootBlockers, or undefined when absent. A config that does not pass its schema blocks nothing here: the
 * config report names its problem (the section is not guessed from an invalid whole).
 */
export function loadBlockerSettings(obj: unknown): BlockerSettings | undefined {
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  const section = parsed.success ? parsed.data.spec?.rebootBlockers : undefined;
  if (section === undefined) return undefined;
  const alerts = section.alerts;
  return {
    ...(section.blockingPodSelector !== undefined ? { podSelector: section.blockingPodSelector } : {}),
    ...(alerts !== undefined
      ? {
          alerts: {
            url: alerts.url.replace(/\/+$/, ''),
            api: alerts.api ?? 'alertmanager',
            ...(alerts.nameRegexp !== undefined ? { nameRegexp: alerts.nameRegexp } : {}),
            ...(alerts.ignoreNameRegexp !== undefined ? { ignoreNameRegexp: alerts.ignoreNameRegexp } : {}),
            firingOnly: alerts.firingOnly ?? true,
            timeoutSeconds: alerts.timeoutSeconds ?? 5,
          },
        }
      : {}),
  };
}
