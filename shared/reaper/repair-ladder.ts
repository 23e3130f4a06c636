// The repair ladder's pure decisions (issue 44): which rung a Node that the reaper may act on gets, when a reboot rung
// has failed and the next one follows, when a repeat offender skips reboots, and what releases a reboot rung's
// request. plan.ts calls these; every write is the reaper's own request or the Node's repair.kmaint.io/ records.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_REBOOT,
  ANNOTATION_REBOOT_START,
  ANNOTATION_REPAIR_HISTORY,
  ANNOTATION_REPAIR_RUNG,
  ANNOTATION_REPAIR_UNHEALTHY_SINCE,
  EVENT_REASON_REPAIR,
  EVENT_REASON_REPAIR_ESCALATED,
  Phase,
  REPAIR_ANNOTATION_PREFIX,
  maintenanceKey,
  maintenancePhase,
  maintenanceRef,
  rfc3339Seconds,
} from '#api';
import type { Action, NodeMaintenance } from '#api';
import type { NodeFacts } from './cel.ts';
import type { RepairConfig, Remedy } from './repair-config.ts';
import { describeHistory, failedValidation, historyWith, prunedHistory, readHistory, readRung, recordedUnhealthySince, rungRecord, type RungRecord } from './repair-history.ts';

export type RungChoice =
  | {
      kind: 'file';
      rung: number;
      remedy: Remedy;
      /** Warning event message when the ladder went past a rung (timed out, or repeat offender). */
      escalated?: string;
      /** Whether this filing starts a repair (history entry) or files again a rung whose request went missing. */
      newRepair: boolean;
    }
  | { kind: 'wait'; why: string };

function millis(at: string): number {
  return Date.parse(at);
}

/** The first rung at or after `from` whose `when` matches; a `when` that cannot be evaluated does not match. */
function firstMatching(repair: RepairConfig, facts: NodeFacts, from: number): number | undefined {
  for (let i = from; i < repair.ladder.length; i++) {
    const r = repair.ladder[i]?.when.evaluate(facts);
    if (r?.ok === true && r.value) return i;
  }
  return undefined;
}

function rungName(repair: RepairConfig, i: number): string {
  return `rung ${i} (${repair.ladder[i]?.remedy ?? '?'})`;
}

/**
 * The rung for a Node the reaper may act on (it matches reapPredicate and passed every gate), from its records:
 * a reboot rung released at T waits until T + timeoutSeconds, then the next matching rung; a rung whose request went
 * missing before it finished is filed again; otherwise the first matching rung. A Node with more than repeatLimit
 * repairs in the window skips a reboot rung for the last rung that is not a reboot. Pure.
 */
export function chooseRung(repair: RepairConfig, node: V1Node, facts: NodeFacts, now: Date): RungChoice {
  const record = readRung(node);
  let from = 0;
  let escalated: string | undefined;
  let newRepair = true;
  if (record?.state === 'rebooted') {
    const timeout = repair.ladder[record.rung]?.timeoutSeconds ?? 0;
    const due = millis(record.at) + timeout * 1000;
    if (now.getTime() < due) {
      return { kind: 'wait', why: `${rungName(repair, record.rung)} rebooted the node at ${record.at}; waiting until ${rfc3339Seconds(due)} (timeoutSeconds ${timeout}) for it to be healthy before the next rung` };
    }
    from = record.rung + 1;
    escalated = `${rungName(repair, record.rung)} did not make the node healthy within ${timeout} s of its reboot at ${record.at}`;
  } else if (record?.state === 'requested' && record.rung < repair.ladder.length) {
    from = record.rung;
    newRepair = false;
  }
  const rung = firstMatching(repair, facts, from);
  if (rung === undefined) {
    return { kind: 'wait', why: `no rung from ${from} on matches the node: the ladder is exhausted, the node is left as it is (remove ${ANNOTATION_REPAIR_RUNG} to start the ladder again)` };
  }
  const chosen = repair.ladder[rung];
  if (chosen?.remedy === 'reboot' && newRepair) {
    const history = readHistory(node, now, repair.historyWindowSeconds);
    if (history.length > repair.repeatLimit) {
      const last = repair.ladder.findLastIndex((r) => r.remedy !== 'reboot');
      const offender = `repeat offender: repaired ${history.length} times in the last ${repair.historyWindowSeconds} s (${describeHistory(history)}), more than repeatLimit ${repair.repeatLimit}`;
      if (last < 0) return { kind: 'wait', why: `${offender}, and no rung but reboot: the node is left for a person` };
      return { kind: 'file', rung: last, remedy: repair.ladder[last]?.remedy ?? 'replace', escalated: `${offender}: skips ${rungName(repair, rung)} for ${rungName(repair, last)}`, newRepair };
    }
  }
  return { kind: 'file', rung, remedy: chosen?.remedy ?? 'replace', ...(escalated !== undefined ? { escalated: `${escalated}: next ${rungName(repair, rung)}` } : {}), newRepair };
}

/**
 * Since when the Node has been unhealthy for the reaper's unhealthyForSeconds: kmaint's own record when present, else
 * the earlier of `now` and what its conditions say (`fromConditions`). Written on first sight and kept while the Node
 * keeps matching, so a condition whose lastTransitionTime keeps moving does not restart the clock (karpenter#2833).
 */
export function repairSince(node: V1Node, fromConditions: number | undefined, now: Date): { since: number; record?: string } {
  const recorded = recordedUnhealthySince(node);
  if (recorded !== undefined) return { since: recorded };
  const since = Math.min(now.getTime(), fromConditions ?? now.getTime());
  return { since, record: rfc3339Seconds(since) };
}

/** The Node's repair.kmaint.io/ keys, as a patch that removes each (every one kmaint may have written). */
export function removeRepairRecords(node: V1Node): Record<string, null> {
  return Object.fromEntries(Object.keys(node.metadata?.annotations ?? {}).filter((k) => k.startsWith(REPAIR_ANNOTATION_PREFIX)).map((k) => [k, null]));
}

/**
 * A Node that no longer matches reapPredicate and has no request of the reaper: its unhealthy-since and rung records
 * go (the repair worked, or the fault went), its history is pruned by time. Without repair config every
 * repair.kmaint.io/ key goes (the feature is off).
 */
export function healthyRecords(node: V1Node, repair: RepairConfig | undefined, now: Date): Record<string, string | null> {
  if (repair === undefined) return removeRepairRecords(node);
  const a = node.metadata?.annotations ?? {};
  const out: Record<string, string | null> = {};
  if (a[ANNOTATION_REPAIR_UNHEALTHY_SINCE] !== undefined) out[ANNOTATION_REPAIR_UNHEALTHY_SINCE] = null;
  if (a[ANNOTATION_REPAIR_RUNG] !== undefined) out[ANNOTATION_REPAIR_RUNG] = null;
  const pruned = prunedHistory(node, now, repair.historyWindowSeconds);
  if (pruned !== undefined) out[ANNOTATION_REPAIR_HISTORY] = pruned;
  return out;
}

/** The records written with a rung's request (in its write unit, before it): the rung, and a new repair in the history. */
export function filingRecords(node: V1Node, repair: RepairConfig, choice: Extract<RungChoice, { kind: 'file' }>, now: Date): Record<string, string> {
  const out: Record<string, string> = { [ANNOTATION_REPAIR_RUNG]: rungRecord(choice.rung, choice.remedy, 'requested', now) };
  const validation = failedValidation(node);
  const entry = { at: rfc3339Seconds(now), rung: choice.rung, remedy: choice.remedy, ...(validation !== undefined ? { validation } : {}) };
  if (choice.newRepair) out[ANNOTATION_REPAIR_HISTORY] = historyWith(node, entry, now, repair.historyWindowSeconds);
  return out;
}

/** How many of `nodes` were repaired more than repeatLimit times within the history window ending at `now`. */
export function repeatOffenders(nodes: readonly V1Node[], repair: RepairConfig, now: Date): number {
  return nodes.filter((n) => readHistory(n, now, repair.historyWindowSeconds).length > repair.repeatLimit).length;
}

/** A reboot rung's request (the reaper's own, asking kmaint.io/reboot). */
export function isRebootRungRequest(nm: NodeMaintenance): boolean {
  return nm.metadata.annotations?.[ANNOTATION_REBOOT] === 'true';
}

function nodeEvent(node: V1Node, type: 'Normal' | 'Warning', eventReason: string, message: string): Action {
  const uid = node.metadata?.uid;
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node.metadata?.name ?? '', ...(uid ? { uid } : {}) }, type, eventReason, message, reason: 'repair ladder' };
}

/**
 * The reaper's reboot rung requests that are done: Ready (the node rebooted: new boot ID and Ready), or still
 * Rebooting past the rung's timeoutSeconds after the reboot was issued. Each is released — the Node's rung record
 * says `rebooted` (the rung's clock: its timeout runs from then; a timed-out reboot counts from its start, so the
 * next rung follows at once if the node is still unhealthy), then the request is deleted, in its write unit. A request
 * whose record already says so is only deleted (an earlier pass's delete did not land). Pure.
 */
export function planRebootReleases(nodes: ReadonlyMap<string, V1Node>, own: readonly NodeMaintenance[], repair: RepairConfig | undefined, now: Date): Action[] {
  const actions: Action[] = [];
  for (const nm of own) {
    if (nm.metadata.deletionTimestamp || !isRebootRungRequest(nm)) continue;
    const node = nodes.get(nm.spec.nodeName);
    if (node === undefined) continue;
    const record: RungRecord | undefined = readRung(node);
    const rung = record?.rung ?? 0;
    const timeout = repair?.ladder[rung]?.timeoutSeconds;
    const phase = maintenancePhase(nm);
    const started = nm.metadata.annotations?.[ANNOTATION_REBOOT_START];
    const startedAt = started !== undefined ? Date.parse(started) : NaN;
    const timedOut = phase !== Phase.Ready && timeout !== undefined && !Number.isNaN(startedAt) && now.getTime() > startedAt + timeout * 1000;
    if (phase !== Phase.Ready && !timedOut) continue;
    const target = maintenanceRef(nm);
    const ref = maintenanceKey(nm);
    if (record?.state !== 'rebooted') {
      const at = timedOut ? startedAt : now.getTime();
      actions.push({ kind: 'patchNodeAnnotations', node: { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' }, annotations: { [ANNOTATION_REPAIR_RUNG]: rungRecord(rung, 'reboot', 'rebooted', at) }, maintenance: target, reason: `record that rung ${rung} (reboot) is done before releasing ${ref}` });
    }
    actions.push({ kind: 'deleteMaintenance', target, reason: timedOut ? `rung ${rung} (reboot): the reboot did not finish within ${timeout ?? 0} s` : `rung ${rung} (reboot): the node rebooted` });
    if (record?.state !== 'rebooted') {
      actions.push(
        timedOut
          ? nodeEvent(node, 'Warning', EVENT_REASON_REPAIR_ESCALATED, `repair rung ${rung} (reboot): ${ref} did not finish its reboot within ${timeout ?? 0} s of ${started ?? ''}; released, the next rung follows`)
          : nodeEvent(node, 'Normal', EVENT_REASON_REPAIR, `repair rung ${rung} (reboot): the node rebooted, ${ref} released; the next rung follows if the node is still unhealthy ${timeout ?? 0} s from now`),
      );
    }
  }
  return actions;
}
