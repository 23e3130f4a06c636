// Public surface of shared/reboot: spec.reboot's settings and the reboot Job (issue 43).
export { DEFAULT_REBOOT_COMMAND, DEFAULT_REBOOT_IMAGE, DEFAULT_REBOOT_SETTINGS, loadRebootSettings } from './settings.ts';
export type { LoadedReboot, RebootMethod, RebootSettings } from './settings.ts';
export { asksForReboot, loadRebootSentinel, planRebootSentinel } from './sentinel.ts';
export type { LoadedRebootSentinel, RebootSentinelPlan, RebootSentinelSettings, RebootSentinelSnapshot } from './sentinel.ts';
export { REBOOT_JOB_LABELS, REBOOT_JOB_REQUEST_ANNOTATION, rebootJobManifest, rebootJobName } from './job.ts';
export { ec2RebootIssued, ec2RebootTarget } from './ec2.ts';
export { pinnedJobManifest } from './pinned-job.ts';
export type { PinnedJob } from './pinned-job.ts';
