// Compares every upstream wire constant letter by letter with the upstream fact sheet, and pins kmaint's own strings.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as constants from './constants.ts';
import {
  NODE_CONDITION_MESSAGE_PREFIX,
  TAINT_OUT_OF_SERVICE,
  TAINT_OUT_OF_SERVICE_VALUE,
  ANNOTATION_OUT_OF_SERVICE_BY,
  EVENT_REASON_OUT_OF_SERVICE,
  NODE_CONDITION_TYPES,
  NodeCondition,
  NodeConditionReason,
  ANNOTATION_CURRENT_STATE,
  ANNOTATION_DESIRED_STATE,
  ANNOTATION_DRAIN_START,
  ANNOTATION_GC_IGNORE,
  ANNOTATION_HANDSHAKE_PROBLEM,
  ANNOTATION_FULL_NODE_READ_TIME,
  ANNOTATION_FULL_NODE_READ_NODES,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_READY_TIME,
  ANNOTATION_REQUESTOR,
  ANNOTATION_WAIT_POD_COMPLETION_START,
  API_VERSION,
  CONDITION_READY,
  CONDITION_REQUESTOR_FAILED,
  CONFIG_CONDITION_POOLS_OVERLAP,
  CONFIG_CONDITION_VALID,
  CONFIG_KIND,
  CONFIG_NAME,
  CONFIG_PLURAL,
  DEFAULT_HANDSHAKE_REQUESTOR,
  DEFAULT_NAMESPACE,
  DEFAULT_ZONE_LABEL,
  DEFAULTS,
  EVENT_REASON_CONDITION_CHANGED,
  EVENT_REASON_DRAIN_REFUSED,
  EVENT_REASON_DRAIN_TIMEOUT,
  EVENT_REASON_EVICTION_BLOCKED,
  EVENT_REASON_HANDSHAKE_REFUSED,
  EVENT_REASON_INVALID_CONFIG,
  EVENT_REASON_POOLS_OVERLAP,
  FINALIZER,
  GROUP,
  HANDSHAKE_REQUEST_PREFIX,
  HandshakeState,
  LABEL_HANDSHAKE,
  NODE_MAINTENANCE_KIND,
  NODE_MAINTENANCE_PLURAL,
  OWN_POD_LABEL_KEY,
  OWN_POD_LABEL_VALUE,
  Phase,
  PHASE_UNINITIALIZED,
  UPSTREAM_OWN_POD_SELECTOR,
  VERSION,
} from './constants.ts';

// The fact sheet lives beside the repository: <repo>/../shared/reference/.
const REPO_ROOT = new URL('../../', import.meta.url);
const FACT_SHEET_PATH = fileURLToPath(new URL('../shared/reference/nvidia-maintenance-operator-api.md', REPO_ROOT));
const FACT_SHEET = readFileSync(FACT_SHEET_PATH, 'utf8');
const LINES = FACT_SHEET.split('\n');

/** How a value is written in the fact sheet: in backticks, with `""` for the empty string. */
function ticked(value: string | number | boolean): string {
  return value === '' ? '`""`' : `\`${String(value)}\``;
}

/** The line of a Markdown table whose first cell is exactly `firstCell`. */
function tableRow(firstCell: string): string {
  const rows = LINES.filter((line) => line.startsWith(`| ${firstCell} |`));
  if (rows.length !== 1) throw new Error(`expected one table row starting with ${firstCell}, found ${rows.length}`);
  return rows[0] ?? '';
}

/** The cell under `column` in the table row whose first cell is `firstCell`. */
function tableCell(firstCell: string, column: string): string {
  const row = tableRow(firstCell);
  const rowIndex = LINES.indexOf(row);
  let header = rowIndex;
  while (header > 0 && (LINES[header - 1] ?? '').startsWith('|')) header -= 1;
  const headerCells = (LINES[header] ?? '').split('|').map((cell) => cell.trim());
  const index = headerCells.indexOf(column);
  if (index < 0) throw new Error(`no column ${column} in the table holding ${firstCell}`);
  return (row.split('|')[index] ?? '').trim();
}

/** Upstream strings: exact literal, and the table row that must show it (else: anywhere in the sheet). */
const UPSTREAM_STRINGS: Array<{ name: string; actual: string; expected: string; row?: string }> = [
  { name: 'GROUP', actual: GROUP, expected: 'maintenance.nvidia.com' },
  { name: 'VERSION', actual: VERSION, expected: 'v1alpha1' },
  { name: 'NODE_MAINTENANCE_KIND', actual: NODE_MAINTENANCE_KIND, expected: 'NodeMaintenance' },
  { name: 'NODE_MAINTENANCE_PLURAL', actual: NODE_MAINTENANCE_PLURAL, expected: 'nodemaintenances' },
  { name: 'CONFIG_KIND', actual: CONFIG_KIND, expected: 'MaintenanceOperatorConfig' },
  { name: 'CONFIG_PLURAL', actual: CONFIG_PLURAL, expected: 'maintenanceoperatorconfigs' },
  { name: 'CONFIG_NAME', actual: CONFIG_NAME, expected: 'default' },
  { name: 'FINALIZER', actual: FINALIZER, expected: 'maintenance.nvidia.com/finalizer', row: 'Finalizer' },
  { name: 'CONDITION_READY', actual: CONDITION_READY, expected: 'Ready', row: '`Ready`' },
  { name: 'CONDITION_REQUESTOR_FAILED', actual: CONDITION_REQUESTOR_FAILED, expected: 'RequestorFailed', row: '`RequestorFailed`' },
  { name: 'Phase.Pending', actual: Phase.Pending, expected: 'Pending' },
  { name: 'Phase.Scheduled', actual: Phase.Scheduled, expected: 'Scheduled' },
  { name: 'Phase.Cordon', actual: Phase.Cordon, expected: 'Cordon' },
  { name: 'Phase.WaitForPodCompletion', actual: Phase.WaitForPodCompletion, expected: 'WaitForPodCompletion' },
  { name: 'Phase.Draining', actual: Phase.Draining, expected: 'Draining' },
  { name: 'Phase.Ready', actual: Phase.Ready, expected: 'Ready' },
  { name: 'Phase.RequestorFailed', actual: Phase.RequestorFailed, expected: 'RequestorFailed' },
  { name: 'PHASE_UNINITIALIZED', actual: PHASE_UNINITIALIZED, expected: '' },
  {
    name: 'ANNOTATION_INITIAL_UNSCHEDULABLE',
    actual: ANNOTATION_INITIAL_UNSCHEDULABLE,
    expected: 'maintenance.nvidia.com/node-initial-state.unschedulable',
    row: 'Annotation (NM)',
  },
  {
    name: 'ANNOTATION_WAIT_POD_COMPLETION_START',
    actual: ANNOTATION_WAIT_POD_COMPLETION_START,
    expected: 'maintenance.nvidia.com/wait-pod-completion-start-time',
    row: 'Annotation (NM)',
  },
  { name: 'ANNOTATION_READY_TIME', actual: ANNOTATION_READY_TIME, expected: 'maintenance.nvidia.com/ready-time', row: 'Annotation (NM)' },
  {
    name: 'ANNOTATION_GC_IGNORE',
    actual: ANNOTATION_GC_IGNORE,
    expected: 'maintenance.nvidia.com/garbage-collector.ignore',
    row: 'Annotation (NM)',
  },
  { name: 'EVENT_REASON_CONDITION_CHANGED', actual: EVENT_REASON_CONDITION_CHANGED, expected: 'ConditionChanged', row: 'Event reason' },
  {
    name: 'UPSTREAM_OWN_POD_SELECTOR',
    actual: UPSTREAM_OWN_POD_SELECTOR,
    expected: 'app.kubernetes.io/component!=maintenance-operator-controller-manager',
    row: 'Implicit drain label selector',
  },
];

/** Upstream CRD defaults: exact value, and the field row of the fact sheet whose "Default (CRD)" cell must hold it. */
const UPSTREAM_DEFAULTS: Array<{ name: keyof typeof DEFAULTS; expected: string | number | boolean; field: string }> = [
  { name: 'cordon', expected: true, field: '`cordon`' },
  { name: 'waitTimeoutSeconds', expected: 0, field: '`waitForPodCompletion.timeoutSeconds`' },
  { name: 'drainTimeoutSeconds', expected: 300, field: '`drainSpec.timeoutSeconds`' },
  { name: 'drainForce', expected: false, field: '`drainSpec.force`' },
  { name: 'drainDeleteEmptyDir', expected: false, field: '`drainSpec.deleteEmptyDir`' },
  { name: 'maxParallelOperations', expected: 1, field: '`maxParallelOperations`' },
  { name: 'maxNodeMaintenanceTimeSeconds', expected: 3600, field: '`maxNodeMaintenanceTimeSeconds`' },
  { name: 'logLevel', expected: 'info', field: '`logLevel`' },
];

/** kmaint's own strings: never upstream's, so they must not appear in the fact sheet. */
const KMAINT_STRINGS: Array<{ name: string; actual: string; expected: string }> = [
  { name: 'DEFAULT_NAMESPACE', actual: DEFAULT_NAMESPACE, expected: 'kmaint' },
  { name: 'ANNOTATION_DRAIN_START', actual: ANNOTATION_DRAIN_START, expected: 'kmaint.io/drain-start-time' },
  { name: 'EVENT_REASON_DRAIN_TIMEOUT', actual: EVENT_REASON_DRAIN_TIMEOUT, expected: 'DrainTimeout' },
  { name: 'EVENT_REASON_DRAIN_REFUSED', actual: EVENT_REASON_DRAIN_REFUSED, expected: 'DrainRefused' },
  { name: 'EVENT_REASON_EVICTION_BLOCKED', actual: EVENT_REASON_EVICTION_BLOCKED, expected: 'EvictionBlocked' },
  { name: 'EVENT_REASON_INVALID_CONFIG', actual: EVENT_REASON_INVALID_CONFIG, expected: 'InvalidConfig' },
  { name: 'CONFIG_CONDITION_VALID', actual: CONFIG_CONDITION_VALID, expected: 'Valid' },
  { name: 'CONFIG_CONDITION_POOLS_OVERLAP', actual: CONFIG_CONDITION_POOLS_OVERLAP, expected: 'PoolsOverlap' },
  { name: 'EVENT_REASON_POOLS_OVERLAP', actual: EVENT_REASON_POOLS_OVERLAP, expected: 'PoolsOverlap' },
  { name: 'DEFAULT_ZONE_LABEL', actual: DEFAULT_ZONE_LABEL, expected: 'topology.kubernetes.io/zone' },
  { name: 'OWN_POD_LABEL_KEY', actual: OWN_POD_LABEL_KEY, expected: 'app.kubernetes.io/name' },
  { name: 'OWN_POD_LABEL_VALUE', actual: OWN_POD_LABEL_VALUE, expected: 'kmaint' },
  { name: 'ANNOTATION_DESIRED_STATE', actual: ANNOTATION_DESIRED_STATE, expected: 'kmaint.io/desired-state' },
  { name: 'ANNOTATION_CURRENT_STATE', actual: ANNOTATION_CURRENT_STATE, expected: 'kmaint.io/current-state' },
  { name: 'ANNOTATION_REQUESTOR', actual: ANNOTATION_REQUESTOR, expected: 'kmaint.io/requestor' },
  { name: 'DEFAULT_HANDSHAKE_REQUESTOR', actual: DEFAULT_HANDSHAKE_REQUESTOR, expected: 'node-agent.kmaint.io' },
  { name: 'ANNOTATION_HANDSHAKE_PROBLEM', actual: ANNOTATION_HANDSHAKE_PROBLEM, expected: 'kmaint.io/handshake-problem' },
  { name: 'ANNOTATION_FULL_NODE_READ_TIME', actual: ANNOTATION_FULL_NODE_READ_TIME, expected: 'kmaint.io/full-node-read-time' },
  { name: 'ANNOTATION_FULL_NODE_READ_NODES', actual: ANNOTATION_FULL_NODE_READ_NODES, expected: 'kmaint.io/full-node-read-nodes' },
  { name: 'LABEL_HANDSHAKE', actual: LABEL_HANDSHAKE, expected: 'kmaint.io/handshake' },
  { name: 'HANDSHAKE_REQUEST_PREFIX', actual: HANDSHAKE_REQUEST_PREFIX, expected: 'handshake-' },
  { name: 'EVENT_REASON_HANDSHAKE_REFUSED', actual: EVENT_REASON_HANDSHAKE_REFUSED, expected: 'HandshakeRefused' },
  { name: 'EVENT_REASON_NODE_LEASE_HELD', actual: constants.EVENT_REASON_NODE_LEASE_HELD, expected: 'NodeLeaseHeld' },
  { name: 'MEDIK8S_LEASE_NAMESPACE', actual: constants.MEDIK8S_LEASE_NAMESPACE, expected: 'medik8s-leases' },
  { name: 'MEDIK8S_LEASE_PREFIX', actual: constants.MEDIK8S_LEASE_PREFIX, expected: 'node-' },
  { name: 'MEDIK8S_HOLDER_PREFIX', actual: constants.MEDIK8S_HOLDER_PREFIX, expected: 'kmaint/' },
  { name: 'ANNOTATION_MEDIK8S_LEASE', actual: constants.ANNOTATION_MEDIK8S_LEASE, expected: 'kmaint.io/medik8s-lease' },
  { name: 'ANNOTATION_CORDONED_BY', actual: constants.ANNOTATION_CORDONED_BY, expected: 'kmaint.io/cordoned-by' },
  { name: 'ANNOTATION_CORDON_REASON', actual: constants.ANNOTATION_CORDON_REASON, expected: 'kmaint.io/cordon-reason' },
  { name: 'ANNOTATION_ADMITTED', actual: constants.ANNOTATION_ADMITTED, expected: 'kmaint.io/admitted' },
  { name: 'ANNOTATION_CORDON_RECORDED', actual: constants.ANNOTATION_CORDON_RECORDED, expected: 'kmaint.io/cordon-recorded' },
  // The reaper (issue 9).
  { name: 'REAPER_REQUESTOR', actual: constants.REAPER_REQUESTOR, expected: 'reaper.kmaint.io' },
  { name: 'REAP_REQUEST_PREFIX', actual: constants.REAP_REQUEST_PREFIX, expected: 'reap-' },
  { name: 'LABEL_REAPER', actual: constants.LABEL_REAPER, expected: 'kmaint.io/reaper' },
  { name: 'ANNOTATION_REAPER_PROVIDER_ID', actual: constants.ANNOTATION_REAPER_PROVIDER_ID, expected: 'kmaint.io/reaper-provider-id' },
  { name: 'ANNOTATION_REAPER_FORCE_RETRY', actual: constants.ANNOTATION_REAPER_FORCE_RETRY, expected: 'kmaint.io/reaper-force-retry-on-error' },
  { name: 'ANNOTATION_REAPER_DECISION', actual: constants.ANNOTATION_REAPER_DECISION, expected: 'kmaint.io/reaper-decision' },
  { name: 'ANNOTATION_REAPED', actual: constants.ANNOTATION_REAPED, expected: 'kmaint.io/reaped' },
  { name: 'EVENT_REASON_REAP_SKIPPED', actual: constants.EVENT_REASON_REAP_SKIPPED, expected: 'ReapSkipped' },
  { name: 'EVENT_REASON_REAP_REQUESTED', actual: constants.EVENT_REASON_REAP_REQUESTED, expected: 'ReapRequested' },
  { name: 'EVENT_REASON_REAP_JOINED', actual: constants.EVENT_REASON_REAP_JOINED, expected: 'ReapJoined' },
  { name: 'EVENT_REASON_INSTANCE_TERMINATED', actual: constants.EVENT_REASON_INSTANCE_TERMINATED, expected: 'InstanceTerminated' },
  { name: 'EVENT_REASON_TERMINATION_FAILED', actual: constants.EVENT_REASON_TERMINATION_FAILED, expected: 'TerminationFailed' },
  { name: 'EVENT_REASON_FORCE_DELETED', actual: constants.EVENT_REASON_FORCE_DELETED, expected: 'ForceDeleted' },
  { name: 'ANNOTATION_REAPER_JOINED', actual: constants.ANNOTATION_REAPER_JOINED, expected: 'kmaint.io/reaper-joined' },
  { name: 'ANNOTATION_REAPER_JOINED_PROVIDER_ID', actual: constants.ANNOTATION_REAPER_JOINED_PROVIDER_ID, expected: 'kmaint.io/reaper-joined-provider-id' },
  { name: 'EVENT_REASON_REAP_REFUSED', actual: constants.EVENT_REASON_REAP_REFUSED, expected: 'ReapRefused' },
  // Objects that bypassed the CRD's validation (issue 8).
  { name: 'EVENT_REASON_INVALID_MAINTENANCE', actual: constants.EVENT_REASON_INVALID_MAINTENANCE, expected: 'InvalidNodeMaintenance' },
  // Gangs, deadlines and advance notice (issue 21).
  { name: 'LABEL_GANG', actual: constants.LABEL_GANG, expected: 'kmaint.io/gang' },
  { name: 'ANNOTATION_GANG_SIZE', actual: constants.ANNOTATION_GANG_SIZE, expected: 'kmaint.io/gang-size' },
  { name: 'ANNOTATION_DEADLINE', actual: constants.ANNOTATION_DEADLINE, expected: 'kmaint.io/deadline' },
  { name: 'ANNOTATION_NOT_BEFORE', actual: constants.ANNOTATION_NOT_BEFORE, expected: 'kmaint.io/not-before' },
  // A node-label gang admitted incomplete (issue 40).
  { name: 'EVENT_REASON_GANG_ADMITTED_INCOMPLETE', actual: constants.EVENT_REASON_GANG_ADMITTED_INCOMPLETE, expected: 'GangAdmittedIncomplete' },
  { name: 'ANNOTATION_DEADLINE_REPORTED', actual: constants.ANNOTATION_DEADLINE_REPORTED, expected: 'kmaint.io/deadline-reported' },
  { name: 'EVENT_REASON_DEADLINE_MISSED', actual: constants.EVENT_REASON_DEADLINE_MISSED, expected: 'DeadlineMissed' },
  { name: 'EVENT_REASON_INVALID_REQUEST_TIME', actual: constants.EVENT_REASON_INVALID_REQUEST_TIME, expected: 'InvalidRequestTime' },
  // Cloud scheduled events (issue 21 point 3).
  { name: 'CLOUD_EVENTS_REQUESTOR', actual: constants.CLOUD_EVENTS_REQUESTOR, expected: 'cloud-events.kmaint.io' },
  { name: 'CLOUD_EVENT_REQUEST_PREFIX', actual: constants.CLOUD_EVENT_REQUEST_PREFIX, expected: 'cloud-event-' },
  { name: 'LABEL_CLOUD_EVENT', actual: constants.LABEL_CLOUD_EVENT, expected: 'kmaint.io/cloud-event' },
  { name: 'ANNOTATION_CLOUD_EVENTS', actual: constants.ANNOTATION_CLOUD_EVENTS, expected: 'kmaint.io/cloud-events' },
  { name: 'EVENT_REASON_CLOUD_EVENT_FILED', actual: constants.EVENT_REASON_CLOUD_EVENT_FILED, expected: 'CloudEventFiled' },
  { name: 'EVENT_REASON_CLOUD_EVENT_GONE', actual: constants.EVENT_REASON_CLOUD_EVENT_GONE, expected: 'CloudEventGone' },
  { name: 'EVENT_REASON_CLOUD_EVENTS_UNREAD', actual: constants.EVENT_REASON_CLOUD_EVENTS_UNREAD, expected: 'CloudEventsUnread' },
  { name: 'ANNOTATION_CLOUD_EVENT_MOVES', actual: constants.ANNOTATION_CLOUD_EVENT_MOVES, expected: 'kmaint.io/cloud-event-moves' },
  { name: 'EVENT_REASON_CLOUD_EVENT_MOVED', actual: constants.EVENT_REASON_CLOUD_EVENT_MOVED, expected: 'CloudEventMoved' },
  // Foreign CRDs fail closed (issue 22 point 3); the annotation is the one charts/crd-schema.ts writes on kmaint's CRDs.
  { name: 'CRD_SCHEMA_ANNOTATION', actual: constants.CRD_SCHEMA_ANNOTATION, expected: 'kmaint.io/crd-schema' },
  { name: 'ANNOTATION_ACCEPT_UPSTREAM_SCHEMA', actual: constants.ANNOTATION_ACCEPT_UPSTREAM_SCHEMA, expected: 'kmaint.io/accept-upstream-schema' },
  { name: 'EVENT_REASON_FOREIGN_CRDS', actual: constants.EVENT_REASON_FOREIGN_CRDS, expected: 'ForeignCRDs' },
  // The reboot step (issue 43).
  { name: 'ANNOTATION_REBOOT', actual: constants.ANNOTATION_REBOOT, expected: 'kmaint.io/reboot' },
  { name: 'ANNOTATION_REBOOT_BOOT_ID', actual: constants.ANNOTATION_REBOOT_BOOT_ID, expected: 'kmaint.io/reboot-boot-id' },
  { name: 'ANNOTATION_REBOOT_START', actual: constants.ANNOTATION_REBOOT_START, expected: 'kmaint.io/reboot-start-time' },
  { name: 'ANNOTATION_REBOOT_ISSUED', actual: constants.ANNOTATION_REBOOT_ISSUED, expected: 'kmaint.io/reboot-issued' },
  { name: 'ANNOTATION_RELEASED_AT', actual: constants.ANNOTATION_RELEASED_AT, expected: 'kmaint.io/released-at' },
  { name: 'ANNOTATION_WAIT_KIND', actual: constants.ANNOTATION_WAIT_KIND, expected: 'kmaint.io/wait-kind' },
  { name: 'PHASE_REBOOTING', actual: constants.PHASE_REBOOTING, expected: 'Rebooting' },
  { name: 'EVENT_REASON_REBOOT_TIMEOUT', actual: constants.EVENT_REASON_REBOOT_TIMEOUT, expected: 'RebootTimeout' },
  { name: 'LABEL_REBOOT_POD', actual: constants.LABEL_REBOOT_POD, expected: 'kmaint.io/reboot' },
  { name: 'REBOOT_JOB_PREFIX', actual: constants.REBOOT_JOB_PREFIX, expected: 'kmaint-reboot-' },
  { name: 'REBOOT_SENTINEL_REQUESTOR', actual: constants.REBOOT_SENTINEL_REQUESTOR, expected: 'reboot-sentinel.kmaint.io' },
  { name: 'REBOOT_REQUEST_PREFIX', actual: constants.REBOOT_REQUEST_PREFIX, expected: 'reboot-' },
  { name: 'LABEL_REBOOT_SENTINEL', actual: constants.LABEL_REBOOT_SENTINEL, expected: 'kmaint.io/reboot-sentinel' },
  { name: 'DEFAULT_REBOOT_SENTINEL_CONDITION', actual: constants.DEFAULT_REBOOT_SENTINEL_CONDITION, expected: 'RebootRequired' },
  { name: 'EVENT_REASON_REBOOT_REQUESTED', actual: constants.EVENT_REASON_REBOOT_REQUESTED, expected: 'RebootRequested' },
  { name: 'EVENT_REASON_REBOOT_DONE', actual: constants.EVENT_REASON_REBOOT_DONE, expected: 'RebootDone' },
  { name: 'REPAIR_ANNOTATION_PREFIX', actual: constants.REPAIR_ANNOTATION_PREFIX, expected: 'repair.kmaint.io/' },
  { name: 'ANNOTATION_REPAIR_UNHEALTHY_SINCE', actual: constants.ANNOTATION_REPAIR_UNHEALTHY_SINCE, expected: 'repair.kmaint.io/unhealthy-since' },
  { name: 'ANNOTATION_REPAIR_RUNG', actual: constants.ANNOTATION_REPAIR_RUNG, expected: 'repair.kmaint.io/rung' },
  { name: 'ANNOTATION_REPAIR_HISTORY', actual: constants.ANNOTATION_REPAIR_HISTORY, expected: 'repair.kmaint.io/history' },
  { name: 'EVENT_REASON_REPAIR', actual: constants.EVENT_REASON_REPAIR, expected: 'Repair' },
  { name: 'EVENT_REASON_REPAIR_ESCALATED', actual: constants.EVENT_REASON_REPAIR_ESCALATED, expected: 'RepairEscalated' },
  { name: 'ANNOTATION_DEVICES', actual: constants.ANNOTATION_DEVICES, expected: 'kmaint.io/devices' },
  { name: 'ANNOTATION_DEVICE_TAINT_RULES', actual: constants.ANNOTATION_DEVICE_TAINT_RULES, expected: 'kmaint.io/device-taint-rules' },
  { name: 'LABEL_DEVICE_MAINTENANCE', actual: constants.LABEL_DEVICE_MAINTENANCE, expected: 'kmaint.io/device-maintenance' },
  { name: 'ANNOTATION_DEVICE_RULE_REQUEST', actual: constants.ANNOTATION_DEVICE_RULE_REQUEST, expected: 'kmaint.io/maintenance' },
  { name: 'DEVICE_TAINT_KEY', actual: constants.DEVICE_TAINT_KEY, expected: 'kmaint.io/maintenance' },
  { name: 'DEVICE_TAINT_RULE_PREFIX', actual: constants.DEVICE_TAINT_RULE_PREFIX, expected: 'kmaint-device-' },
  // Validation before return to service (issue 44 point 1): the Node's condition is the repair ladder's contract.
  { name: 'VALIDATION_ANNOTATION_PREFIX', actual: constants.VALIDATION_ANNOTATION_PREFIX, expected: 'validation.kmaint.io/' },
  { name: 'ANNOTATION_VALIDATION_JOB', actual: constants.ANNOTATION_VALIDATION_JOB, expected: 'validation.kmaint.io/job' },
  { name: 'ANNOTATION_VALIDATION_FOR', actual: constants.ANNOTATION_VALIDATION_FOR, expected: 'validation.kmaint.io/for' },
  { name: 'ANNOTATION_VALIDATION_START', actual: constants.ANNOTATION_VALIDATION_START, expected: 'validation.kmaint.io/start-time' },
  { name: 'ANNOTATION_VALIDATION_OUTCOME', actual: constants.ANNOTATION_VALIDATION_OUTCOME, expected: 'validation.kmaint.io/outcome' },
  { name: 'ANNOTATION_VALIDATION_CORDONED_BY', actual: constants.ANNOTATION_VALIDATION_CORDONED_BY, expected: 'validation.kmaint.io/cordoned-by' },
  { name: 'ANNOTATION_VALIDATION_OPT_OUT', actual: constants.ANNOTATION_VALIDATION_OPT_OUT, expected: 'kmaint.io/validation' },
  { name: 'VALIDATION_OPT_OUT_VALUE', actual: constants.VALIDATION_OPT_OUT_VALUE, expected: 'skip' },
  { name: 'CONDITION_VALIDATION_FAILED', actual: constants.CONDITION_VALIDATION_FAILED, expected: 'KmaintValidationFailed' },
  { name: 'CONDITION_WAITING', actual: constants.CONDITION_WAITING, expected: 'kmaint.io/Waiting' },
  { name: 'EVENT_REASON_VALIDATION_FAILED', actual: constants.EVENT_REASON_VALIDATION_FAILED, expected: 'ValidationFailed' },
  { name: 'EVENT_REASON_VALIDATION_PASSED', actual: constants.EVENT_REASON_VALIDATION_PASSED, expected: 'ValidationPassed' },
  { name: 'LABEL_VALIDATION_POD', actual: constants.LABEL_VALIDATION_POD, expected: 'kmaint.io/validation-pod' },
  { name: 'VALIDATION_JOB_PREFIX', actual: constants.VALIDATION_JOB_PREFIX, expected: 'kmaint-validate-' },
  { name: 'TAINT_UNSCHEDULABLE', actual: constants.TAINT_UNSCHEDULABLE, expected: 'node.kubernetes.io/unschedulable' },
];

// The SR-IOV parallel-node-config design, beside the repository: <repo>/../shared/seeds/.
const SRIOV_DESIGN = readFileSync(fileURLToPath(new URL('../shared/seeds/sriov-parallel-node-config-design.md', REPO_ROOT)), 'utf8');

/** The handshake states, with the Go constant of the design that spells each one. */
const HANDSHAKE_STATES: Array<{ name: keyof typeof HandshakeState; expected: string; goConstant: string }> = [
  { name: 'Idle', expected: 'Idle', goConstant: 'DrainIdle' },
  { name: 'DrainRequired', expected: 'Drain_Required', goConstant: 'DrainRequired' },
  { name: 'RebootRequired', expected: 'Reboot_Required', goConstant: 'RebootRequired' },
  { name: 'Draining', expected: 'Draining', goConstant: 'Draining' },
  { name: 'DrainComplete', expected: 'DrainComplete', goConstant: 'DrainComplete' },
];

describe('upstream wire strings', () => {
  it.each(UPSTREAM_STRINGS)('$name is exactly "$expected" and the fact sheet shows it', ({ actual, expected, row }) => {
    expect(actual).toBe(expected);
    if (row === undefined) expect(FACT_SHEET).toContain(ticked(actual));
    else expect(LINES.some((line) => line.startsWith(`| ${row} |`) && line.includes(ticked(actual)))).toBe(true);
  });

  it('API_VERSION is GROUP/VERSION as the fact sheet gives them', () => {
    expect(API_VERSION).toBe('maintenance.nvidia.com/v1alpha1');
    expect(FACT_SHEET).toContain(`Group/version: ${ticked(GROUP)} / ${ticked(VERSION)}`);
  });

  it('Phase holds exactly the upstream Ready reasons, in order', () => {
    expect(Object.values(Phase)).toEqual(['Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Ready', 'RequestorFailed']);
    const inOrder = Object.values(Phase).slice(0, 6).map(ticked).join(' → ');
    expect(FACT_SHEET.replace(/\s+/g, ' ')).toContain(`${ticked(PHASE_UNINITIALIZED)} (uninitialized, no Ready condition yet) → ${inOrder}`);
  });
});

describe('upstream CRD defaults', () => {
  it.each(UPSTREAM_DEFAULTS)('DEFAULTS.$name is $expected, the "Default (CRD)" of $field', ({ name, expected, field }) => {
    expect(DEFAULTS[name]).toBe(expected);
    expect(tableCell(field, 'Default (CRD)')).toBe(ticked(expected));
  });
});

describe("kmaint's own strings", () => {
  it.each(KMAINT_STRINGS)('$name is exactly "$expected" and not an upstream string', ({ actual, expected }) => {
    expect(actual).toBe(expected);
    expect(FACT_SHEET).not.toContain(ticked(actual));
  });

  it('annotation keys of our own live under kmaint.io/', () => {
    for (const key of [ANNOTATION_DRAIN_START, ANNOTATION_DESIRED_STATE, ANNOTATION_CURRENT_STATE, ANNOTATION_REQUESTOR, ANNOTATION_HANDSHAKE_PROBLEM, LABEL_HANDSHAKE]) {
      expect(key.startsWith('kmaint.io/'), key).toBe(true);
    }
  });
});

describe('handshake states of the SR-IOV design', () => {
  it.each(HANDSHAKE_STATES)('HandshakeState.$name is exactly "$expected", as the design\'s $goConstant', ({ name, expected, goConstant }) => {
    expect(HandshakeState[name]).toBe(expected);
    expect(SRIOV_DESIGN).toMatch(new RegExp(`\\b${goConstant}\\s+= "${expected}"`));
  });

  it('HandshakeState holds exactly those states', () => {
    expect(Object.keys(HandshakeState)).toEqual(HANDSHAKE_STATES.map((row) => row.name));
  });
});

it('DEFAULT_DRA_RESOURCE_NAMES maps NVIDIA\'s DRA GPU driver to the device plugin\'s resource name, and nothing else', () => {
  expect(constants.DEFAULT_DRA_RESOURCE_NAMES).toEqual([{ driver: 'gpu.nvidia.com', resourceNames: ['nvidia.com/gpu'] }]);
});

it('WaitKind holds exactly the drainer\'s waits on other systems, and waitKindOf reads only those', () => {
  expect(Object.values(constants.WaitKind)).toEqual(['node-lease', 'slurm-drain', 'slinky-drain', 'slinky-jobs', 'slurm-problem', 'dead-node', 'dead-node-tainted']);
  expect([constants.waitKindOf('slurm-drain'), constants.waitKindOf('reboot'), constants.waitKindOf(undefined)]).toEqual(['slurm-drain', undefined, undefined]);
});

it('WaitingOn holds exactly the gates a request waits on (the reasons of kmaint.io/Waiting), and waitingOnOf reads only those', () => {
  expect(Object.values(constants.WaitingOn)).toEqual(['Parallel', 'Unavailable', 'Pool', 'Zone', 'Window', 'NotBefore', 'Gang', 'Node', 'Config', 'ReleaseDelay', 'Blocker', 'Device', 'ExternalPool', 'Closed', 'NotAdmitted', 'Budget']);
  expect([constants.waitingOnOf('Zone'), constants.waitingOnOf('Pending'), constants.waitingOnOf(undefined)]).toEqual(['Zone', undefined, undefined]);
});

it('every export of constants.ts is classified as upstream or kmaint-only', () => {
  const classified = new Set([
    ...UPSTREAM_STRINGS.map((row) => row.name.split('.')[0]),
    ...KMAINT_STRINGS.map((row) => row.name),
    'API_VERSION',
    'DEFAULTS',
    'DEFAULT_DRA_RESOURCE_NAMES',
    'HandshakeState',
    'WaitKind',
    'waitKindOf',
    'WaitingOn',
    'waitingOnOf',
    'NodeCondition',
    'NodeConditionReason',
    // The reasons of KmaintValidationFailed (issue 44): `Failed` is a common word, also in the upstream fact sheet.
    'ValidationFailedReason',
    'NODE_CONDITION_TYPES',
    'NODE_CONDITION_MESSAGE_PREFIX',
    'TAINT_OUT_OF_SERVICE',
    'TAINT_OUT_OF_SERVICE_VALUE',
    'ANNOTATION_OUT_OF_SERVICE_BY',
    'EVENT_REASON_OUT_OF_SERVICE',
    // Issue 40: a namespace name the upstream chart is commonly installed in, not a string of the upstream API.
    'DEFAULT_UPSTREAM_OPERATOR_NAMESPACE',
    ...SRIOV_OPERATOR_STRINGS.map((row) => row.name),
    ...SRIOV_KMAINT_STRINGS.map((row) => row.name),
    'EC2_SCHEDULED_EVENT_CODES',
    'CONFIG_CRD_NAME',
    'RESERVED_REQUESTOR_IDS',
  ]);
  expect(Object.keys(constants).filter((name) => !classified.has(name))).toEqual([]);
  expect(Object.keys(DEFAULTS).sort()).toEqual(UPSTREAM_DEFAULTS.map((row) => row.name).sort());
});

it('EC2_SCHEDULED_EVENT_CODES are the five DescribeInstanceStatus event codes of interop-2026.md section 7.1, letter by letter', () => {
  const sheet = readFileSync(fileURLToPath(new URL('../shared/reference/interop-2026.md', REPO_ROOT)), 'utf8');
  const row = sheet.split('\n').find((line) => line.startsWith('| `Code` values |')) ?? '';
  expect([...constants.EC2_SCHEDULED_EVENT_CODES]).toEqual([...row.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));
});

it("CONFIG_CRD_NAME is the config CRD's name: <plural>.<group>, as crds/ names it", () => {
  expect(constants.CONFIG_CRD_NAME).toBe('maintenanceoperatorconfigs.maintenance.nvidia.com');
});

describe('KEP-5683 node lifecycle conditions (interop-2026.md section 3.1)', () => {
  it('the four types kmaint writes, letter by letter, in the order a request meets them', () => {
    expect([...NODE_CONDITION_TYPES]).toEqual(['MaintenancePlanned', 'MaintenanceInProgress', 'DrainInProgress', 'Drained']);
    expect(Object.values(NodeCondition)).toEqual([...NODE_CONDITION_TYPES]);
  });

  it('reasons are CamelCase, DrainCompleted as the KEP names it; the ownership mark is kmaint\'s', () => {
    expect(Object.values(NodeConditionReason)).toEqual(['MaintenanceScheduled', 'MaintenanceStarted', 'DrainNotStarted', 'EvictingPods', 'DrainCompleted']);
    for (const reason of Object.values(NodeConditionReason)) expect(reason).toMatch(/^[A-Z][a-z]+(?:[A-Z][a-z]+)+$/);
    expect(NODE_CONDITION_MESSAGE_PREFIX).toBe('kmaint: ');
  });
});

it('the out-of-service taint as KEP-2268 names it (interop-2026.md section 5); its record is under kmaint.io/', () => {
  expect([TAINT_OUT_OF_SERVICE, TAINT_OUT_OF_SERVICE_VALUE, ANNOTATION_OUT_OF_SERVICE_BY, EVENT_REASON_OUT_OF_SERVICE]).toEqual(['node.kubernetes.io/out-of-service', 'nodeshutdown', 'kmaint.io/out-of-service-by', 'OutOfServiceTaint']);
});

const INTEROP_SHEET = readFileSync(fileURLToPath(new URL('../shared/reference/interop-2026.md', REPO_ROOT)), 'utf8');

/** The SR-IOV network operator's strings kmaint speaks as its external drainer, as interop-2026.md §1 spells them. */
const SRIOV_OPERATOR_STRINGS: Array<{ name: keyof typeof constants; expected: string | number; spelled: string }> = [
  { name: 'SRIOV_ANNOTATION_NODE_STATE', expected: 'sriovnetwork.openshift.io/state', spelled: '`sriovnetwork.openshift.io/state`' },
  { name: 'SRIOV_ANNOTATION_DESIRED_STATE', expected: 'sriovnetwork.openshift.io/desired-state', spelled: '`sriovnetwork.openshift.io/desired-state`' },
  { name: 'SRIOV_ANNOTATION_CURRENT_STATE', expected: 'sriovnetwork.openshift.io/current-state', spelled: '`sriovnetwork.openshift.io/current-state`' },
  { name: 'SRIOV_ANNOTATION_EXTERNAL_DRAINER', expected: 'sriovnetwork.openshift.io/use-external-drainer', spelled: '`sriovnetwork.openshift.io/use-external-drainer`' },
  { name: 'SRIOV_GROUP', expected: 'sriovnetwork.openshift.io', spelled: '`sriovnetwork.openshift.io/v1`' },
  { name: 'SRIOV_VERSION', expected: 'v1', spelled: '`sriovnetwork.openshift.io/v1`' },
  { name: 'SRIOV_NODE_STATE_PLURAL', expected: 'sriovnetworknodestates', spelled: 'SriovNetworkNodeState' },
  { name: 'SRIOV_POOL_CONFIG_PLURAL', expected: 'sriovnetworkpoolconfigs', spelled: 'SriovNetworkPoolConfig' },
  { name: 'DEFAULT_SRIOV_RESOURCE_PREFIX', expected: 'openshift.io', spelled: 'default `openshift.io`' },
  { name: 'SRIOV_DRAIN_TIMEOUT_SECONDS', expected: 90, spelled: 'a 90 s timeout' },
];

/** kmaint's own strings of the SR-IOV protocol. */
const SRIOV_KMAINT_STRINGS: Array<{ name: keyof typeof constants; expected: string }> = [
  { name: 'DEFAULT_SRIOV_NAMESPACE', expected: 'sriov-network-operator' },
  { name: 'SRIOV_REQUEST_PREFIX', expected: 'sriov-' },
  { name: 'LABEL_SRIOV_HANDSHAKE', expected: 'kmaint.io/sriov-handshake' },
  { name: 'SRIOV_HANDSHAKE_REQUESTOR', expected: 'sriov-network-operator.kmaint.io' },
  { name: 'ANNOTATION_SRIOV_HANDSHAKE_PROBLEM', expected: 'kmaint.io/sriov-handshake-problem' },
];

describe('the SR-IOV network operator\'s drain handshake (interop-2026.md section 1)', () => {
  it.each(SRIOV_OPERATOR_STRINGS)('$name is exactly "$expected", as the sheet spells it', ({ name, expected, spelled }) => {
    expect(constants[name]).toBe(expected);
    expect(INTEROP_SHEET).toContain(spelled);
    // Plurals are the kinds lower-cased, plus s (the CRDs' spec.names.plural).
    if (name.endsWith('_PLURAL')) expect(expected).toBe(`${spelled.toLowerCase()}s`);
    else if (typeof expected === 'string' && name !== 'SRIOV_VERSION') expect(spelled).toContain(expected);
  });

  it.each(SRIOV_KMAINT_STRINGS)('$name is exactly "$expected", kmaint\'s own', ({ name, expected }) => {
    expect(constants[name]).toBe(expected);
  });
});

it("ValidationFailedReason holds exactly KmaintValidationFailed's two reasons (issue 44, the repair ladder matches them)", () => {
  expect(constants.ValidationFailedReason).toEqual({ Failed: 'Failed', TimedOut: 'TimedOut' });
});
