// Which pods on one node a drain removes, and how: kubectl drain's decisions (as the upstream operator configures
// it: eviction, all DaemonSets ignored, force/deleteEmptyDir/selector/filters from the spec) as a pure function.
import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_UPSTREAM_OPERATOR_NAMESPACE, LABEL_REBOOT_POD, UPSTREAM_OWN_POD_SELECTOR, type RequestDrainSpec } from '#api';
import { and, matchesLabels, parseLabelSelector, type LabelSelector, type LabelSelectorResult } from '#selectors';
import { devicesHeldBy, type DraView, type HeldDevice } from './claims.ts';
import { compileFreeDevices, podsToFree, type FreedPod } from './device-users.ts';
import { compileEvictionFilters, passesEvictionFilters, type CompiledEvictionFilters } from './eviction-filters.ts';
import { comparePodKeys, controllerOf, hasEmptyDir, isFinished, isMirrorPod, isTerminating, podKey } from './pod-facts.ts';

export interface DrainSelection {
  /** Remove through the eviction API (PodDisruptionBudgets apply). */
  evict: V1Pod[];
  /** Finished pods: a plain delete, no budget to respect. */
  deleteFinished: V1Pod[];
  /** Pods the drain must remove but may not; each blocks completion until the spec or the pod changes. */
  refused: Array<{ pod: V1Pod; message: string }>;
  /** Already being deleted: nothing to do but wait for them to go. */
  terminating: V1Pod[];
  /** Pods the drain leaves alone. */
  skipped: number;
  /** What is wrong with the drainSpec itself, one line each. */
  problems: string[];
  /**
   * Set (and first in problems) when drainSpec.podSelector cannot be read: then no pod is judged, every pod counts as
   * skipped, and nothing is removed until the selector is fixed.
   */
  podSelectorProblem?: string;
  /** Every pod on the node, any phase, DaemonSet pods included. */
  totalPods: number;
  /**
   * Set when drainSpec.podEvictionFilters is set and matches no pod on the node while some of its pods hold DRA devices:
   * those pods (sorted), which the drain leaves running. A GPU drain that evicts nothing must say so, not look done.
   */
  draUnmatched?: Array<{ pod: V1Pod; devices: HeldDevice[] }>;
  /**
   * Set with drainSpec.freeDevices: the pods it adds to the drain (sorted), each with why it uses the node's devices.
   * They are judged by the rules after the DaemonSet one (terminating, finished, force, deleteEmptyDir, eviction).
   */
  freed?: FreedPod[];
}

/**
 * Where kmaint's own pods run and as whom: its namespace and its ServiceAccounts. Only someone who may create pods in
 * kmaint's namespace can make a pod match, unlike a label (app.kubernetes.io/name=kmaint), which any tenant can set on
 * its own pods to escape every drain.
 */
export interface OwnPods {
  readonly namespace: string;
  /** spec.serviceAccountName of kmaint's pods; a pod without one runs as "default". */
  readonly serviceAccounts: readonly string[];
  /**
   * The namespace the upstream operator runs in (spec.upstreamOperatorNamespace): only there does its own-pod label
   * (UPSTREAM_OWN_POD_SELECTOR) keep a pod from being drained.
   * @default DEFAULT_UPSTREAM_OPERATOR_NAMESPACE
   */
  readonly upstreamOperatorNamespace?: string;
}

export interface DrainSelectionOptions {
  /**
   * kmaint's own pods, never drained (a drain must not evict the process running it).
   * @default none: kmaint runs outside the cluster (Lambda, by hand), so no pod is its own
   */
  ownPods?: OwnPods;
  /**
   * The pass's ResourceClaims and the driver-to-resource-name table: with it, a filter also matches a pod by the DRA
   * devices it holds (claims.ts).
   * @default no DRA view: filters see requested resource names only
   */
  dra?: DraView;
}

/**
 * Whether `pod` is one of kmaint's own: in its namespace, run as one of its ServiceAccounts, or a reboot Job's pod
 * there (kmaint.io/reboot=true: a pass that walks through Draining again, its request's status behind, must not evict
 * or delete the reboot it started; the label counts in kmaint's namespace only, where no tenant creates pods).
 */
export function isOwnPod(pod: V1Pod, own: OwnPods | undefined): boolean {
  if (own === undefined || pod.metadata?.namespace !== own.namespace) return false;
  return own.serviceAccounts.includes(pod.spec?.serviceAccountName ?? 'default') || pod.metadata.labels?.[LABEL_REBOOT_POD] === 'true';
}

type Verdict = { kind: 'skip' } | { kind: 'delete' } | { kind: 'refuse'; message: string } | { kind: 'terminating' } | { kind: 'evict' };

interface RuleInput {
  readonly spec: RequestDrainSpec;
  readonly ownPods: OwnPods | undefined;
  /** drainSpec.podSelector. */
  readonly podSelector: LabelSelector;
  /** The upstream operator's implicit exclusion of its own pods, and the one namespace where it applies. */
  readonly upstreamOwn: { readonly namespace: string; readonly keep: LabelSelector };
  readonly filters: CompiledEvictionFilters;
  readonly dra: DraView | undefined;
  /** podKeys of the pods drainSpec.freeDevices frees: past podSelector, podEvictionFilters and the DaemonSet exemption. */
  readonly freed: ReadonlySet<string>;
}

type DrainRule = (pod: V1Pod, input: RuleInput) => Verdict | undefined;

const SKIP: Verdict = { kind: 'skip' };

/** The first rule that returns a verdict decides; the last one always does. */
const DRAIN_RULES: readonly DrainRule[] = [
  // The kubelet recreates a mirror pod from its static manifest at once; kubectl skips them in every phase.
  (pod) => (isMirrorPod(pod) ? SKIP : undefined),
  // A drain must never evict the process running it, even a finished one (our CronJob history).
  (pod, { ownPods }) => (isOwnPod(pod, ownPods) ? SKIP : undefined),
  // Upstream ANDs its own-pod exclusion into every selector; a label any tenant can set, so only in its namespace (issue 40).
  (pod, { upstreamOwn }) => (pod.metadata?.namespace === upstreamOwn.namespace && !matchesLabels(upstreamOwn.keep, pod.metadata?.labels) ? SKIP : undefined),
  // freeDevices (issue 45): a device user the maintenance does not keep joins the drain whatever the three rules below say.
  // kubectl applies the selector to its pod LIST, before every other rule (an unreadable one never gets here).
  (pod, { podSelector, freed }) => (freed.has(podKey(pod)) || matchesLabels(podSelector, pod.metadata?.labels) ? undefined : SKIP),
  // Only pods using the filtered resources are in scope; checked before the refusals so that a pod the drain
  // would never touch cannot block it (upstream checks it after them).
  (pod, { filters, dra, freed }) => (freed.has(podKey(pod)) || passesEvictionFilters(pod, filters, dra) ? undefined : SKIP),
  // kubectl --ignore-daemonsets: the DaemonSet controller would put a running pod straight back; finished ones go.
  // A freed one goes: kmaint.io/devices-draining (NoSchedule) keeps the controller from putting it back (lifecycle/devices-taint.ts).
  (pod, { freed }) => (controllerOf(pod)?.kind === 'DaemonSet' && !isFinished(pod) && !freed.has(podKey(pod)) ? SKIP : undefined),
  // Someone already deletes it; asking again every pass would write on an unchanged cluster.
  (pod) => (isTerminating(pod) ? { kind: 'terminating' } : undefined),
  // A finished pod holds no workload: delete it whatever its owner or volumes, no budget involved.
  (pod) => (isFinished(pod) ? { kind: 'delete' } : undefined),
  // Nothing would recreate it elsewhere; only force may lose it.
  (pod, { spec }) =>
    controllerOf(pod) === undefined && spec.force !== true ? { kind: 'refuse', message: `cannot delete pod with no controller: ${podKey(pod)} (use force)` } : undefined,
  // emptyDir data dies with the pod; only deleteEmptyDir may lose it.
  (pod, { spec }) =>
    hasEmptyDir(pod) && spec.deleteEmptyDir !== true
      ? { kind: 'refuse', message: `cannot delete pod with local storage (emptyDir): ${podKey(pod)} (use deleteEmptyDir)` }
      : undefined,
  // Everything else leaves through the eviction API, which honours PodDisruptionBudgets.
  () => ({ kind: 'evict' }),
];

const UPSTREAM_OWN: LabelSelectorResult = parseLabelSelector(UPSTREAM_OWN_POD_SELECTOR);

/** The upstream exclusion parsed once; a constant that always parses (constants.test.ts), else it selects every pod. */
function upstreamOwnKeep(): LabelSelector {
  return UPSTREAM_OWN.ok ? UPSTREAM_OWN.selector : and();
}

function decide(pod: V1Pod, input: RuleInput): Verdict {
  for (const rule of DRAIN_RULES) {
    const verdict = rule(pod, input);
    if (verdict !== undefined) return verdict;
  }
  return { kind: 'evict' };
}

/** With filters set that match no pod: the pods holding DRA devices (each one the filters left out), sorted. */
function unmatchedDraHolders(pods: readonly V1Pod[], filters: CompiledEvictionFilters, dra: DraView | undefined): Array<{ pod: V1Pod; devices: HeldDevice[] }> {
  if (!filters.active || dra === undefined || pods.some((p) => passesEvictionFilters(p, filters, dra))) return [];
  return [...pods]
    .sort(comparePodKeys)
    .map((pod) => ({ pod, devices: devicesHeldBy(pod, dra.claims) }))
    .filter((h) => h.devices.length > 0);
}

/**
 * drainSpec.freeDevices' pods, recorded on `selection` (its problems added): device users other than mirror pods,
 * kmaint's own and the upstream operator's own pods, which no drain touches.
 */
function freedPods(pods: readonly V1Pod[], spec: RequestDrainSpec, options: DrainSelectionOptions, upstreamOwn: RuleInput['upstreamOwn'], selection: DrainSelection): FreedPod[] {
  if (spec.freeDevices === undefined) return [];
  const free = compileFreeDevices(spec.freeDevices);
  selection.problems.push(...free.problems);
  const candidates = pods.filter(
    (pod) => !isMirrorPod(pod) && !isOwnPod(pod, options.ownPods) && !(pod.metadata?.namespace === upstreamOwn.namespace && !matchesLabels(upstreamOwn.keep, pod.metadata?.labels)),
  );
  const freed = podsToFree(candidates, free, options.dra, options.ownPods?.namespace);
  selection.freed = freed;
  return freed;
}

/** Sorts the pods of ONE node (the caller lists by spec.nodeName) into what the drain does with each; lists end sorted by namespace/name. */
export function selectPodsForDrain(pods: readonly V1Pod[], spec: RequestDrainSpec, options: DrainSelectionOptions = {}): DrainSelection {
  const podSelector = parseLabelSelector(spec.podSelector ?? '');
  const filters = compileEvictionFilters(spec.podEvictionFilters);
  const selection: DrainSelection = { evict: [], deleteFinished: [], refused: [], terminating: [], skipped: 0, problems: [...filters.problems], totalPods: pods.length };
  if (!podSelector.ok) {
    // Never guess with a selector we cannot read: judging pods without it would refuse (or remove) pods the drain may
    // never have selected, DaemonSet pods included; taking it as "nothing selected" would report the node drained.
    const problem = `drainSpec.podSelector: ${podSelector.error}`;
    return { ...selection, skipped: pods.length, problems: [problem, ...filters.problems], podSelectorProblem: problem };
  }
  const upstreamOwn = { namespace: options.ownPods?.upstreamOperatorNamespace ?? DEFAULT_UPSTREAM_OPERATOR_NAMESPACE, keep: upstreamOwnKeep() };
  const freed = freedPods(pods, spec, options, upstreamOwn, selection);
  const input: RuleInput = { spec, ownPods: options.ownPods, podSelector: podSelector.selector, upstreamOwn, filters, dra: options.dra, freed: new Set(freed.map((f) => podKey(f.pod))) };
  const draUnmatched = unmatchedDraHolders(pods, filters, options.dra);
  if (draUnmatched.length > 0) selection.draUnmatched = draUnmatched;
  for (const pod of [...pods].sort(comparePodKeys)) {
    const verdict = decide(pod, input);
    switch (verdict.kind) {
      case 'skip':
        selection.skipped++;
        break;
      case 'delete':
        selection.deleteFinished.push(pod);
        break;
      case 'refuse':
        selection.refused.push({ pod, message: verdict.message });
        break;
      case 'terminating':
        selection.terminating.push(pod);
        break;
      case 'evict':
        selection.evict.push(pod);
        break;
    }
  }
  return selection;
}
