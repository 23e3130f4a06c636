// `kmaint explain`, admission: every gate the scheduler applies to one request, with the counts it reads, judged as
// the next scheduler pass judges it (shared/scheduling's own plan, gates and tally), and what has to happen next.
import { shortList } from '../shared/text/index.ts';

import type { NodeMaintenance } from '../shared/api/index.ts';
import {
  GATES,
  computeBudget,
  findGangs,
  maintenanceKey,
  maintenancePhase,
  nextOnNode,
  planScheduling,
  rankCandidates,
  recordAdmission,
  resolveScopes,
  startTally,
  startableNow,
  type Gate,
  type Refusal,
  type SchedulerInputs,
  type SchedulingLimits,
  type SchedulingState,
  type Tally,
} from '../shared/scheduling/index.ts';
import { mark, type ExplainLine, type ExplainSection } from './explain-sections.ts';

function holders(state: SchedulingState, inScope: (node: string) => boolean): string[] {
  const out: string[] = [];
  for (const [node, requests] of [...state.inProgressByNode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!inScope(node)) continue;
    for (const nm of requests) out.push(`${maintenanceKey(nm)} (${node}, ${maintenancePhase(nm) || 'new'}${nm.metadata.deletionTimestamp ? ', deleting' : ''})`);
  }
  return out;
}

/** What has to happen before a gate that refuses lets the request through: by the refusal's kind and what the gate says frees it (Gate.freedBy). */
function nextFor(gate: Gate, t: Tally, node: string, refusal: Refusal, configName: string): string {
  const text = refusal.text;
  // The request's own time: its requestor fixes the value, or time passes.
  if (refusal.gate === 'not-before') return refusal.kind === 'unusable' ? `its requestor fixes the annotation: ${text}` : `${text}; it is not admitted before then`;
  // A value that cannot be used: only a fix of the config frees it.
  if (refusal.kind === 'unusable') return `fix MaintenanceOperatorConfig ${configName}: ${text}`;
  // The SR-IOV network operator's pool: one of its drains in progress on the pool's nodes must finish.
  if (refusal.kind === 'external-problem') return `${text}; fix the pool configuration`;
  if (refusal.kind === 'external-limit') {
    const pools = t.state.externalPools;
    const pool = pools?.poolOf.get(node);
    const busy = holders(t.state, (n) => pool !== undefined && pools?.poolOf.get(n) === pool);
    return busy.length > 0 ? `an ${pools?.what ?? 'external'} in progress in ${pool ?? 'its pool'} must finish (its requestor deletes it, cleanup releases the node): ${shortList(busy, 5)}` : `${text}; an ${pools?.what ?? 'external'} in that pool must finish`;
  }
  // kured's blockers (issue 43): only what they watch frees them.
  if (refusal.kind === 'blocked') return refusal.gate === 'blocking pod' ? `${text}; it is admitted once no pod matching the selector runs on node ${node}` : `${text}; admission resumes once the alerts can be read and none matching fires`;
  // Windows: only time frees them.
  if (gate.freedBy === undefined) return `${text}; nothing new starts before then`;
  const { scope, unavailable } = gate.freedBy;
  const pool = t.scopes.poolOf.get(node);
  const zone = t.scopes.zoneOf.get(node);
  const [where, inScope]: [string, (n: string) => boolean] =
    scope === 'pool' ? [`in pool ${pool ?? ''} `, (n) => t.scopes.poolOf.get(n) === pool] : scope === 'zone' ? [`in zone ${zone ?? ''} `, (n) => t.scopes.zoneOf.get(n) === zone] : ['', () => true];
  const busy = holders(t.state, inScope);
  const down = unavailable ? [...t.state.nodesUnavailable].filter((n) => inScope(n) && !t.state.nodesUnderMaintenance.has(n)).sort() : [];
  const parts = [
    ...(busy.length > 0 ? [`a request in progress ${where}must finish (its requestor deletes it, cleanup releases the node): ${shortList(busy, 5)}`] : []),
    ...(down.length > 0 ? [`a cordoned or not-ready node ${where}must come back: ${shortList(down, 5)}`] : []),
  ];
  return parts.length > 0 ? parts.join('; or ') : `a request admitted by the same pass ${where}must finish`;
}

/** A gang member (issue 21): the gang, its requests, and the rank it walks at (its best request's). */
function gangLines(state: SchedulingState, nm: NodeMaintenance, gangNodeLabel: string | undefined, now: Date): ExplainLine[] {
  const gang = findGangs(state, gangNodeLabel, new Map()).byKey.get(maintenanceKey(nm));
  if (gang === undefined) return [];
  const ranked = rankCandidates(state, state.unscheduled, now).map(maintenanceKey);
  const keys = gang.members.map(maintenanceKey);
  const best = ranked.find((k) => keys.includes(k)) ?? maintenanceKey(nm);
  return [
    mark('gang', `${gang.name}: ${keys.length} request${keys.length === 1 ? '' : 's'} start together or not at all: ${shortList(keys, 5)}`),
    mark('rank', `${ranked.indexOf(maintenanceKey(nm)) + 1} of ${ranked.length} waiting requests; the gang walks at ${best}'s rank (${ranked.indexOf(best) + 1})`),
  ];
}

/**
 * Which request the node serves next, by the scheduler's own rule (issue 40: only requests that can start now hold a
 * node): said for a waiting request that is not itself next, or is next only because one ranked before it cannot
 * start. Nothing otherwise: the gates below say why it waits.
 */
function nextOnNodeLine(state: SchedulingState, limits: SchedulingLimits, nm: NodeMaintenance, now: Date): ExplainLine[] {
  const start = startableNow(state, limits, now);
  const next = nextOnNode(start, nm.spec.nodeName);
  const key = maintenanceKey(nm);
  const first = start.firstByNode.get(nm.spec.nodeName);
  // Next only because a request ranked before it cannot start: say so, it is the rule at work.
  if (next === nm) return first === undefined || first === nm ? [] : [mark('ok', `next on this node: this request (${maintenanceKey(first)} ranks first but cannot start now, so it holds nothing)`)];
  if (next === undefined) return [mark('WAIT', 'next on this node: none (no request for it can start now)')];
  const holdsNothing = start.cannotStart.has(key) || start.nodeWaits.some((w) => w.maintenance === nm);
  return [mark('WAIT', `next on this node: ${maintenanceKey(next)} (${holdsNothing ? 'this request cannot start now, so it holds nothing' : 'it ranks first'})`)];
}

export interface AdmissionInput {
  maintenance: NodeMaintenance;
  /** What the scheduler pass decides on (shared/scheduling schedulerInputs), assembled as the pass assembles it. */
  inputs: SchedulerInputs;
  /** namespace/name of the MaintenanceOperatorConfig. */
  configName: string;
}

/** The admission section of a request the scheduler still owns ('' or Pending, not being deleted). */
export function explainAdmission(input: AdmissionInput, now: Date): ExplainSection {
  const nm = input.maintenance;
  const key = maintenanceKey(nm);
  const node = nm.spec.nodeName;
  const { state, limits } = input.inputs;
  const { admission } = limits;
  const plan = planScheduling(state, limits, now);
  const wait = plan.waiting.find((w) => w.key === key);
  const lines: ExplainLine[] = [mark('verdict', wait ? `waits: ${wait.why}` : 'the next scheduler pass admits it')];
  const stage = 'admission';
  const title = 'admission (as the next scheduler pass decides, after the admissions it would make)';

  const holder = state.inProgressByNode.get(node)?.[0];
  if (!state.nodes.has(node)) return { stage, title, lines: [...lines, mark('WAIT', `node ${node} not found`)], next: `node ${node} must exist (or the requestor deletes this request)` };
  if (holder !== undefined) return { stage, title, lines: [...lines, mark('WAIT', `node ${node} is held by ${maintenanceKey(holder)} (${maintenancePhase(holder)})`)], next: `${maintenanceKey(holder)} must finish on node ${node}` };
  lines.push(mark('ok', `node ${node} exists and no other request holds it`));
  if (wait !== undefined) lines.push(...nextOnNodeLine(state, limits, nm, now));
  lines.push(...gangLines(state, nm, admission?.gangNodeLabel, now));

  const budget = computeBudget(state, limits);
  if (budget.kind === 'invalid') {
    return { stage, title, lines: [...lines, mark('WAIT', `config invalid: ${budget.problem}`)], next: `fix MaintenanceOperatorConfig ${input.configName}: ${budget.problem}` };
  }
  const tally = startTally(state, budget, resolveScopes(state, admission, now), now);
  // The pass admits best first: counts include what it admits before this request (all of it, when this one waits).
  const mine = plan.admitted.indexOf(key);
  const before = mine === -1 ? plan.admitted : plan.admitted.slice(0, mine);
  const byKey = new Map(state.maintenances.map((m) => [maintenanceKey(m), m]));
  for (const k of before) recordAdmission(tally, byKey.get(k)?.spec.nodeName ?? '');
  if (before.length > 0) lines.push(mark('counts', `include ${before.length} request${before.length === 1 ? '' : 's'} the pass admits first: ${shortList(before, 5)}`));

  let next: string | undefined;
  for (const gate of GATES) {
    const refusal = gate.refuse(tally, node, nm);
    if (refusal !== undefined) {
      lines.push({ mark: 'WAIT', text: refusal.text, refusal: { gate: refusal.gate, kind: refusal.kind } });
      next ??= nextFor(gate, tally, node, refusal, input.configName);
      continue;
    }
    const passing = gate.admits(tally, node, nm);
    if (passing !== undefined) lines.push(mark('ok', passing));
  }
  // A gang's wait, or freed slots a gang holds, is not one gate's refusal on this request's own counts.
  if (next === undefined && wait !== undefined) lines.push(mark('WAIT', wait.why));
  return { stage, title, lines, next: next ?? (wait ? wait.why : 'the next scheduler pass admits it, then the drainer cordons the node') };
}
