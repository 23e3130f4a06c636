// `kmaint explain`, the sections after admission: the pods still on the node and what holds each (PodDisruptionBudgets
// with their numbers, pods waited for), and the waits the Ready condition reports by itself (medik8s lease, ...).
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ANNOTATION_WAIT_KIND, DEFAULTS, PHASE_REBOOTING, Phase, WaitKind, maintenancePhase, readyCondition, waitKindOf } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { deviceId, devicesHeldBy, podKey, podsBlockingCompletion, selectPodsForDrain, unmatchedDraMessage, type DraView, type OwnPods } from '../shared/drain/index.ts';
import { BudgetLedger, DEVICES_DRAINING_EFFECT, OUT_OF_SERVICE_EFFECT, budgetNumbers, diagnoseBudget, unreadableSelectorMessage } from '../shared/lifecycle/index.ts';
import type { RefusalKind } from '../shared/scheduling/index.ts';
import { shortList } from '../shared/text/index.ts';

/**
 * What a line says about the request, printed first on its line (`kmaint explain`) and the check's kind in
 * `-o json|yaml` (cli/explain-document.ts): both read this value, never the printed words.
 */
export type ExplainMark = 'verdict' | 'ok' | 'WAIT' | 'HELD' | 'evict' | 'gone' | 'stays' | 'claim' | 'note' | 'gang' | 'rank' | 'will' | 'counts' | 'text';

/** One line of a section. */
export interface ExplainLine {
  mark: ExplainMark;
  text: string;
  /** A HELD line: the pod the drain cannot evict yet, and why (its text is `<pod> <why>`). */
  held?: { pod: string; why: string };
  /** A WAIT line of an admission gate: the gate that refuses and the kind of its refusal (shared/scheduling Refusal). */
  refusal?: { gate: string; kind: RefusalKind };
}

export interface ExplainSection {
  /** The stage the section explains (`admission`, `cleanup`, `pods`, …): what `-o json` names as the stage holding it. */
  stage: string;
  title: string;
  lines: ExplainLine[];
  /** What has to happen next, when this section knows. The first section that says so wins. */
  next?: string;
}

/** A line with its mark. */
export const mark = (m: ExplainMark, text: string): ExplainLine => ({ mark: m, text });

/** A HELD line: `<pod> <why>`, with both kept apart. */
export const heldLine = (pod: string, why: string): ExplainLine => ({ mark: 'HELD', text: `${pod} ${why}`, held: { pod, why } });

/** A section with its lines as `kmaint explain` prints them (after the section's indent). */
export function printSection(section: ExplainSection): Omit<ExplainSection, 'lines'> & { lines: string[] };
export function printSection(section: ExplainSection | undefined): (Omit<ExplainSection, 'lines'> & { lines: string[] }) | undefined;
export function printSection(section: ExplainSection | undefined): (Omit<ExplainSection, 'lines'> & { lines: string[] }) | undefined {
  return section === undefined ? undefined : { ...section, lines: section.lines.map(renderLine) };
}

/** A line as `kmaint explain` prints it (after the section's indent): the mark in a column of six, then the text. */
export function renderLine(l: ExplainLine): string {
  switch (l.mark) {
    case 'verdict':
      return `verdict: ${l.text}`;
    case 'claim':
      return `        claim ${l.text}`;
    case 'counts':
      return `      (counts ${l.text})`;
    case 'text':
      return l.text;
    default:
      return `${l.mark.padEnd(5)} ${l.text}`;
  }
}

export interface PodsInput {
  maintenance: NodeMaintenance;
  /** Pods on the request's node. */
  pods: readonly V1Pod[];
  pdbs: readonly V1PodDisruptionBudget[];
  /** By budget key: the pods of budgets that allow no eviction (to say why they hold). */
  budgetPods: ReadonlyMap<string, readonly V1Pod[]>;
  /** The ResourceClaims and driver table, as the drainer reads them. @default none: filters see requested resources only */
  dra?: DraView;
  /** kmaint's own pods, which the drainer keeps (its namespace and ServiceAccount). @default none */
  ownPods?: OwnPods;
}

/** Under a pod's line: each claim it holds devices through, with the devices and their class. */
function claimLines(pod: V1Pod, dra: DraView | undefined): ExplainLine[] {
  if (dra === undefined) return [];
  const byClaim = new Map<string, string[]>();
  for (const d of devicesHeldBy(pod, dra.claims)) byClaim.set(d.claim, [...(byClaim.get(d.claim) ?? []), `${deviceId(d)}${d.deviceClassName !== undefined ? ` (class ${d.deviceClassName})` : ''}`]);
  return [...byClaim].map(([claim, devices]) => mark('claim', `${claim}: ${devices.join(', ')}`));
}

const byKey = (a: V1Pod, b: V1Pod): number => (podKey(a) < podKey(b) ? -1 : podKey(a) > podKey(b) ? 1 : 0);

/** Pods the drainer waits for to complete (waitForPodCompletion), in that phase only. */
export function explainPodCompletion(input: PodsInput): ExplainSection | undefined {
  const nm = input.maintenance;
  const wait = nm.spec.waitForPodCompletion;
  if (maintenancePhase(nm) !== Phase.WaitForPodCompletion || !wait) return undefined;
  const result = podsBlockingCompletion(input.pods, wait.podSelector ?? '');
  if (!result.ok) return { stage: 'waiting', title: 'waiting for pods to complete', lines: [mark('WAIT', result.error)], next: `fix the request's ${result.error}` };
  const lines = result.waitingFor.map((p) => mark('WAIT', `${p} must complete (selector "${wait.podSelector ?? ''}")`));
  const timeout = wait.timeoutSeconds ?? DEFAULTS.waitTimeoutSeconds;
  return {
    stage: 'waiting',
    title: `waiting for pods to complete (timeout ${timeout > 0 ? `${timeout} s` : 'none'})`,
    lines: lines.length > 0 ? lines : [mark('ok', 'no matching pod left')],
    ...(lines.length > 0 ? { next: `${result.waitingFor.length} pod${result.waitingFor.length === 1 ? '' : 's'} must complete${timeout > 0 ? ' or the timeout pass' : ''}` } : {}),
  };
}

/** Every pod on the node and what the drain does with it; a budget that holds a pod comes with its numbers and class. */
export function explainDrain(input: PodsInput): ExplainSection | undefined {
  const nm = input.maintenance;
  const phase = maintenancePhase(nm);
  const spec = nm.spec.drainSpec;
  if (nm.metadata.deletionTimestamp || !(phase === Phase.Scheduled || phase === Phase.Cordon || phase === Phase.WaitForPodCompletion || phase === Phase.Draining)) return undefined;
  const node = nm.spec.nodeName;
  if (!spec) return { stage: 'pods', title: `pods on node ${node}`, lines: [mark('ok', 'no drainSpec: no pod is evicted')] };
  const selection = selectPodsForDrain(input.pods, spec, { ...(input.dra ? { dra: input.dra } : {}), ...(input.ownPods ? { ownPods: input.ownPods } : {}) });
  const unreadable = selection.podSelectorProblem;
  if (unreadable !== undefined) return explainUnreadableSelector(nm, input.pods.length, unreadable, selection.problems.filter((p) => p !== unreadable));
  const ledger = new BudgetLedger(input.pdbs, input.budgetPods);
  const verdicts = new Map<string, ExplainLine>();
  let held: { pod: string; pdb: V1PodDisruptionBudget | undefined } | undefined;
  let toEvict = 0;
  for (const p of [...selection.evict].sort(byKey)) {
    const d = ledger.decide(p);
    const key = podKey(p);
    if (d.kind === 'blocked') {
      verdicts.set(key, heldLine(key, (d.message ?? '').replace(`pod ${key} `, '')));
      held ??= { pod: key, pdb: input.pdbs.find((b) => `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}` === d.budget) };
    } else if (d.kind === 'refused') {
      verdicts.set(key, heldLine(key, `refused: ${d.message ?? ''}`));
    } else {
      toEvict++;
      verdicts.set(key, mark('evict', `${key}${d.budget ? ` (PodDisruptionBudget ${d.budget} allows it)` : ' (no PodDisruptionBudget)'}`));
    }
  }
  for (const p of selection.deleteFinished) verdicts.set(podKey(p), mark('evict', `${podKey(p)} (finished: deleted without a budget check)`));
  for (const r of selection.refused) verdicts.set(podKey(r.pod), heldLine(podKey(r.pod), `refused: ${r.message}`));
  for (const p of selection.terminating) verdicts.set(podKey(p), mark('gone', `${podKey(p)} terminating`));
  const lines = [...input.pods]
    .sort(byKey)
    .flatMap((p) => [verdicts.get(podKey(p)) ?? mark('stays', `${podKey(p)} (not drained: DaemonSet, mirror or kmaint pod, or not selected by the drainSpec)`), ...claimLines(p, input.dra)]);
  lines.push(...selection.problems.map((problem) => mark('WAIT', problem)));
  if (selection.draUnmatched) lines.push(mark('note', unmatchedDraMessage(selection.draUnmatched)));
  // drainSpec.freeDevices (issue 45): which device users it adds to the drain and why, and what its taint does.
  if (selection.freed !== undefined) {
    const freed = selection.freed.map((f) => `${podKey(f.pod)} (${f.why})`);
    lines.push(mark('note', `drainSpec.freeDevices frees ${freed.length} device user${freed.length === 1 ? '' : 's'}${freed.length > 0 ? `: ${shortList(freed, 3)}` : ''}; ${DEVICES_DRAINING_EFFECT}`));
  }
  const title = `pods on node ${node} (${input.pods.length})${phase === Phase.Draining ? '' : ', as the drain will find them'}`;
  if (held !== undefined && held.pdb !== undefined) {
    const pdb = held.pdb;
    const name = `${pdb.metadata?.namespace ?? ''}/${pdb.metadata?.name ?? ''}`;
    return { stage: 'pods', title, lines, next: `PodDisruptionBudget ${name} must allow a disruption (${budgetNumbers(pdb)}; ${diagnoseBudget(pdb, input.budgetPods.get(name)).message}); then the drainer evicts ${held.pod}` };
  }
  if (phase !== Phase.Draining) return { stage: 'pods', title, lines };
  if (selection.refused.length > 0) return { stage: 'pods', title, lines, next: `the pods the drain refuses must go (or the drainSpec allow them): ${selection.refused.map((r) => podKey(r.pod)).join(', ')}` };
  const left = toEvict + selection.terminating.length + selection.deleteFinished.length;
  return { stage: 'pods', title, lines, next: left > 0 ? `the drainer evicts ${toEvict} pod${toEvict === 1 ? '' : 's'} and waits for ${left === 1 ? 'it' : 'them'} to go; then the request is Ready` : 'the next drainer pass marks it Ready' };
}

/**
 * The drainer judges no pod while drainSpec.podSelector cannot be read, so neither does explain: one line with the
 * drainer's own words instead of a verdict per pod (every pod would read the same, and pods no drain touches, DaemonSet
 * pods among them, would look at stake), the other drainSpec problems after it, and the fix as what must happen next.
 */
function explainUnreadableSelector(nm: NodeMaintenance, podCount: number, problem: string, otherProblems: readonly string[]): ExplainSection {
  const node = nm.spec.nodeName;
  const draining = maintenancePhase(nm) === Phase.Draining;
  const edit = `kubectl edit nm -n ${nm.metadata.namespace ?? ''} ${nm.metadata.name ?? ''}`;
  return {
    stage: 'pods',
    title: `pods on node ${node} (${podCount}, none judged)${draining ? '' : ', as the drain will find them'}`,
    lines: [mark('WAIT', unreadableSelectorMessage(problem)), ...otherProblems.map((p) => mark('WAIT', p))],
    next: draining
      ? `fix spec.drainSpec.podSelector (${edit}); the next drainer pass then judges the pods on node ${node}`
      : `fix spec.drainSpec.podSelector (${edit}): once the request reaches Draining, nothing is evicted from node ${node} until it is fixed`,
  };
}

/**
 * Waits only the Ready condition knows (kmaint read them from another system), by the kind the drainer wrote with the
 * message (kmaint.io/wait-kind): a medik8s node lease held by another tool, Slurm nodes draining (by kmaint or by
 * Slinky), Slurm that cannot be read or drained, a dead node. One entry per kind: the title and what frees the wait.
 */
const REPORTED_WAITS: Readonly<Record<WaitKind, { stage: string; title: string; next: string }>> = {
  // Another tool (medik8s) holds the node: its holder must let go (or its lease expire) before kmaint cordons.
  [WaitKind.NodeLease]: { stage: 'node', title: 'node lease', next: 'the other holder must release the medik8s node lease or let it expire (above); then the drainer cordons the node' },
  // Slurm (spec.slurm): the node's Slurm nodes must be Drained before any pod on it is evicted.
  [WaitKind.SlurmDrain]: {
    stage: 'Slurm',
    title: 'Slurm',
    next: 'the jobs on the Slurm nodes above must end: each must read DRAINED (the DRAIN flag and none of ALLOCATED, MIXED, COMPLETING); then the drainer evicts the pods',
  },
  // Slinky's NodeSet pods on the node: Slinky drains their Slurm nodes on kmaint's cordon; kmaint waits, never lifts it.
  [WaitKind.SlinkyDrain]: {
    stage: 'Slurm',
    title: 'Slurm (Slinky)',
    next: 'Slinky (slurm-operator) must drain the Slurm nodes above: it does when it sees the node cordoned, with reason "slurm-operator: " and the node\'s nodeset.slinky.slurm.net/node-cordon-reason; is Slinky running?',
  },
  [WaitKind.SlinkyJobs]: {
    stage: 'Slurm',
    title: 'Slurm (Slinky)',
    next: "the jobs on the Slurm nodes above must end (Drained: Drain and none of Allocated, Mixed, Completing); then the drainer evicts the pods. kmaint never undrains Slinky's drain: Slinky does when the node is uncordoned",
  },
  [WaitKind.SlurmProblem]: { stage: 'Slurm', title: 'Slurm', next: 'kmaint must be able to read and drain the Slurm nodes (the problem above); nothing on the node is evicted until then' },
  // A dead node (issue 20): its evicted pods never finish terminating; say what the out-of-service taint would do.
  [WaitKind.DeadNode]: {
    stage: 'dead',
    title: 'dead node',
    next: `the node must come back, or, only if the machine is really off, spec.outOfServiceTaint.enabled: true lets kmaint add the taint (${OUT_OF_SERVICE_EFFECT})`,
  },
  [WaitKind.DeadNodeTainted]: {
    stage: 'dead',
    title: 'dead node',
    next: "kube-controller-manager's pod garbage collector deletes the terminating pods of the tainted NotReady node (it runs every 20 s); then the request is Ready",
  },
};

/**
 * The drainer's wait on another system, by its kind. A request an older kmaint held carries the message without a
 * kind: explain shows the message as it is and classifies nothing (the sections by phase still say what comes next).
 */
export function explainReportedWait(nm: NodeMaintenance): ExplainSection | undefined {
  const message = readyCondition(nm)?.message ?? '';
  const kind = waitKindOf(nm.metadata.annotations?.[ANNOTATION_WAIT_KIND]);
  if (kind === undefined) return undefined;
  const wait = REPORTED_WAITS[kind];
  return { stage: wait.stage, title: wait.title, lines: [mark('WAIT', message)], next: wait.next };
}

/** What happens next in a phase no section explains further. */
export function nextByPhase(nm: NodeMaintenance): string {
  const node = nm.spec.nodeName;
  if (nm.metadata.deletionTimestamp) return `cleanup uncordons node ${node} (only if kmaint cordoned it) and removes the finalizer`;
  switch (maintenancePhase(nm)) {
    case Phase.Scheduled:
    case Phase.Cordon:
      return `the drainer cordons node ${node}${nm.spec.waitForPodCompletion ? ', waits for the chosen pods' : ''} and drains it`;
    case PHASE_REBOOTING:
      return `node ${node} reboots (issue 43): the drainer marks the request Ready once the node reports a new boot ID and Ready, or reports a timeout after spec.reboot.timeoutSeconds (the node stays cordoned)`;
    case Phase.Ready:
      return `the requestor (${nm.spec.requestorID}) does its work and deletes the request; cleanup then uncordons node ${node} (only if kmaint cordoned it)`;
    case Phase.RequestorFailed:
      return `the requestor reported a failure: a person looks at node ${node} and deletes the request`;
    default:
      return 'the drainer moves it on';
  }
}
