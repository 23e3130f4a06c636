// spec.reboot of the MaintenanceOperatorConfig, resolved once per pass with its documented defaults (issue 43).
import { rebootSchema } from '../api/index.ts';

/** `job`: a one-shot Job pinned to the node; `ec2`: EC2 RebootInstances on the instance of the Node's spec.providerID. */
export type RebootMethod = 'job' | 'ec2';

export interface RebootSettings {
  /** @default 'job' */
  method: RebootMethod;
  /** From issuing the reboot to the node's new boot ID and Ready. @default 1800 */
  timeoutSeconds: number;
  job: {
    /** @default DEFAULT_REBOOT_IMAGE */
    image: string;
    /** @default DEFAULT_REBOOT_COMMAND */
    command: string[];
    /** @default true */
    privileged: boolean;
    /** @default true */
    hostPID: boolean;
  };
}

/** Debian's slim image: util-linux (nsenter) is an essential package there. */
export const DEFAULT_REBOOT_IMAGE = 'docker.io/library/debian:bookworm-slim';
/** A systemd host's own `systemctl reboot`, run in PID 1's namespaces (needs hostPID and privileged). */
export const DEFAULT_REBOOT_COMMAND: readonly string[] = ['nsenter', '--target', '1', '--mount', '--uts', '--ipc', '--net', '--pid', '--', 'systemctl', 'reboot'];

export const DEFAULT_REBOOT_SETTINGS: Readonly<RebootSettings> = Object.freeze({
  method: 'job',
  timeoutSeconds: 1800,
  job: Object.freeze({ image: DEFAULT_REBOOT_IMAGE, command: [...DEFAULT_REBOOT_COMMAND], privileged: true, hostPID: true }),
});

/** The settings, or why they cannot be used (the step then holds and says so: no reboot on a config it cannot read). */
export type LoadedReboot = { kind: 'valid'; settings: RebootSettings } | { kind: 'invalid'; problem: string };

/** Reads spec.reboot from the raw config object (absent: the defaults). */
export function loadRebootSettings(config: unknown): LoadedReboot {
  const raw = (config as { spec?: { reboot?: unknown } } | undefined | null)?.spec?.reboot;
  if (raw === undefined) return { kind: 'valid', settings: DEFAULT_REBOOT_SETTINGS };
  const parsed = rebootSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { kind: 'invalid', problem: `spec.reboot${first ? `${first.path.map((k) => `.${String(k)}`).join('')}: ${first.message}` : ''}` };
  }
  const r = parsed.data;
  const d = DEFAULT_REBOOT_SETTINGS;
  return {
    kind: 'valid',
    settings: {
      method: r.method ?? d.method,
      timeoutSeconds: r.timeoutSeconds ?? d.timeoutSeconds,
      job: {
        image: r.job?.image ?? d.job.image,
        // An empty command is no command: the default, not the image's entrypoint.
        command: r.job?.command !== undefined && r.job.command.length > 0 ? r.job.command : [...d.job.command],
        privileged: r.job?.privileged ?? d.job.privileged,
        hostPID: r.job?.hostPID ?? d.job.hostPID,
      },
    },
  };
}
