// The soak's invariant checker: compares consecutive samples of the cluster (read directly, never kmaint's own
// state) and names every violation. Pure: the runner takes the samples and keeps what the actors did.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_ADMITTED, FINALIZER, namespacedName } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';

/** Label of the pods the soak binds; the value is their role. */
export const SOAK_ROLE = 'kmaint-soak/role';
/** Pods in every request's drain selection. */
export const DRAIN_SELECTOR = `${SOAK_ROLE}=drain`;
/**
 * The DRA drain of the all-features profile: its podEvictionFilters take the pod holding a gpu.nvidia.com device
 * (role dra) and must leave the one holding another driver's device (role dra-other).
 */
export const DRA_DRAIN_SELECTOR = `${SOAK_ROLE} in (dra,dra-other)`;
/** Roles a request's drain may take: the plain drain selection and the DRA drain's GPU pods. */
const DRAINABLE_ROLES: readonly string[] = ['drain', 'dra'];
/** Pods every waitForPodCompletion request waits for (the requestor deletes them). */
export const WAIT_SELECTOR = `${SOAK_ROLE}=wait`;
/** Label of the PodDisruptionBudget group of a drained pod; each group has a budget with minAvailable 1 and an anchor pod. */
export const SOAK_BUDGET = 'kmaint-soak/budget';
export const BUDGET_GROUPS = ['g1', 'g2', 'g3'] as const;

export interface ClusterSample {
  nms: NodeMaintenance[];
  nodes: V1Node[];
  pods: V1Pod[];
}

/** What the actors did between two samples, as far as the checks need it. */
export interface ActorFacts {
  /** Largest maxParallelOperations in force at any time since the previous sample. */
  maxParallelSince: number;
  /** `maxUnavailable: 0` was in force the whole time since the previous sample. */
  zeroUnavailableThroughout: boolean;
  /** Nodes cordoned by an administrator at any time since the previous sample began (the cordon may be in flight). */
  handCordonedAny: ReadonlySet<string>;
  /** Nodes cordoned by an administrator the whole time since this sample began (nobody meant to lift the cordon). */
  handCordonedAll: ReadonlySet<string>;
  /**
   * Nodes whose cordon or readiness the administrator changed since the previous sample began: unavailable in both samples,
   * they may still have been available for a moment in between, so they do not count as held through an admission.
   */
  adminTouched?: ReadonlySet<string>;
  /** Nodes cordoned before the run. */
  initiallyCordoned: ReadonlySet<string>;
  /** Nodes deleted by the soak (their pods go with them). */
  deletedNodes: ReadonlySet<string>;
  /** Pods the requestors deleted themselves (waitForPodCompletion's pods), namespace/name. */
  deletedByRequestors: ReadonlySet<string>;
  /**
   * maxUnavailable limits above 0 in force the whole time since the previous sample (cluster, each pool, each zone),
   * each at the largest value it had; a scope unlimited at any moment of the interval is left out.
   */
  unavailableLimits?: readonly UnavailableLimit[];
  /**
   * Nodes where a request the soak's requestors did not write (kmaint's own: cloud events, SR-IOV) was open around the
   * interval, or that carried the out-of-service taint: those drains take every pod they may, and the control plane
   * evicts every pod from a NoExecute-tainted node, so pods there are not held to the soak's drain selection.
   */
  broadDrainNodes?: ReadonlySet<string>;
}

/** One scope's maxUnavailable: `members` says which nodes count against it. */
export interface UnavailableLimit {
  /** `cluster`, `pool NAME`, `zone NAME`: the words of the violation. */
  scope: string;
  limit: number;
  members: (node: V1Node) => boolean;
}

/**
 * What a Pending request's Ready message may say: a wait naming the limit or the reason that holds it
 * (shared/scheduling/wait-reasons.ts), or a malformed object's report (shared/pass/malformed.ts).
 */
const WAIT_MESSAGES: readonly RegExp[] = [
  /^waiting: maxParallelOperations \d+ reached \(\d+ in progress\)$/,
  /^waiting: maxUnavailable (\d+|unlimited) reached \(\d+ under maintenance \+ \d+ cordoned or not ready\)$/,
  /^waiting: pool \S+: (maxParallelOperations|maxUnavailable) .+ reached /,
  /^waiting: zone \S+: maxUnavailablePerZone .+ reached /,
  /^waiting: (pool|zone) \S+ admits nothing: /,
  /^waiting: another request for node \S+ is in progress \(\S+\)$/,
  /^waiting: node \S+ not found$/,
  /^waiting: config invalid: /,
  /^waiting: window /,
  // The all-features profile's waits: request timing, gangs, the SR-IOV pools (external-pools.ts).
  /^waiting: not before \S+ \(kmaint\.io\/not-before\)$/,
  /^waiting: request admits nothing: /,
  /^waiting: another request for node \S+ ranks first \(\S+\)$/,
  /^waiting: gang \S+ \(\d+ requests\) (cannot start|is larger than a limit and is never partially admitted|starts all at once or not at all): \S/,
  // A gang an earlier pass admitted in part (a member's status write failed) finishes first (scheduling/wait-reasons.ts).
  /^waiting: gang \S+ \(\d+ requests\) has \d+ admitted and completes before anything else starts: \S/,
  /^waiting: freed slots are held for gang \S+, waiting since \S+$/,
  /^waiting: waiting for SR-IOV drain admission: \S/,
  /^waiting: waiting for SriovNetworkPoolConfig \S+: maxUnavailable .+, SR-IOV drains in progress: \d+$/,
  /^invalid NodeMaintenance, kmaint leaves it alone until it is fixed: /,
];

const key = (o: { metadata?: { namespace?: string; name?: string } }): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const phaseOf = (nm: NodeMaintenance): string => nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';

/** kmaint's admission record on `node` as the violation names it. */
function recordOn(node: V1Node | undefined): string {
  const record = node?.metadata?.annotations?.[ANNOTATION_ADMITTED];
  return record === undefined ? 'no record' : `record ${record}`;
}

/** Upstream's nodesUnderMaintenance: admitted and not finished, or being deleted with our finalizer. */
export function inProgress(nm: NodeMaintenance): boolean {
  const phase = phaseOf(nm);
  return (phase !== '' && phase !== 'Pending') || (nm.metadata.deletionTimestamp !== undefined && (nm.metadata.finalizers ?? []).includes(FINALIZER));
}

function unavailable(node: V1Node | undefined): boolean {
  if (!node) return false;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return node.spec?.unschedulable === true || !ready;
}

function touchable(pod: V1Pod): 'daemonset' | 'mirror' | undefined {
  if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return 'mirror';
  if ((pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')) return 'daemonset';
  return undefined;
}

export interface CheckResult {
  violations: string[];
  /** Individual checks made (one per rule per object looked at). */
  checks: number;
}

/** Every rule between `prev` and `now`. Also called with `prev === now` for the first sample. */
export function checkSample(prev: ClusterSample, now: ClusterSample, facts: ActorFacts): CheckResult {
  const violations: string[] = [];
  let checks = 0;
  const nodesNow = new Map(now.nodes.map((n) => [n.metadata?.name ?? '', n]));
  const nodesPrev = new Map(prev.nodes.map((n) => [n.metadata?.name ?? '', n]));

  // 1. Admissions: nothing new enters progress while as many are in progress as the largest limit allowed. A request
  // whose Node is gone holds nothing (upstream and kmaint count nodes under maintenance among existing Nodes); the
  // garbage collector deletes it with its Node.
  const before = new Set(prev.nms.filter((nm) => inProgress(nm) && nodesPrev.has(nm.spec.nodeName)).map(key));
  const during = now.nms.filter((nm) => inProgress(nm) && nodesNow.has(nm.spec.nodeName));
  const entrants = during.filter((nm) => !before.has(key(nm)));
  checks++;
  if (entrants.length > 0 && new Set(during.map((nm) => nm.spec.nodeName)).size > facts.maxParallelSince) {
    // Each named with its phase, its Node and kmaint's admission record there, so a failure says which count was wrong.
    const held = during.map((nm) => `${key(nm)} ${phaseOf(nm) || '(new)'}${nm.metadata.deletionTimestamp ? ' deleting' : ''} on ${nm.spec.nodeName} (${recordOn(nodesNow.get(nm.spec.nodeName))})`);
    violations.push(`${during.length} requests in progress (${entrants.map(key).join(', ')} just admitted), maxParallelOperations ${facts.maxParallelSince}: ${held.join('; ')}`);
  }
  // 2. maxUnavailable 0: no admission may take an available node out of service.
  if (facts.zeroUnavailableThroughout) {
    for (const nm of entrants) {
      checks++;
      const node = nodesPrev.get(nm.spec.nodeName);
      if (node && !unavailable(node)) violations.push(`${key(nm)} admitted under maxUnavailable 0 on available node ${nm.spec.nodeName}`);
    }
  }
  // 2b. maxUnavailable above 0 (cluster, pool, zone): the nodes unavailable in both samples (cordoned, not Ready or under
  // maintenance; not flapping within ~1 s, none the administrator changed in between) were unavailable when the entrants
  // of the interval were admitted, and each entrant on a node available before took one more: together they may not
  // exceed the limit.
  const prevBusy = new Set(prev.nms.filter(inProgress).map((nm) => nm.spec.nodeName));
  const nowBusy = new Set(during.map((nm) => nm.spec.nodeName));
  const entrantNodes = new Set(entrants.map((nm) => nm.spec.nodeName));
  for (const scope of facts.unavailableLimits ?? []) {
    checks++;
    const inScope = (name: string): boolean => {
      const n = nodesNow.get(name) ?? nodesPrev.get(name);
      return n !== undefined && scope.members(n);
    };
    const taking = [...entrantNodes].filter((name) => inScope(name) && !unavailable(nodesPrev.get(name)) && !prevBusy.has(name));
    if (taking.length === 0) continue;
    const held = [...nodesNow.keys()].filter(
      (name) => inScope(name) && !entrantNodes.has(name) && !facts.adminTouched?.has(name) && (unavailable(nodesPrev.get(name)) || prevBusy.has(name)) && (unavailable(nodesNow.get(name)) || nowBusy.has(name)),
    );
    if (held.length + taking.length > scope.limit) {
      violations.push(`${scope.scope} maxUnavailable ${scope.limit}: ${taking.sort().join(', ')} admitted while ${held.length} nodes were unavailable (${held.sort().slice(0, 8).join(', ')})`);
    }
  }
  // 2c. A request the scheduler leaves Pending says which limit or reason holds it.
  for (const nm of now.nms) {
    if (phaseOf(nm) !== 'Pending' || nm.metadata.deletionTimestamp) continue;
    checks++;
    const message = nm.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
    if (!WAIT_MESSAGES.some((re) => re.test(message))) violations.push(`${key(nm)} Pending with a message naming no limit: ${JSON.stringify(message)}`);
  }
  // 3 and 4. Cordons: ours are held by a request; an administrator's are never lifted by kmaint.
  for (const [name, node] of nodesNow) {
    checks++;
    const cordoned = node.spec?.unschedulable === true;
    if (cordoned && !facts.handCordonedAny.has(name) && !facts.initiallyCordoned.has(name)) {
      const holder = now.nms.some((nm) => nm.spec.nodeName === name && (nm.metadata.finalizers ?? []).includes(FINALIZER));
      if (!holder) violations.push(`node ${name} cordoned with no request holding the finalizer`);
    }
    if (!cordoned && (facts.handCordonedAll.has(name) || facts.initiallyCordoned.has(name)) && nodesPrev.get(name)?.spec?.unschedulable === true) {
      violations.push(`node ${name}, cordoned by an administrator, was uncordoned`);
    }
  }
  // 5. Pods: only the drain selection may go; DaemonSet and mirror pods never.
  const podsNow = new Map(now.pods.map((p) => [key(p), p]));
  for (const pod of prev.pods) {
    checks++;
    const k = key(pod);
    const later = podsNow.get(k);
    const gone = !later || later.metadata?.uid !== pod.metadata?.uid || (later.metadata?.deletionTimestamp !== undefined && pod.metadata?.deletionTimestamp === undefined);
    if (!gone || facts.deletedNodes.has(pod.spec?.nodeName ?? '') || facts.deletedByRequestors.has(k)) continue;
    const kind = touchable(pod);
    if (kind) violations.push(`${kind} pod ${k} on ${pod.spec?.nodeName ?? ''} was deleted or evicted`);
    else if (pod.metadata?.labels?.[SOAK_ROLE] !== undefined && !DRAINABLE_ROLES.includes(pod.metadata.labels[SOAK_ROLE]) && !facts.broadDrainNodes?.has(pod.spec?.nodeName ?? '')) {
      violations.push(`pod ${k} (${SOAK_ROLE}=${pod.metadata.labels[SOAK_ROLE]}) outside every drain selection was deleted or evicted`);
    }
  }
  return { violations, checks };
}

/** The end state: no request left, every node (not deleted) back to its initial schedulability. */
export function checkEnd(end: ClusterSample, initial: ReadonlyMap<string, boolean>, deletedNodes: ReadonlySet<string>): CheckResult {
  const violations: string[] = [];
  let checks = 1;
  if (end.nms.length > 0) violations.push(`${end.nms.length} requests left: ${end.nms.map((nm) => `${key(nm)} ${phaseOf(nm) || '(new)'}${nm.metadata.deletionTimestamp ? ' deleting' : ''}`).join(', ')}`);
  for (const node of end.nodes) {
    checks++;
    const name = node.metadata?.name ?? '';
    if (deletedNodes.has(name) || !initial.has(name)) continue;
    const cordoned = node.spec?.unschedulable === true;
    if (cordoned !== initial.get(name)) violations.push(`node ${name} ends ${cordoned ? 'cordoned' : 'schedulable'}, started ${cordoned ? 'schedulable' : 'cordoned'}`);
  }
  return { violations, checks };
}

/**
 * Nodes as read after the requests, except that a node not cordoned in the read before them is given as that earlier
 * read: cordoned only when both reads agree (see the samplers in run-soak.ts and test/faults.test.ts).
 */
export function bothReadsCordoned(before: ReadonlyMap<string, V1Node>, after: readonly V1Node[]): V1Node[] {
  return after.map((n) => {
    const earlier = before.get(n.metadata?.name ?? '');
    return earlier !== undefined && earlier.spec?.unschedulable !== true ? earlier : n;
  });
}

/** One pod write kmaint's identity made, from the API server's audit log. */
export interface PodWrite {
  verb: 'delete' | 'evict';
  namespace: string;
  name: string;
  code: number;
}

/**
 * No eviction bypasses a budget: the eviction API answers for every budget, so the only way around one is a plain
 * DELETE, which kmaint may send for finished pods alone. `lastPhase` is each pod's phase in the last sample that saw
 * it (namespace/name); `budgeted` the pods some budget covered. Evictions of budgeted pods are counted by answer.
 */
export function checkPodWrites(writes: readonly PodWrite[], lastPhase: ReadonlyMap<string, string>, budgeted: ReadonlySet<string>): CheckResult & { evictions: number; refusedByBudget: number } {
  const violations: string[] = [];
  let evictions = 0;
  let refusedByBudget = 0;
  for (const w of writes) {
    const k = namespacedName(w);
    if (w.verb === 'evict') {
      if (!budgeted.has(k)) continue;
      if (w.code === 201) evictions++;
      else if (w.code === 429) refusedByBudget++;
      continue;
    }
    if (w.code >= 300) continue;
    const phase = lastPhase.get(k);
    if (phase !== 'Succeeded' && phase !== 'Failed') violations.push(`pod ${k}${budgeted.has(k) ? ' (in a PodDisruptionBudget)' : ''}, ${phase ?? 'never sampled'}, deleted by kmaint without the eviction API`);
  }
  return { violations, checks: writes.length, evictions, refusedByBudget };
}
