// The DaemonSet controller's decisions: one pod per eligible node, pinned by node affinity for the scheduler to
// bind; extras, failed pods and pods on nodes that no longer qualify are deleted.
import type { V1Node, V1NodeAffinity, V1Pod, V1DaemonSet, V1Toleration } from '@kubernetes/client-node';
import { refOf, type ControllerAction } from './actions.ts';
import { matchesNodeSelectorAndAffinity, targetNodeName } from './node-affinity.ts';
import { podFromTemplate, templateHash } from './pod-template.ts';
import { compareStrings, controllerRef, isControlledBy, isReady, isTerminating, timeMs } from './pod-facts.ts';
import { statusDiffers } from './replicaset.ts';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, firstUntolerated } from './taints.ts';

export const LABEL_TEMPLATE_GENERATION = 'pod-template-generation';

/** util.AddOrUpdateDaemonPodTolerations: what every DaemonSet pod tolerates besides its template's own. */
export const DAEMON_POD_TOLERATIONS: readonly V1Toleration[] = [
  { key: TAINT_NOT_READY, operator: 'Exists', effect: 'NoExecute' },
  { key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: TAINT_UNSCHEDULABLE, operator: 'Exists', effect: 'NoSchedule' },
];

function tolerationsFor(ds: V1DaemonSet): V1Toleration[] {
  const own = ds.spec?.template.spec?.tolerations ?? [];
  const same = (a: V1Toleration, b: V1Toleration): boolean => a.key === b.key && a.effect === b.effect && (a.operator ?? 'Equal') === (b.operator ?? 'Equal');
  return [...own, ...DAEMON_POD_TOLERATIONS.filter((t) => !own.some((o) => same(o, t)))];
}

/** nodeShouldRunDaemonPod: selector and affinity match, NoSchedule and NoExecute taints tolerated. */
export function shouldRun(ds: V1DaemonSet, node: V1Node): { run: boolean; keep: boolean } {
  const spec = ds.spec?.template.spec;
  const tolerations = tolerationsFor(ds);
  const placed = matchesNodeSelectorAndAffinity(spec, node);
  const taints = node.spec?.taints ?? [];
  return {
    run: placed && firstUntolerated(taints, tolerations, ['NoSchedule', 'NoExecute']) === undefined,
    // A running pod stays unless the node stops matching or gains a NoExecute taint it does not tolerate.
    keep: placed && firstUntolerated(taints, tolerations, ['NoExecute']) === undefined,
  };
}

/** The template with its pod pinned to `node`: required affinity on metadata.name replaces the template's. */
function pinnedAffinity(ds: V1DaemonSet, node: string): V1NodeAffinity {
  return {
    ...ds.spec?.template.spec?.affinity?.nodeAffinity,
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
  };
}

export function planDaemonSet(ds: V1DaemonSet, nodes: readonly V1Node[], pods: readonly V1Pod[]): ControllerAction[] {
  if (ds.metadata?.deletionTimestamp) return [];
  const name = ds.metadata?.name ?? '';
  const namespace = ds.metadata?.namespace ?? '';
  const why = (what: string): string => `daemonset ${namespace}/${name}: ${what}`;
  const owned = pods.filter((p) => isControlledBy(p, ds.metadata?.uid));
  const byNode = new Map<string, V1Pod[]>();
  for (const p of owned) {
    const node = targetNodeName(p) ?? '';
    byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const hash = templateHash(ds.spec?.template);
  const generation = String(ds.metadata?.generation ?? 1);
  const actions: ControllerAction[] = [];
  let desired = 0;
  let scheduled = 0;
  let misscheduled = 0;
  let ready = 0;
  const known = new Set<string>();

  for (const node of [...nodes].sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''))) {
    const nodeName = node.metadata?.name ?? '';
    known.add(nodeName);
    const { run, keep } = shouldRun(ds, node);
    const here = byNode.get(nodeName) ?? [];
    const live = here.filter((p) => !isTerminating(p));
    // updateDaemonSetStatus counts only nodes that should run the pod; others holding one are misscheduled.
    if (run) desired++;
    if (run && live.length > 0) scheduled++;
    if (!run && live.length > 0) misscheduled++;
    if (run && live.some(isReady)) ready++;

    if (run && here.length === 0) {
      const pod = podFromTemplate(ds.spec?.template, {
        namespace,
        generateName: `${name}-`,
        owner: controllerRef('apps/v1', 'DaemonSet', ds),
        extraLabels: { 'controller-revision-hash': hash, [LABEL_TEMPLATE_GENERATION]: generation },
      });
      pod.spec = {
        ...pod.spec,
        containers: pod.spec?.containers ?? [],
        affinity: { ...pod.spec?.affinity, nodeAffinity: pinnedAffinity(ds, nodeName) },
        tolerations: tolerationsFor(ds),
      };
      actions.push({ kind: 'createPod', pod, reason: why(`node ${nodeName} has no pod`) });
      continue;
    }
    if (run || keep) {
      const failed = live.filter((p) => p.status?.phase === 'Failed');
      for (const p of failed) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why(`pod on ${nodeName} failed`) });
      // More than one: keep the oldest.
      const running = live.filter((p) => p.status?.phase !== 'Failed').sort((a, b) => timeMs(a.metadata?.creationTimestamp) - timeMs(b.metadata?.creationTimestamp) || compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''));
      for (const p of running.slice(1)) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why(`${running.length} pods on ${nodeName}`) });
      continue;
    }
    for (const p of live) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why(`node ${nodeName} no longer qualifies`) });
  }
  // Pods pinned to nodes that are gone (pod GC would remove bound ones; the sim's controller does it for all).
  for (const [node, here] of byNode) {
    if (known.has(node)) continue;
    for (const p of here.filter((x) => !isTerminating(x))) actions.push({ kind: 'deletePod', pod: refOf(p), reason: why(`node ${node || '(none)'} does not exist`) });
  }

  const status = {
    desiredNumberScheduled: desired,
    currentNumberScheduled: scheduled,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    numberAvailable: ready,
    numberUnavailable: Math.max(0, desired - ready),
    updatedNumberScheduled: scheduled,
    observedGeneration: ds.metadata?.generation ?? 0,
  };
  if (statusDiffers(ds.status, status)) actions.push({ kind: 'patchStatus', resource: 'daemonsets', target: refOf(ds), status, reason: 'pod counts changed' });
  return actions;
}
