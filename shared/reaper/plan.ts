// The reaper's pure plan: which unhealthy Nodes get a reap request, why every other candidate does not, and
// which Ready reap requests have their instance terminated. Termination itself happens in terminate.ts.
import { createHash } from 'node:crypto';
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REAPED,
  ANNOTATION_REAPER_DECISION,
  ANNOTATION_REAPER_FORCE_RETRY,
  ANNOTATION_REAPER_PROVIDER_ID,
  EVENT_REASON_REAP_JOINED,
  EVENT_REASON_REAP_REQUESTED,
  EVENT_REASON_REAP_SKIPPED,
  LABEL_REAPER,
  Phase,
  REAP_REQUEST_PREFIX,
  REAPER_REQUESTOR,
  maintenanceRef,
} from '#api';
import type { Action, MaintenanceRef, NodeMaintenance } from '#api';
import { maintenanceMarkedByOthers, maintenancePhase } from '../api/index.ts';
import type { NodeFacts } from './cel.ts';
import type { ReaperConfig } from './config.ts';
import { clusterGuard, countUnhealthy, zoneGuard, type UnhealthyCounts } from './guards.ts';
import { nodeCreatedAt, nodeFacts, unhealthySince } from './node-view.ts';
import { chooseProvider, type InstanceProviders } from './providers.ts';

export interface ReaperSnapshot {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** kmaint's namespace: reap requests are created there. */
  namespace: string;
  /** Providers by prefix: a candidate whose providerID no provider serves is not reaped. */
  providers: InstanceProviders;
}

/** A Ready reap request whose instance is to be terminated, then the request deleted. */
export interface Termination {
  maintenance: MaintenanceRef;
  node: string;
  nodeUid?: string;
  providerID: string;
  /** The Node's resourceVersion as the plan saw it ('' when the Node is gone: nothing to annotate). */
  nodeResourceVersion: string;
  /** `none`: terminate nothing, only delete the request. */
  provider: 'providerID' | 'none';
  /**
   * Another requestor's request the reaper joined (joinExistingRequests): afterwards the reaper leaves it — its
   * additionalRequestors become this list — instead of deleting it. `terminate: false` when the Node already carries
   * kmaint.io/reaped (terminated by an earlier pass whose leave did not land): only leave.
   */
  joined?: { additionalRequestors: string[]; terminate: boolean };
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
}

const MAX_NAME = 253;
const HASH_LENGTH = 8;

/** `reap-<node>`; a name that would be too long keeps a prefix of the Node's name and adds a hash of all of it. */
export function reapRequestName(node: string): string {
  const plain = `${REAP_REQUEST_PREFIX}${node}`;
  if (plain.length <= MAX_NAME) return plain;
  const hash = createHash('sha256').update(node).digest('hex').slice(0, HASH_LENGTH);
  return `${plain.slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/[-.]+$/, '')}-${hash}`;
}

export function isReapRequest(nm: NodeMaintenance): boolean {
  return nm.spec.requestorID === REAPER_REQUESTOR;
}

/** Another requestor's request the reaper joined through its additionalRequestors. */
export function isJoinedRequest(nm: NodeMaintenance): boolean {
  return nm.spec.requestorID !== REAPER_REQUESTOR && (nm.spec.additionalRequestors ?? []).includes(REAPER_REQUESTOR);
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface Candidate {
  node: V1Node;
  facts: NodeFacts;
}

interface GateContext {
  config: ReaperConfig;
  now: Date;
  counts: UnhealthyCounts;
  /** Requests by other requestors, by Node name. */
  others: ReadonlyMap<string, NodeMaintenance[]>;
  providers: InstanceProviders;
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
    if (!other || ctx.config.joinExistingRequests) return undefined;
    return `already in maintenance: ${other.metadata.namespace ?? ''}/${other.metadata.name} by ${other.spec.requestorID} (spec.reaper.joinExistingRequests is off)`;
  },
  // New Nodes report NotReady while they boot.
  (c, ctx) => {
    const created = nodeCreatedAt(c.node);
    const grace = ctx.config.newNodeGracePeriodSeconds;
    if (created === undefined) return grace > 0 ? 'no creationTimestamp, so the new-node grace period cannot be checked' : undefined;
    const ends = created + grace * 1000;
    return ctx.now.getTime() < ends ? `new node: created ${rfc3339(created)}, within the grace period of ${grace} s (until ${rfc3339(ends)})` : undefined;
  },
  // A state younger than unhealthyForSeconds may be a flap.
  (c, ctx) => {
    const since = unhealthySince(c.node);
    const hold = ctx.config.unhealthyForSeconds;
    if (since === undefined) return 'no lastTransitionTime on its conditions, so how long it has been unhealthy is unknown';
    const due = since + hold * 1000;
    return ctx.now.getTime() < due ? `unhealthy since ${rfc3339(since)}, not yet for unhealthyForSeconds ${hold} (due ${rfc3339(due)})` : undefined;
  },
  // Never start a drain that cannot end in a termination (unless only quarantining, or provider none).
  (c, ctx) => {
    if (ctx.config.skipReaping || ctx.config.provider === 'none') return undefined;
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

/** The requests by Node name: the reaper's own, those it joined, and every other live one (in namespace/name order). */
interface RequestIndex {
  reaping: Map<string, NodeMaintenance>;
  joined: Map<string, NodeMaintenance>;
  others: Map<string, NodeMaintenance[]>;
}

function indexRequests(maintenances: readonly NodeMaintenance[]): RequestIndex {
  const index: RequestIndex = { reaping: new Map(), joined: new Map(), others: new Map() };
  const byName = [...maintenances].sort((a, b) => ((a.metadata.namespace ?? '') + '/' + a.metadata.name < (b.metadata.namespace ?? '') + '/' + b.metadata.name ? -1 : 1));
  for (const nm of byName) {
    if (isReapRequest(nm)) index.reaping.set(nm.spec.nodeName, nm);
    else if (isJoinedRequest(nm)) index.joined.set(nm.spec.nodeName, nm);
    else if (!nm.metadata.deletionTimestamp) index.others.set(nm.spec.nodeName, [...(index.others.get(nm.spec.nodeName) ?? []), nm]);
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
  if (!match.ok) skipped = `reapPredicate could not be evaluated: ${match.error}`;
  else if (!match.value) {
    clearRecord();
    return { actions };
  } else skipped = GATES.map((gate) => gate({ node, facts: f }, ctx)).find((why) => why !== undefined);

  if (skipped !== undefined) {
    const message = `not reaped: ${skipped}${config.dryRun ? ' (dry run)' : ''}`;
    if (config.dryRun) {
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_SKIPPED, message, 'reaper decision'));
    } else if (recorded !== skipped) {
      actions.push({ kind: 'patchNodeAnnotations', node: nodeRef(node), annotations: { [ANNOTATION_REAPER_DECISION]: skipped }, reason: 'record the reaper decision, reported once' });
      actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_SKIPPED, message, 'reaper decision'));
    }
    return { actions, decision: { node: f.name, skipped } };
  }
  const decision = { node: f.name };
  const other = config.joinExistingRequests ? index.others.get(f.name)?.[0] : undefined;
  if (other) {
    actions.push(...joinRequest(node, f.providerID, other, config));
    if (!config.dryRun) clearRecord();
    return { actions, decision };
  }
  const name = reapRequestName(f.name);
  if (config.dryRun) {
    actions.push(nodeEvent(node, 'Normal', EVENT_REASON_REAP_REQUESTED, `dry run: would request ${namespace}/${name} to drain the node and terminate ${f.providerID || 'its instance'}`, 'reaper decision'));
    return { actions, decision };
  }
  clearRecord();
  actions.push(...requestReap(node, f, name, namespace, config));
  return { actions, decision };
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

/** Ready reap requests (and Ready requests the reaper joined) become terminations; none in dryRun or skipReaping. */
function terminationsOf(nodes: readonly V1Node[], index: RequestIndex, config: ReaperConfig): Termination[] {
  const terminations: Termination[] = [];
  if (config.dryRun || config.skipReaping) return terminations;
  const nodesByName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  const ready = [...index.reaping.values(), ...index.joined.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const nm of ready) {
    const mine = isReapRequest(nm);
    // A joined request the owner deleted while Ready waits for its additionalRequestors: the reaper still finishes.
    if ((mine && nm.metadata.deletionTimestamp) || maintenancePhase(nm) !== Phase.Ready) continue;
    const node = nodesByName.get(nm.spec.nodeName);
    const uid = node?.metadata?.uid;
    terminations.push({
      maintenance: maintenanceRef(nm),
      node: nm.spec.nodeName,
      ...(uid ? { nodeUid: uid } : {}),
      nodeResourceVersion: node?.metadata?.resourceVersion ?? '',
      providerID: nm.metadata.annotations?.[ANNOTATION_REAPER_PROVIDER_ID] ?? node?.spec?.providerID ?? '',
      provider: config.provider,
      ...(mine
        ? {}
        : {
            joined: {
              additionalRequestors: (nm.spec.additionalRequestors ?? []).filter((r) => r !== REAPER_REQUESTOR),
              terminate: node?.metadata?.annotations?.[ANNOTATION_REAPED] === undefined,
            },
          }),
    });
  }
  return terminations;
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
  const index = indexRequests(snapshot.maintenances);
  const ctx: GateContext = { config, now, counts, others: index.others, providers: snapshot.providers };
  const actions: Action[] = [];
  const decisions: ReaperDecision[] = [];
  nodes.forEach((node, i) => {
    const one = planNode(node, facts[i] as NodeFacts, ctx, index, snapshot.namespace);
    actions.push(...one.actions);
    if (one.decision) decisions.push(one.decision);
  });
  return { actions, terminations: terminationsOf(nodes, index, config), decisions, counts };
}

/**
 * Joining another requestor's request for a Node to reap: reaper.kmaint.io added to its additionalRequestors (the
 * whole list, preconditioned on the resourceVersion seen), the providerID recorded on it in the same write, and one
 * event on the Node and on the request. dryRun: only the Node event.
 */
function joinRequest(node: V1Node, providerID: string, nm: NodeMaintenance, config: ReaperConfig): Action[] {
  const ref = `${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
  const then = config.skipReaping ? 'keeps the Node cordoned by staying on its list (skipReaping)' : `terminates ${providerID || 'its instance'} once it is Ready, then leaves the list`;
  if (config.dryRun) {
    return [nodeEvent(node, 'Normal', EVENT_REASON_REAP_JOINED, `dry run: would join ${ref} of ${nm.spec.requestorID} as an additional requestor; the reaper ${then}`, 'reaper decision')];
  }
  const message = `reap joined ${ref} of ${nm.spec.requestorID} as an additional requestor: it drains the node; the reaper ${then}`;
  const uid = nm.metadata.uid;
  return [
    {
      kind: 'patchMaintenanceMeta',
      target: maintenanceRef(nm),
      additionalRequestors: [...(nm.spec.additionalRequestors ?? []), REAPER_REQUESTOR],
      annotations: { [ANNOTATION_REAPER_PROVIDER_ID]: providerID },
      reason: `join to reap node ${nm.spec.nodeName} (spec.reaper.joinExistingRequests)`,
    },
    { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: nm.metadata.namespace ?? '', name: nm.metadata.name, ...(uid ? { uid } : {}) }, type: 'Normal', eventReason: EVENT_REASON_REAP_JOINED, message, reason: 'reap joined' },
    nodeEvent(node, 'Normal', EVENT_REASON_REAP_JOINED, message, 'reap joined'),
  ];
}

/** One line per termination for dry runs and the pass summary. */
export function describeTermination(t: Termination): string {
  if (t.joined) {
    const leave = `leave ${t.maintenance.namespace}/${t.maintenance.name} (additionalRequestors)`;
    if (!t.joined.terminate) return `${leave}: node ${t.node} was reaped already`;
    return t.provider === 'none' ? `${leave}: drained node ${t.node}, nothing terminated (provider none)` : `terminate ${t.providerID || '(no providerID)'} of node ${t.node}, then ${leave}`;
  }
  return t.provider === 'none'
    ? `delete ${t.maintenance.namespace}/${t.maintenance.name}: drained node ${t.node}, nothing terminated (provider none)`
    : `terminate ${t.providerID || '(no providerID)'} of node ${t.node}, then delete ${t.maintenance.namespace}/${t.maintenance.name}`;
}
