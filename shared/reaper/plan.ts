// The reaper's pure plan: which unhealthy Nodes get a reap request, why every other candidate does not, and
// which Ready reap requests have their instance terminated. Termination itself happens in terminate.ts.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REAPED,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPER_FORCE_RETRY,
  ANNOTATION_REAPER_JOINED,
  ANNOTATION_REAPER_JOINED_PROVIDER_ID,
  ANNOTATION_REAPER_PROVIDER_ID,
  ANNOTATION_REPAIR_UNHEALTHY_SINCE,
  EVENT_REASON_REAP_JOINED,
  EVENT_REASON_REAP_REQUESTED,
  EVENT_REASON_REAP_SKIPPED,
  LABEL_REAPER,
  REAPER_REQUESTOR,
  isUnscheduled,
  maintenanceKey,
  maintenanceRef,
} from '#api';
import type { Action, NodeMaintenance } from '#api';
import { maintenanceMarkedByOthers, rfc3339Seconds } from '../api/index.ts';
import type { NodeFacts } from './cel.ts';
import type { ReaperConfig } from './config.ts';
import { clusterGuard, countUnhealthy, zoneGuard, type UnhealthyCounts } from './guards.ts';
import { nodeCreatedAt, nodeFacts, unhealthySince } from './node-view.ts';
import { isOwnReapRequest, isRecordedJoin, joinRecordOf, joinRecordOn, reapRequestName } from './own-requests.ts';
import { chooseProvider, type InstanceProviders } from './providers.ts';
import { planTerminations, type Termination } from './termination-plan.ts';
import { healthyRecords, planRebootReleases, removeRepairRecords, repairSince, repeatOffenders } from './repair-ladder.ts';
import { poolOf, repairChoice, repairsByPool, requestRepair, withNodeRecords } from './repair-plan.ts';
import { requestAttempts, validationRunning } from './validation-wait.ts';
import { isDeviceRequest } from '../devices/index.ts';
import { planDeviceReleases, reapDevices, requestDeviceReap } from './device-reap.ts';

export { reapRequestName } from './own-requests.ts';
export { describeTermination } from './termination-plan.ts';
export type { Termination } from './termination-plan.ts';

export interface ReaperSnapshot {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** kmaint's namespace: reap requests are created there. */
  namespace: string;
  /** Providers by prefix: a candidate whose providerID no provider serves is not reaped. */
  providers: InstanceProviders;
  /**
   * namespace/name of the waiting ('' or Pending) requests that could start now (shared/scheduling requestsHoldingNodes):
   * a waiting request not in it (a gang that cannot start, its own not-before, a closed window) holds nothing and neither
   * keeps the reaper off its Node nor is joined (issue 40). Absent: every live request counts, as before.
   */
  holding?: ReadonlySet<string>;
}

export interface ReaperDecision {
  node: string;
  /** Why it is not reaped (undefined: a reap request is made). */
  skipped?: string;
}

export interface ReaperPlan {
  actions: Action[];
  terminations: Termination[];
  /** Every candidate (Node matching reapPredicate, not already being reaped) and what was decided, by Node name. */
  decisions: ReaperDecision[];
  counts: UnhealthyCounts;
  /** With the repair ladder: Nodes repaired more than repeatLimit times within the history window (the metric). */
  repeatOffenders?: number;
}

interface Candidate {
  node: V1Node;
  facts: NodeFacts;
  /** Since when it has been unhealthy (ms): its conditions' say, or with the repair ladder kmaint's own record. */
  since: number | undefined;
  /** devicesFrom's failing devices (issue 45): a device request, no termination; undefined: a node request. */
  devices?: readonly string[];
}

interface GateContext {
  config: ReaperConfig;
  now: Date;
  counts: UnhealthyCounts;
  /** Requests by other requestors, by Node name. */
  others: ReadonlyMap<string, NodeMaintenance[]>;
  providers: InstanceProviders;
  /** Repair ladder only: the reaper's requests in progress by pool, counting those filed by this plan. */
  repairs: Map<string, number>;
  /** Repair ladder only: the validation attempt ids of the requests that exist (validation-wait.ts). */
  attempts: ReadonlySet<string>;
}

/** Reasons not to reap, in order; the first that applies is the one reported. Each message is stable while nothing changes. */
const GATES: ReadonlyArray<(c: Candidate, ctx: GateContext) => string | undefined> = [
  // Reaped already: its instance is gone (or it was drained with provider none) and the Node object lingers.
  (c) => {
    const at = c.node.metadata?.annotations?.[ANNOTATION_REAPED];
    return at !== undefined ? `reaped at ${at}; waiting for the Node to be removed (remove ${ANNOTATION_REAPED} to reap it again)` : undefined;
  },
  // Another controller says (KEP-5683 conditions) the Node is under its maintenance: its NotReady is expected, never reaped.
  (c) => {
    const marked = maintenanceMarkedByOthers(c.node);
    return marked !== undefined ? `under another controller's maintenance: ${marked}` : undefined;
  },
  // A Node someone else is maintaining is theirs: reaping it would fight their request (unless configured to join it).
  (c, ctx) => {
    const other = ctx.others.get(c.facts.name)?.[0];
    if (!other || (ctx.config.joinExistingRequests && c.devices === undefined)) return undefined;
    return `already in maintenance: ${other.metadata.namespace ?? ''}/${other.metadata.name} by ${other.spec.requestorID} (${c.devices === undefined ? 'spec.reaper.joinExistingRequests is off' : 'a device reap joins no request'})`;
  },
  // New Nodes report NotReady while they boot.
  (c, ctx) => {
    const created = nodeCreatedAt(c.node);
    const grace = ctx.config.newNodeGracePeriodSeconds;
    if (created === undefined) return grace > 0 ? 'no creationTimestamp, so the new-node grace period cannot be checked' : undefined;
    const ends = created + grace * 1000;
    return ctx.now.getTime() < ends ? `new node: created ${rfc3339Seconds(created)}, within the grace period of ${grace} s (until ${rfc3339Seconds(ends)})` : undefined;
  },
  // A state younger than unhealthyForSeconds may be a flap.
  (c, ctx) => {
    const since = c.since;
    const hold = ctx.config.unhealthyForSeconds;
    if (since === undefined) return 'no lastTransitionTime on its conditions, so how long it has been unhealthy is unknown';
    const due = since + hold * 1000;
    return ctx.now.getTime() < due ? `unhealthy since ${rfc3339Seconds(since)}, not yet for unhealthyForSeconds ${hold} (due ${rfc3339Seconds(due)})` : undefined;
  },
  // Never start a drain that cannot end in a termination (unless only quarantining, or provider none).
  (c, ctx) => {
    if (c.devices !== undefined || ctx.config.skipReaping || ctx.config.provider === 'none') return undefined;
    const choice = chooseProvider(c.facts.providerID, ctx.providers);
    return choice.ok ? undefined : choice.problem;
  },
  // Many unhealthy Nodes is an outage, not an isolated failure: stop everywhere.
  (_c, ctx) => clusterGuard(ctx.counts, ctx.config.maxNodesUnhealthy),
  // Many unhealthy Nodes in one zone is a zone problem: stop in that zone.
  (c, ctx) => zoneGuard(ctx.counts, c.facts.zone, ctx.config.maxNodesUnhealthyInSameZone),
];

function nodeEvent(node: V1Node, type: 'Normal' | 'Warning', eventReason: string, message: string, reason: string): Action {
  const uid = node.metadata?.uid;
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node.metadata?.name ?? '', ...(uid ? { uid } : {}) }, type, eventReason, message, reason };
}

function nodeRef(node: V1Node): { name: string; resourceVersion: string } {
  return { name: node.metadata?.name ?? '', resourceVersion: node.metadata?.resourceVersion ?? '' };
}

/**
 * The requests by Node name: the reaper's own (kmaint's namespace, its computed name and label), those it joined (its
 * record on the Node names them), and every other live one (in namespace/name order) — including requests that merely
 * claim reaper.kmaint.io as requestorID or additional requestor: they are another requestor's like any other.
 */
interface RequestIndex {
  reaping: Map<string, NodeMaintenance>;
  joined: Map<string, NodeMaintenance>;
  others: Map<string, NodeMaintenance[]>;
}

function indexRequests(maintenances: readonly NodeMaintenance[], namespace: string, nodes: ReadonlyMap<string, V1Node>, holding: ReadonlySet<string> | undefined): RequestIndex {
  const holds = (nm: NodeMaintenance): boolean => holding === undefined || !isUnscheduled(nm) || holding.has(maintenanceKey(nm));
  const index: RequestIndex = { reaping: new Map(), joined: new Map(), others: new Map() };
  const byName = [...maintenances].sort((a, b) => ((a.metadata.namespace ?? '') + '/' + a.metadata.name < (b.metadata.namespace ?? '') + '/' + b.metadata.name ? -1 : 1));
  for (const nm of byName) {
    if (isOwnReapRequest(nm, namespace)) index.reaping.set(nm.spec.nodeName, nm);
    else if (isRecordedJoin(nm, nodes.get(nm.spec.nodeName))) index.joined.set(nm.spec.nodeName, nm);
    else if (!nm.metadata.deletionTimestamp && holds(nm)) index.others.set(nm.spec.nodeName, [...(index.others.get(nm.spec.nodeName) ?? []), nm]);
  }
  return index;
}

/**
 * One candidate Node's decision: held back by the first gate's reason (recorded and said once per change of reason;
 * dryRun says it every pass), an existing request joined, or a reap request created.
 */
function planNode(node: V1Node, f: NodeFacts, ctx: GateContext, index: RequestIndex, namespace: string): { actions: Action[]; decision?: ReaperDecision } {
  const { config } = ctx;
  const actions: Action[] = [];
  const recorded = node.metadata?.annotations?.[ANNOTATION_REAPER_DECISION];
  const clearRecord = (): void => {
    if (recorded !== undefined && !config.dryRun) {
      actions.push({ kind: 'patchNodeAnnotations', node: nodeRef(node), annotations: { [ANNOTATION_REAPER_DECISION]: null }, reason: 'the reaper no longer holds this node back' });
    }
  };
  if (index.reaping.has(f.name) || index.joined.has(f.name)) return { actions }; // being reaped: its request reports progress
  const match = config.reapPredicate.evaluate(f);
  let skipped: string | undefined;
  let devices: string[] | undefined;
  // The repair ladder's records: unhealthy-since written on first sight (not in dryRun, which writes nothing).
  const repairSeen = config.repair !== undefined && match.ok && match.value ? repairSince(node, unhealthySince(node), ctx.now) : undefined;
  // Without a ladder (switched off), any repair.kmaint.io/ record left on the Node goes with this pass's patch.
  const records: Record<string, string | null> = config.dryRun ? {} : config.repair === undefined ? removeRepairRecords(node) : repairSeen?.record !== undefined ? { [ANNOTATION_REPAIR_UNHEALTHY_SINCE]: repairSeen.record } : {};
  if (!match.ok) skipped = `reapPredicate could not be evaluated: ${match.error}`;
  else if (!match.value) {
    clearRecord();
    return { actions: config.dryRun ? actions : withNodeRecords(actions, node, healthyRecords(node, config.repair, ctx.now)) };
  } else {
    // devicesFrom first: a Node whose failing devices cannot be read is held back, never reaped whole instead.
    const reap = reapDevices(config, f);
    devices = reap.kind === 'devices' ? reap.devices : undefined;
    skipped = reap.kind === 'problem' ? reap.why : GATES.map((gate) => gate({ node, facts: f, since: repairSeen?.since ?? unhealthySince(node), ...(devices !== undefined ? { devices } : {}) }, ctx)).find((why) => why !== undefined);
  }
  // The repair ladder is for node requests only.
  const choice = skipped === undefined && devices === undefined && config.repair !== undefined ? repairChoice(node, f, config.repair, ctx.repairs, ctx.now, validationRunning(node, ctx.attempts)) : undefined;
  if (choice?.kind === 'wait') skipped = choice.why;

  if (skipped !== undefined) {
    const message = `not reaped: ${skipped}${config.dryRun ? ' (dry run)' : ''}`;
    if (config.dryRun) {
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_SKIPPED, message, 'reaper decision'));
    } else if (recorded !== skipped) {
      actions.push({ kind: 'patchNodeAnnotations', node: nodeRef(node), annotations: { [ANNOTATION_REAPER_DECISION]: skipped }, reason: 'record the reaper decision, reported once' });
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_SKIPPED, message, 'reaper decision'));
    }
    return { actions: withNodeRecords(actions, node, records), decision: { node: f.name, skipped } };
  }
  const decision = { node: f.name };
  const name = reapRequestName(f.name);
  if (devices !== undefined) {
    if (config.dryRun) {
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_REQUESTED, `dry run: would request ${namespace}/${name} for devices ${devices.join(', ')}; the node stays in service, nothing is terminated`, 'reaper decision'));
      return { actions, decision };
    }
    clearRecord();
    actions.push(...requestDeviceReap(node, f, name, namespace, config, devices));
    return { actions: withNodeRecords(actions, node, records), decision };
  }
  const other = config.joinExistingRequests ? index.others.get(f.name)?.[0] : undefined;
  if (other) {
    actions.push(...joinRequest(node, f.providerID, other, config, recorded !== undefined));
    return { actions: withNodeRecords(actions, node, records), decision };
  }
  if (config.repair !== undefined && choice?.kind === 'file') {
    if (config.dryRun) {
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_REQUESTED, `dry run: would request ${namespace}/${name} for repair rung ${choice.rung} (${choice.remedy})${choice.escalated !== undefined ? `: ${choice.escalated}` : ''}`, 'reaper decision'));
      return { actions, decision };
    }
    const pool = poolOf(node, config.repair);
    ctx.repairs.set(pool, (ctx.repairs.get(pool) ?? 0) + 1);
    actions.push(...requestRepair(node, f, name, namespace, config, config.repair, choice, ctx.now, records));
    return { actions, decision };
  }
  if (config.dryRun) {
    actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_REQUESTED, `dry run: would request ${namespace}/${name} to drain the node and terminate ${f.providerID || 'its instance'}`, 'reaper decision'));
    return { actions, decision };
  }
  clearRecord();
  actions.push(...requestReap(node, f, name, namespace, config));
  return { actions: withNodeRecords(actions, node, records), decision };
}

/** The reap request for a Node that passed every gate, and the Node event saying so. */
function requestReap(node: V1Node, f: NodeFacts, name: string, namespace: string, config: ReaperConfig): Action[] {
  const annotations: Record<string, string> = { [ANNOTATION_REAPER_PROVIDER_ID]: f.providerID };
  if (config.forceRetryOnError) annotations[ANNOTATION_REAPER_FORCE_RETRY] = 'true';
  // Quarantine only: the Ready request stays, so garbage collection must not uncordon the Node.
  if (config.skipReaping) annotations[ANNOTATION_GC_IGNORE] = 'true';
  return [
    {
      kind: 'createMaintenance',
      target: { namespace, name },
      labels: { [LABEL_REAPER]: 'true' },
      annotations,
      spec: { requestorID: REAPER_REQUESTOR, nodeName: f.name, cordon: true, drainSpec: config.drainSpec },
      reason: `reap node ${f.name}: matches reapPredicate, unhealthy for at least ${config.unhealthyForSeconds} s, within the guards`,
    },
    nodeEvent(node, 'Normal', EVENT_REASON_REAP_REQUESTED, `reap requested: ${namespace}/${name} drains the node, then ${config.skipReaping ? 'leaves it cordoned (skipReaping)' : `terminates ${f.providerID || 'its instance'}`}`, 'reap requested'),
  ];
}

/**
 * Plans one reaper pass. Candidates are Nodes matching reapPredicate without a reap request; each either passes
 * every gate and gets one (dryRun: only an event saying so) or gets a Node event with the first gate's reason —
 * once per change of reason (kmaint.io/reaper-decision records the last one; dryRun writes no annotation, so its
 * events repeat each pass). Ready reap requests become terminations. Pure: inputs are not mutated.
 */
export function planReaper(snapshot: ReaperSnapshot, config: ReaperConfig, now: Date): ReaperPlan {
  const nodes = [...snapshot.nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const facts = nodes.map((n) => nodeFacts(n, now, config.zoneLabel));
  // A predicate that cannot be evaluated counts the Node unhealthy: the guards fail closed.
  const unhealthy = facts.map((f) => {
    const r = config.unhealthyPredicate.evaluate(f);
    return !r.ok || r.value;
  });
  const counts = countUnhealthy(facts.map((f) => f.zone), unhealthy);
  const nodesByName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  const index = indexRequests(snapshot.maintenances, snapshot.namespace, nodesByName, snapshot.holding);
  // Device reap requests are not repairs: they take no slot of the ladder's per-pool cap.
  const nodeReaps = new Map([...index.reaping].filter(([, nm]) => !isDeviceRequest(nm)));
  const repairs = config.repair !== undefined ? repairsByPool(nodeReaps, nodesByName, config.repair) : new Map<string, number>();
  const attempts = config.repair !== undefined ? requestAttempts(snapshot.maintenances) : new Set<string>();
  const ctx: GateContext = { config, now, counts, others: index.others, providers: snapshot.providers, repairs, attempts };
  const actions: Action[] = [];
  const decisions: ReaperDecision[] = [];
  nodes.forEach((node, i) => {
    const one = planNode(node, facts[i] as NodeFacts, ctx, index, snapshot.namespace);
    actions.push(...one.actions);
    if (one.decision) decisions.push(one.decision);
  });
  if (!config.dryRun) actions.push(...sweepJoinRecords(nodes, index, actions));
  const ends = planTerminations(nodesByName, [...index.reaping.values(), ...index.joined.values()], snapshot.namespace, config);
  const factsByName = new Map(facts.map((f) => [f.name, f]));
  const releases = config.dryRun ? [] : [...planRebootReleases(nodesByName, [...index.reaping.values()], config.repair, now), ...planDeviceReleases([...index.reaping.values()], (n) => factsByName.get(n), config)];
  const offenders = config.repair !== undefined ? repeatOffenders(nodes, config.repair, now) : undefined;
  return { actions: [...actions, ...ends.actions, ...releases], terminations: ends.terminations, decisions, counts, ...(offenders !== undefined ? { repeatOffenders: offenders } : {}) };
}

/**
 * A join record on a Node that names no request listing the reaper (the owner deleted it or took the reaper off,
 * the Node's instance changed, or the join's request write did not land) is removed: only a live join keeps one.
 * Nodes joined by this plan are left to the join's own write.
 */
function sweepJoinRecords(nodes: readonly V1Node[], index: RequestIndex, planned: readonly Action[]): Action[] {
  const joinedNow = new Set(planned.flatMap((a) => (a.kind === 'patchNodeAnnotations' && a.annotations[ANNOTATION_REAPER_JOINED] ? [a.node.name] : [])));
  return nodes.flatMap((node): Action[] => {
    const name = node.metadata?.name ?? '';
    if (joinRecordOn(node) === undefined || index.joined.has(name) || joinedNow.has(name)) return [];
    return [
      {
        kind: 'patchNodeAnnotations',
        node: nodeRef(node),
        annotations: { [ANNOTATION_REAPER_JOINED]: null, [ANNOTATION_REAPER_JOINED_PROVIDER_ID]: null },
        reason: 'the reaper\'s join record names no request that lists the reaper with this instance',
      },
    ];
  });
}

/**
 * Joining another requestor's request for a Node to reap. First the join is recorded on the Node (the request, its
 * uid and the Node's providerID; requestors cannot write Nodes, so this record, not the request's list, says the
 * reaper joined), in the request's unit so the request write follows only once the record landed; then
 * reaper.kmaint.io is added to the request's additionalRequestors (the whole list, preconditioned on the
 * resourceVersion seen) with the providerID shown on it; one event on the Node and on the request. dryRun: only the
 * Node event.
 */
function joinRequest(node: V1Node, providerID: string, nm: NodeMaintenance, config: ReaperConfig, clearDecision: boolean): Action[] {
  const ref = maintenanceKey(nm);
  const then = config.skipReaping ? 'keeps the Node cordoned by staying on its list (skipReaping)' : `terminates ${providerID || 'its instance'} once it is Ready, then leaves the list`;
  if (config.dryRun) {
    return [nodeEvent(node, 'Normal', EVENT_REASON_REAP_JOINED, `dry run: would join ${ref} of ${nm.spec.requestorID} as an additional requestor; the reaper ${then}`, 'reaper decision')];
  }
  const message = `reap joined ${ref} of ${nm.spec.requestorID} as an additional requestor: it drains the node; the reaper ${then}`;
  const uid = nm.metadata.uid;
  const target = maintenanceRef(nm);
  const record: Record<string, string | null> = { [ANNOTATION_REAPER_JOINED]: joinRecordOf(nm), [ANNOTATION_REAPER_JOINED_PROVIDER_ID]: providerID };
  if (clearDecision) record[ANNOTATION_REAPER_DECISION] = null;
  return [
    { kind: 'patchNodeAnnotations', node: nodeRef(node), annotations: record, maintenance: target, reason: `record the reaper's join of ${ref} before joining it` },
    {
      kind: 'patchMaintenanceMeta',
      target,
      additionalRequestors: [...(nm.spec.additionalRequestors ?? []).filter((r) => r !== REAPER_REQUESTOR), REAPER_REQUESTOR],
      annotations: { [ANNOTATION_REAPER_PROVIDER_ID]: providerID },
      reason: `join to reap node ${nm.spec.nodeName} (spec.reaper.joinExistingRequests)`,
    },
    { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, ...(uid ? { uid } : {}) }, type: 'Normal', eventReason: EVENT_REASON_REAP_JOINED, message, reason: 'reap joined' },
    nodeEvent(node, 'Normal', EVENT_REASON_REAP_JOINED, message, 'reap joined'),
  ];
}
