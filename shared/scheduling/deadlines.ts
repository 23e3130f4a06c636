// The scheduler's report on the requests' own times: a Warning event, once, on a request not Ready by its
// kmaint.io/deadline, and on one whose deadline or not-before cannot be read. "Once" is the kmaint.io/deadline-reported
// record written with the event, naming the value warned about: a new value is reported again, the same never twice.
import {
  ANNOTATION_DEADLINE,
  ANNOTATION_DEADLINE_REPORTED,
  ANNOTATION_NOT_BEFORE,
  EVENT_REASON_DEADLINE_MISSED,
  EVENT_REASON_INVALID_REQUEST_TIME,
  Phase,
  isBeingDeleted,
  maintenancePhase,
  maintenanceRef,
  readyCondition,
  requestDeadline,
  requestNotBefore,
  rfc3339Seconds,
} from '#api';
import type { Action, NodeMaintenance } from '#api';
import { rankingDeadline } from './deadline-risk.ts';

/**
 * True when the request missed its valid deadline at `now`: still not Ready after it, or Ready only after it (by the
 * Ready condition's transition time). A request being deleted is its requestor's decision, not a missed deadline.
 */
export function missedDeadline(nm: NodeMaintenance, now: Date): boolean {
  // A deadline before the request's creation is not believed (reported as invalid), so it cannot be missed either.
  const deadline = rankingDeadline(nm);
  if (deadline.kind !== 'valid' || isBeingDeleted(nm)) return false;
  if (maintenancePhase(nm) === Phase.Ready) {
    const since = Date.parse(readyCondition(nm)?.lastTransitionTime ?? '');
    return !Number.isNaN(since) && since > deadline.at.getTime();
  }
  return now.getTime() > deadline.at.getTime();
}

interface Report {
  record: string;
  eventReason: string;
  message: string;
}

/** What to warn about on this request now, if anything: an unreadable time first (the requestor must fix it), then a missed deadline. */
function reportFor(nm: NodeMaintenance, now: Date): Report | undefined {
  const deadline = requestDeadline(nm);
  const notBefore = requestNotBefore(nm);
  const annotations = nm.metadata.annotations ?? {};
  if (deadline.kind === 'invalid' || notBefore.kind === 'invalid') {
    const reasons = [deadline, notBefore].flatMap((t) => (t.kind === 'invalid' ? [t.reason] : []));
    const values = `${annotations[ANNOTATION_DEADLINE] ?? ''} ${annotations[ANNOTATION_NOT_BEFORE] ?? ''}`;
    return { record: `invalid ${values}`, eventReason: EVENT_REASON_INVALID_REQUEST_TIME, message: `${reasons.join('; ')}; the value is not used` };
  }
  const believed = rankingDeadline(nm);
  if (believed.kind === 'ignored') {
    return { record: `invalid ${annotations[ANNOTATION_DEADLINE] ?? ''} ${annotations[ANNOTATION_NOT_BEFORE] ?? ''}`, eventReason: EVENT_REASON_INVALID_REQUEST_TIME, message: `${believed.reason}; the value is not used` };
  }
  if (deadline.kind !== 'valid' || !missedDeadline(nm, now)) return undefined;
  const phase = maintenancePhase(nm) || 'new';
  const message = `not Ready by its deadline ${rfc3339Seconds(deadline.at)} (${ANNOTATION_DEADLINE}); phase ${phase}${phase === Phase.Ready ? ' reached after it' : ''}`;
  return { record: `missed ${annotations[ANNOTATION_DEADLINE] ?? ''}`, eventReason: EVENT_REASON_DEADLINE_MISSED, message };
}

/** The event and its record for every request with something new to report; [] when every report was made. */
export function planDeadlineReports(maintenances: readonly NodeMaintenance[], now: Date): Action[] {
  const actions: Action[] = [];
  for (const nm of maintenances) {
    const report = reportFor(nm, now);
    if (report === undefined || nm.metadata.annotations?.[ANNOTATION_DEADLINE_REPORTED] === report.record) continue;
    const target = { kind: 'NodeMaintenance' as const, namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, ...(nm.metadata.uid !== undefined ? { uid: nm.metadata.uid } : {}) };
    // The record first: a record whose event failed is a lost warning; an event without its record would repeat every pass.
    actions.push({ kind: 'patchMaintenanceMeta', target: maintenanceRef(nm), annotations: { [ANNOTATION_DEADLINE_REPORTED]: report.record }, reason: `record ${report.eventReason} reported` });
    actions.push({ kind: 'emitEvent', target, type: 'Warning', eventReason: report.eventReason, message: report.message, reason: report.message });
  }
  return actions;
}
