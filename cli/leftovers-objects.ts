// `kmaint leftovers`' part for the objects kmaint creates outside its own kinds (issues 43-45): its reboot Jobs and
// validation Jobs in kmaint's namespace and its DeviceTaintRules. Each is kmaint's only when both its name has the form
// kmaint gives it and it carries every label kmaint puts on it: a look-alike someone else made is neither listed nor
// deleted. Pure: the caller lists the Jobs and the rules.
import type { V1Job } from '@kubernetes/client-node';
import { ANNOTATION_DEVICE_RULE_REQUEST, DEVICE_TAINT_RULE_PREFIX, LABEL_DEVICE_MAINTENANCE, REBOOT_JOB_PREFIX, VALIDATION_JOB_PREFIX, type Action, type MaintenanceRef } from '../shared/api/index.ts';
import type { DeviceTaintRuleObject } from '../shared/kube/index.ts';
import { REBOOT_JOB_LABELS, REBOOT_JOB_REQUEST_ANNOTATION } from '../shared/reboot/index.ts';
import { VALIDATION_JOB_LABELS, VALIDATION_JOB_REQUEST_ANNOTATION } from '../shared/validation/index.ts';
import type { Leftover } from './leftover-row.ts';

/** The request's uid as kmaint puts it in a name: a DNS label's characters, at least one. */
const UID = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** kmaint-device-<uid>-<index> (the uid, or namespace-name for a request read without one; shared/devices/taint-rule.ts). */
const DEVICE_RULE_NAME = new RegExp(`^${DEVICE_TAINT_RULE_PREFIX}${UID}-\\d+$`);

/** The two Jobs kmaint runs: how each is named and labelled, what its request annotation is, and its delete action. */
const JOB_KINDS = [
  { record: 'reboot Job', name: new RegExp(`^${REBOOT_JOB_PREFIX}${UID}$`), labels: REBOOT_JOB_LABELS, requestAnnotation: REBOOT_JOB_REQUEST_ANNOTATION, action: 'deleteRebootJob' },
  { record: 'validation Job', name: new RegExp(`^${VALIDATION_JOB_PREFIX}${UID}$`), labels: VALIDATION_JOB_LABELS, requestAnnotation: VALIDATION_JOB_REQUEST_ANNOTATION, action: 'deleteValidationJob' },
] as const;

function hasLabels(labels: Readonly<Record<string, string>> | undefined, want: Readonly<Record<string, string>>): boolean {
  return Object.entries(want).every(([k, v]) => labels?.[k] === v);
}

/** The request an object names (`namespace/name`): its write unit. Unreadable: the object's own name stands for it. */
function requestRef(value: string | undefined, fallback: { namespace: string; name: string }): MaintenanceRef {
  const match = /^([^/]+)\/([^/]+)$/.exec(value ?? '');
  return match ? { namespace: match[1] as string, name: match[2] as string, resourceVersion: '' } : { ...fallback, resourceVersion: '' };
}

/** Complete, Failed, or running: what the Job's conditions say (a kept validation Job is Failed, its logs still there). */
function jobState(job: V1Job): string {
  const done = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  return done?.type ?? 'running';
}

/** kmaint's reboot and validation Jobs among `jobs` (kmaint's namespace), by name; a Job being deleted is not listed. */
export function jobLeftovers(jobs: readonly V1Job[], found: Leftover[], actions: Action[]): void {
  const sorted = [...jobs].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const job of sorted) {
    const name = job.metadata?.name ?? '';
    const namespace = job.metadata?.namespace ?? '';
    const kind = JOB_KINDS.find((k) => k.name.test(name) && hasLabels(job.metadata?.labels, k.labels));
    if (kind === undefined || job.metadata?.deletionTimestamp !== undefined) continue;
    const request = job.metadata?.annotations?.[kind.requestAnnotation] ?? '';
    const node = job.spec?.template.spec?.nodeName ?? '';
    found.push({ object: `Job/${namespace}/${name}`, record: kind.record, value: `${request} on node ${node} (${jobState(job)})`, owner: 'kmaint' });
    const reason = `kmaint's ${kind.record} for ${request}, with no kmaint to delete it`;
    actions.push({ kind: kind.action, job: { namespace, name }, maintenance: requestRef(request, { namespace, name }), reason });
  }
}

/** kmaint's DeviceTaintRules among `rules`, by name: each keeps its device tainted until deleted. */
export function deviceTaintRuleLeftovers(rules: readonly DeviceTaintRuleObject[], found: Leftover[], actions: Action[]): void {
  const sorted = [...rules].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const rule of sorted) {
    const name = rule.metadata?.name ?? '';
    if (!DEVICE_RULE_NAME.test(name) || rule.metadata?.labels?.[LABEL_DEVICE_MAINTENANCE] !== 'true') continue;
    const request = rule.metadata.annotations?.[ANNOTATION_DEVICE_RULE_REQUEST] ?? '';
    const d = rule.spec?.deviceSelector;
    found.push({ object: `DeviceTaintRule/${name}`, record: 'device taint', value: `${request} on ${d?.driver ?? ''}/${d?.pool ?? ''}/${d?.device ?? ''}`, owner: 'kmaint' });
    actions.push({ kind: 'deleteDeviceTaintRule', name, maintenance: requestRef(request, { namespace: '', name }), reason: `kmaint's device taint for ${request}, with no kmaint to lift it` });
  }
}
