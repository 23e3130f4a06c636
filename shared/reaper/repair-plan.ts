// The repair ladder's part of one reaper pass (issue 44): the per-pool cap, a rung's request with the Node's records
// written first in its unit, and one patch per Node. plan.ts calls these; the decisions are in repair-ladder.ts.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPER_FORCE_RETRY,
  ANNOTATION_REAPER_PROVIDER_ID,
  ANNOTATION_REBOOT,
  EVENT_REASON_REPAIR,
  EVENT_REASON_REPAIR_ESCALATED,
  LABEL_REAPER,
  REAPER_REQUESTOR,
} from '#api';
import type { Action, NodeMaintenance } from '#api';
import type { NodeFacts } from './cel.ts';
import type { ReaperConfig } from './config.ts';
import type { Remedy, RepairConfig } from './repair-config.ts';
import { chooseRung, filingRecords, type RungChoice } from './repair-ladder.ts';

/** The pool of `node` for the repair cap: its poolLabel value ('' when unlabelled: one pool of its own). */
export function poolOf(node: V1Node, repair: RepairConfig): string {
  return node.metadata?.labels?.[repair.poolLabel] ?? '';
}

/**
 * The reaper's requests by pool (`own` by Node name): the repairs in progress the cap counts. A request being deleted
 * counts until it is gone: its release may still hold the node (cleanup validates it before the uncordon, issue 44).
 */
export function repairsByPool(own: ReadonlyMap<string, NodeMaintenance>, nodes: ReadonlyMap<string, V1Node>, repair: RepairConfig): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of own.keys()) {
    const node = nodes.get(name);
    if (node === undefined) continue;
    const pool = poolOf(node, repair);
    out.set(pool, (out.get(pool) ?? 0) + 1);
  }
  return out;
}

/**
 * The rung for a Node that passed every gate, held back while a validation runs on it (`validating`, from
 * validation-wait.ts: its outcome says whether the last rung worked) and when its pool already has
 * maxConcurrentPerPool repairs in progress (`inProgress`, counting the requests this pass files: the caller adds each).
 */
export function repairChoice(node: V1Node, facts: NodeFacts, repair: RepairConfig, inProgress: ReadonlyMap<string, number>, now: Date, validating?: string): RungChoice {
  if (validating !== undefined) return { kind: 'wait', why: validating };
  const choice = chooseRung(repair, node, facts, now);
  if (choice.kind === 'wait') return choice;
  const pool = poolOf(node, repair);
  const busy = inProgress.get(pool) ?? 0;
  if (busy >= repair.maxConcurrentPerPool) {
    return { kind: 'wait', why: `pool ${pool === '' ? `(no ${repair.poolLabel} label)` : `${repair.poolLabel}=${pool}`} has ${busy} repair${busy === 1 ? '' : 's'} in progress, maxConcurrentPerPool ${repair.maxConcurrentPerPool}` };
  }
  return choice;
}

function nodeEvent(node: V1Node, type: 'Normal' | 'Warning', eventReason: string, message: string): Action {
  const uid = node.metadata?.uid;
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node.metadata?.name ?? '', ...(uid ? { uid } : {}) }, type, eventReason, message, reason: 'repair ladder' };
}

const WHAT: Readonly<Record<Remedy, string>> = {
  reboot: 'drains the node and reboots it (kmaint.io/reboot), then is released',
  replace: 'drains the node, then terminates its instance',
  quarantine: 'drains the node and keeps it cordoned',
};

/**
 * A rung's request: first the Node's records (the rung, and the repair in its history; the recorded decision cleared),
 * in the request's write unit so the request follows only once they landed; then the request — a reboot rung's asks
 * kmaint.io/reboot, a quarantine rung's is never collected (its Node stays cordoned); then the events.
 */
export function requestRepair(node: V1Node, f: NodeFacts, name: string, namespace: string, config: ReaperConfig, repair: RepairConfig, choice: Extract<RungChoice, { kind: 'file' }>, now: Date, extra: Record<string, string | null>): Action[] {
  const annotations: Record<string, string> = { [ANNOTATION_REAPER_PROVIDER_ID]: f.providerID };
  if (config.forceRetryOnError) annotations[ANNOTATION_REAPER_FORCE_RETRY] = 'true';
  if (choice.remedy === 'reboot') annotations[ANNOTATION_REBOOT] = 'true';
  if (choice.remedy === 'quarantine' || (choice.remedy === 'replace' && config.skipReaping)) annotations[ANNOTATION_GC_IGNORE] = 'true';
  const records: Record<string, string | null> = { ...extra, ...filingRecords(node, repair, choice, now) };
  if (node.metadata?.annotations?.[ANNOTATION_REAPER_DECISION] !== undefined) records[ANNOTATION_REAPER_DECISION] = null;
  const rung = `rung ${choice.rung} (${choice.remedy})`;
  return [
    { kind: 'patchNodeAnnotations', node: { name: f.name, resourceVersion: node.metadata?.resourceVersion ?? '' }, annotations: records, maintenance: { namespace, name, resourceVersion: '' }, reason: `record repair ${rung} before filing its request` },
    {
      kind: 'createMaintenance',
      target: { namespace, name },
      labels: { [LABEL_REAPER]: 'true' },
      annotations,
      spec: { requestorID: REAPER_REQUESTOR, nodeName: f.name, cordon: true, drainSpec: config.drainSpec },
      reason: `repair node ${f.name} by ${rung}: matches reapPredicate, unhealthy for at least ${config.unhealthyForSeconds} s, within the guards`,
    },
    ...(choice.escalated !== undefined ? [nodeEvent(node, 'Warning', EVENT_REASON_REPAIR_ESCALATED, choice.escalated)] : []),
    nodeEvent(node, 'Normal', EVENT_REASON_REPAIR, `repair ${rung} requested: ${namespace}/${name} ${WHAT[choice.remedy]}`),
  ];
}

/**
 * `actions` with `extra` merged into the first annotation patch of `node` (its own keys win), or a patch of its own in
 * front when there is none: one write per Node per pass.
 */
export function withNodeRecords(actions: Action[], node: V1Node, extra: Record<string, string | null>): Action[] {
  if (Object.keys(extra).length === 0) return actions;
  const name = node.metadata?.name ?? '';
  const i = actions.findIndex((a) => a.kind === 'patchNodeAnnotations' && a.node.name === name);
  const found = actions[i];
  if (found?.kind === 'patchNodeAnnotations') {
    const merged = [...actions];
    merged[i] = { ...found, annotations: { ...extra, ...found.annotations } };
    return merged;
  }
  return [{ kind: 'patchNodeAnnotations', node: { name, resourceVersion: node.metadata?.resourceVersion ?? '' }, annotations: extra, reason: 'the repair ladder\'s records on the node' }, ...actions];
}
