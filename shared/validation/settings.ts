// spec.validation of the MaintenanceOperatorConfig (issue 44), resolved once per pass with its documented defaults.
import { validationSchema } from '../api/index.ts';
import type { ValidationJobSpec } from '../api/index.ts';
import { EVERYTHING, labelSelectorFromObject, type LabelSelector } from '../selectors/index.ts';

export type ValidationOnFailure = 'keepCordoned' | 'uncordon';

/** The Job's container, defaults resolved: command, args, env [] and resources {} when absent, privileged false. */
export type ValidationJobSettings = ValidationJobSpec;

export interface ValidationSettings {
  /** The Nodes validated (absent in the config: every Node). */
  nodeSelector: LabelSelector;
  job: ValidationJobSettings;
  /** @default 1800 */
  timeoutSeconds: number;
  /** @default 'keepCordoned' */
  onFailure: ValidationOnFailure;
}

export const DEFAULT_VALIDATION_TIMEOUT_SECONDS = 1800;

/** `off`: no spec.validation; `invalid`: one that cannot be read (cleanup then holds: no uncordon on a config it cannot read). */
export type LoadedValidation = { kind: 'off' } | { kind: 'on'; settings: ValidationSettings } | { kind: 'invalid'; problem: string };

/** Reads spec.validation from the raw config object. */
export function loadValidationSettings(config: unknown): LoadedValidation {
  const raw = (config as { spec?: { validation?: unknown } } | undefined | null)?.spec?.validation;
  if (raw === undefined || raw === null) return { kind: 'off' };
  const parsed = validationSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { kind: 'invalid', problem: `spec.validation${first ? `${first.path.map((k) => `.${String(k)}`).join('')}: ${first.message}` : ''}` };
  }
  const v = parsed.data;
  const selector = v.nodeSelector === undefined ? { ok: true as const, selector: EVERYTHING } : labelSelectorFromObject(v.nodeSelector);
  if (!selector.ok) return { kind: 'invalid', problem: `spec.validation.nodeSelector: ${selector.error}` };
  return {
    kind: 'on',
    settings: {
      nodeSelector: selector.selector,
      job: {
        image: v.job.image,
        command: v.job.command ?? [],
        args: v.job.args ?? [],
        env: v.job.env ?? [],
        resources: v.job.resources ?? {},
        privileged: v.job.privileged ?? false,
        ...(v.job.serviceAccountName !== undefined ? { serviceAccountName: v.job.serviceAccountName } : {}),
      },
      timeoutSeconds: v.timeoutSeconds ?? DEFAULT_VALIDATION_TIMEOUT_SECONDS,
      onFailure: v.onFailure ?? 'keepCordoned',
    },
  };
}
