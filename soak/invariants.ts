// The soak's invariant checker: compares consecutive samples of the cluster (read directly, never kmaint's own
// state) and names every violation. Pure: the runner takes the samples and keeps what the actors did.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { FINALIZER } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';

/** Label of the pods the soak binds; the value is their role. */
export const SOAK_ROLE = 'kmaint-soak/role';
/** Pods in every request's drain selection. */
export const DRAIN_SELECTOR = `${SOAK_ROLE}=drain`;
/** Pods every waitForPodCompletion request waits for (the requestor deletes them). */
export const WAIT_SELECTOR = `${SOAK_ROLE}=wait`;

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
  /** Nodes cordoned before the run. */
  initiallyCordoned: ReadonlySet<string>;
  /** Nodes deleted by the soak (their pods go with them). */
  deletedNodes: ReadonlySet<string>;
  /** Pods the requestors deleted themselves (waitForPodCompletion's pods), namespace/name. */
  deletedByRequestors: ReadonlySet<string>;
}

const key = (o: { metadata?: { namespace?: string; name?: string } }): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const phaseOf = (nm: NodeMaintenance): string => nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '';

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

  // 1. Admissions: nothing new enters progress while as many are in progress as the largest limit allowed.
  const before = new Set(prev.nms.filter(inProgress).map(key));
  const during = now.nms.filter(inProgress);
  const entrants = during.filter((nm) => !before.has(key(nm)));
  checks++;
  if (entrants.length > 0 && new Set(during.map((nm) => nm.spec.nodeName)).size > facts.maxParallelSince) {
    violations.push(`${during.length} requests in progress (${entrants.map(key).join(', ')} just admitted), maxParallelOperations ${facts.maxParallelSince}`);
  }
  // 2. maxUnavailable 0: no admission may take an available node out of service.
  if (facts.zeroUnavailableThroughout) {
    for (const nm of entrants) {
      checks++;
      const node = nodesPrev.get(nm.spec.nodeName);
      if (node && !unavailable(node)) violations.push(`${key(nm)} admitted under maxUnavailable 0 on available node ${nm.spec.nodeName}`);
    }
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
    else if (pod.metadata?.labels?.[SOAK_ROLE] !== undefined && pod.metadata.labels[SOAK_ROLE] !== 'drain') {
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
