// kmaint as the SR-IOV network operator's external drainer (interop sheet §1.2-1.6): the config daemon's request on
// the Node (`sriovnetwork.openshift.io/state`) creates or deletes kmaint's request `sriov-<node>`, and kmaint answers
// in the SriovNetworkNodeState's `current-state` (Idle -> Draining -> DrainComplete -> Idle). Pure.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  DEFAULT_SRIOV_NAMESPACE,
  DEFAULT_SRIOV_RESOURCE_PREFIX,
  maintenanceOperatorConfigSchema,
  ANNOTATION_SRIOV_HANDSHAKE_PROBLEM,
  EVENT_REASON_HANDSHAKE_REFUSED,
  HandshakeState,
  LABEL_SRIOV_HANDSHAKE,
  Phase,
  SRIOV_ANNOTATION_CURRENT_STATE,
  SRIOV_ANNOTATION_DESIRED_STATE,
  SRIOV_ANNOTATION_EXTERNAL_DRAINER,
  SRIOV_ANNOTATION_NODE_STATE,
  SRIOV_DRAIN_TIMEOUT_SECONDS,
  SRIOV_HANDSHAKE_REQUESTOR,
  sriovRequestName,
  isBeingDeleted,
  isInProgress,
  maintenanceKey,
  maintenancePhase,
  maintenanceRef,
} from '#api';
import type { Action, DrainSpec, MaintenanceRef, NodeMaintenance, SriovNetworkNodeState } from '#api';


export interface SriovHandshakeConfig {
  /** kmaint's namespace: where its requests are created. */
  readonly namespace: string;
  /** The operator's namespace: where the SriovNetworkNodeStates are. */
  readonly sriovNamespace: string;
  /** The operator's RESOURCE_PREFIX: Drain_Required evicts pods whose containers request `<prefix>/...`. */
  readonly resourcePrefix: string;
}

export interface SriovHandshakeSnapshot {
  readonly nodes: readonly V1Node[];
  readonly maintenances: readonly NodeMaintenance[];
  readonly states: readonly SriovNetworkNodeState[];
  readonly admittedThisPass?: ReadonlySet<string>;
}

// `sriov-<node>`, computed where every module that recognises kmaint's requests reads it (api/kmaint-requests.ts).
export { sriovRequestName };

/** Whether `nm` (found under the name kmaint computes for `node`, in kmaint's namespace) is the SR-IOV request kmaint made for it. */
export function isSriovRequestFor(nm: NodeMaintenance, node: string): boolean {
  return nm.metadata.labels?.[LABEL_SRIOV_HANDSHAKE] !== undefined && nm.spec.nodeName === node && nm.spec.requestorID === SRIOV_HANDSHAKE_REQUESTOR;
}

/**
 * kmaint's own SR-IOV request: in kmaint's `namespace`, under the name it computes for its Node, labelled and of its
 * requestorID — all together, as a copy made elsewhere (or under another name) is a requestor's own request.
 */
export function isOwnSriovRequest(nm: NodeMaintenance, namespace: string): boolean {
  return nm.metadata.namespace === namespace && nm.metadata.name === sriovRequestName(nm.spec.nodeName) && isSriovRequestFor(nm, nm.spec.nodeName);
}

export function isSriovRequest(nm: NodeMaintenance): boolean {
  return nm.metadata.labels?.[LABEL_SRIOV_HANDSHAKE] !== undefined;
}

/** RE2 and JavaScript agree on these escapes. */
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What each request drains, as the operator's own drainer does (sheet §1.4): both cordon, force and delete emptyDir
 * data with its 90 s timeout; Drain_Required only pods whose regular containers request a `<prefix>/` resource (the
 * SR-IOV device plugin's names), Reboot_Required every pod a drain may remove.
 */
export function sriovDrainSpec(state: string, resourcePrefix: string): DrainSpec {
  const base: DrainSpec = { force: true, deleteEmptyDir: true, timeoutSeconds: SRIOV_DRAIN_TIMEOUT_SECONDS };
  return state === HandshakeState.DrainRequired ? { ...base, podEvictionFilters: [{ byResourceNameRegex: `^${escapeRegex(resourcePrefix)}/` }] } : base;
}

interface Decision {
  report?: string;
  problem?: string;
  requestActions: Action[];
  about?: MaintenanceRef;
}

const withdrawComplete = (current: string): Record<string, string> => (current === HandshakeState.DrainComplete ? { report: HandshakeState.Draining } : {});

/** One Node's request against kmaint's request for it (`request`), or `taken` when another object has its name. */
function decide(node: string, asked: string, current: string, request: NodeMaintenance | undefined, taken: NodeMaintenance | undefined, config: SriovHandshakeConfig, admitted: ReadonlySet<string>): Decision {
  const live = request !== undefined && !isBeingDeleted(request) ? request : undefined;
  if (asked === HandshakeState.Idle) {
    if (live !== undefined) return { requestActions: [{ kind: 'deleteMaintenance', target: maintenanceRef(live), reason: `node ${node}: ${SRIOV_ANNOTATION_NODE_STATE} is Idle` }] };
    // current-state stays until cleanup has uncordoned the node and released the request.
    if (request !== undefined) return { requestActions: [] };
    return current !== HandshakeState.Idle ? { report: HandshakeState.Idle, requestActions: [] } : { requestActions: [] };
  }
  if (asked !== HandshakeState.DrainRequired && asked !== HandshakeState.RebootRequired) {
    return { problem: `${SRIOV_ANNOTATION_NODE_STATE} ${JSON.stringify(asked)} is not Idle, Drain_Required or Reboot_Required; nothing is done until it is`, requestActions: [] };
  }
  if (live !== undefined) {
    const ref = maintenanceRef(live);
    if (live.metadata.labels?.[LABEL_SRIOV_HANDSHAKE] !== asked) {
      const reason = `node ${node}: ${SRIOV_ANNOTATION_NODE_STATE} changed to ${asked}; replacing the request`;
      return { ...withdrawComplete(current), requestActions: [{ kind: 'deleteMaintenance', target: ref, reason }], about: ref };
    }
    if (maintenancePhase(live) === Phase.Ready) return { report: HandshakeState.DrainComplete, requestActions: [], about: ref };
    if (isInProgress(live) || admitted.has(maintenanceKey(live))) return { report: HandshakeState.Draining, requestActions: [], about: ref };
    return { ...withdrawComplete(current), requestActions: [], about: ref };
  }
  if (request !== undefined) return { ...withdrawComplete(current), requestActions: [] };
  if (taken !== undefined) {
    return { ...withdrawComplete(current), problem: `NodeMaintenance ${maintenanceKey(taken)} is not kmaint's SR-IOV request for node ${node}, and its name is the one kmaint uses; no request is created`, requestActions: [] };
  }
  const name = sriovRequestName(node);
  const create: Action = {
    kind: 'createMaintenance',
    target: { namespace: config.namespace, name },
    labels: { [LABEL_SRIOV_HANDSHAKE]: asked },
    annotations: { [ANNOTATION_GC_IGNORE]: 'true' },
    spec: { requestorID: SRIOV_HANDSHAKE_REQUESTOR, nodeName: node, cordon: true, drainSpec: sriovDrainSpec(asked, config.resourcePrefix) },
    reason: `node ${node}: ${SRIOV_ANNOTATION_NODE_STATE} is ${asked}`,
  };
  return { ...withdrawComplete(current), requestActions: [create], about: { namespace: config.namespace, name, resourceVersion: '' } };
}

export interface SriovHandshakePlan {
  actions: Action[];
  created: number;
  deleted: number;
  refused: number;
}

/** Nodes kmaint drains for the operator: their state says use-external-drainer "true", or kmaint has a request there. */
function engagedNodes(snapshot: SriovHandshakeSnapshot, config: SriovHandshakeConfig): Array<{ node: V1Node; name: string; state: SriovNetworkNodeState | undefined }> {
  const states = new Map(snapshot.states.filter((s) => s.metadata?.namespace === config.sriovNamespace).map((s) => [s.metadata?.name ?? '', s]));
  const requested = new Set(snapshot.maintenances.filter((nm) => isOwnSriovRequest(nm, config.namespace)).map((nm) => nm.spec.nodeName));
  const out: Array<{ node: V1Node; name: string; state: SriovNetworkNodeState | undefined }> = [];
  for (const node of snapshot.nodes) {
    const name = node.metadata?.name ?? '';
    const state = states.get(name);
    const external = state?.metadata?.annotations?.[SRIOV_ANNOTATION_EXTERNAL_DRAINER] === 'true';
    if (name !== '' && (external || requested.has(name))) out.push({ node, name, state: external ? state : undefined });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The writes of one Node's decision: the SriovNetworkNodeState's keys, the Node's, the refusal event, the requests. */
function writesOf(plan: SriovHandshakePlan, node: V1Node, name: string, state: SriovNetworkNodeState, decision: Decision): void {
  const stateKeys = state.metadata?.annotations ?? {};
  const nodeKeys = node.metadata?.annotations ?? {};
  // Missing keys are created as Idle: the daemon waits for them, and the operator's drainer no longer makes them here.
  const statePatch: Record<string, string> = {};
  if (stateKeys[SRIOV_ANNOTATION_DESIRED_STATE] === undefined) statePatch[SRIOV_ANNOTATION_DESIRED_STATE] = HandshakeState.Idle;
  const current = stateKeys[SRIOV_ANNOTATION_CURRENT_STATE];
  const report = decision.report ?? (current === undefined ? HandshakeState.Idle : undefined);
  if (report !== undefined && report !== current) statePatch[SRIOV_ANNOTATION_CURRENT_STATE] = report;
  const nodePatch: Record<string, string | null> = {};
  if (nodeKeys[SRIOV_ANNOTATION_NODE_STATE] === undefined) nodePatch[SRIOV_ANNOTATION_NODE_STATE] = HandshakeState.Idle;
  const recorded = nodeKeys[ANNOTATION_SRIOV_HANDSHAKE_PROBLEM];
  if (decision.problem !== recorded) nodePatch[ANNOTATION_SRIOV_HANDSHAKE_PROBLEM] = decision.problem ?? null;
  const about = decision.about !== undefined ? { maintenance: decision.about } : {};
  if (Object.keys(nodePatch).length > 0) {
    plan.actions.push({ kind: 'patchNodeAnnotations', node: { name, resourceVersion: node.metadata?.resourceVersion ?? '' }, annotations: nodePatch, reason: 'SR-IOV handshake: Node keys' });
  }
  if (decision.problem !== undefined && decision.problem !== recorded) {
    plan.refused++;
    const target = { kind: 'Node' as const, namespace: '', name, ...(node.metadata?.uid !== undefined ? { uid: node.metadata.uid } : {}) };
    plan.actions.push({ kind: 'emitEvent', target, type: 'Warning', eventReason: EVENT_REASON_HANDSHAKE_REFUSED, message: decision.problem, reason: 'SR-IOV handshake refused' });
  }
  for (const action of decision.requestActions) {
    if (action.kind === 'createMaintenance') plan.created++;
    if (action.kind === 'deleteMaintenance') plan.deleted++;
    plan.actions.push(action);
  }
  if (Object.keys(statePatch).length > 0) {
    const target = { namespace: state.metadata?.namespace ?? '', name, resourceVersion: state.metadata?.resourceVersion ?? '' };
    const what = Object.entries(statePatch).map(([k, v]) => `${k}=${v}`).join(', ');
    plan.actions.push({ kind: 'patchSriovNodeState', target, annotations: statePatch, ...about, reason: `SR-IOV handshake: ${what}` });
  }
}

/** Pure: one decision per engaged Node, in name order; an unchanged Node costs no write. */
export function planSriovHandshake(snapshot: SriovHandshakeSnapshot, config: SriovHandshakeConfig): SriovHandshakePlan {
  const byName = new Map(snapshot.maintenances.filter((nm) => nm.metadata.namespace === config.namespace).map((nm) => [nm.metadata.name, nm]));
  const admitted = snapshot.admittedThisPass ?? new Set<string>();
  const plan: SriovHandshakePlan = { actions: [], created: 0, deleted: 0, refused: 0 };
  for (const { node, name, state } of engagedNodes(snapshot, config)) {
    const holder = byName.get(sriovRequestName(name));
    const request = holder !== undefined && isSriovRequestFor(holder, name) ? holder : undefined;
    if (state === undefined) {
      // The state is gone or no longer external: the daemon cannot wait for an answer, so the request ends.
      if (request !== undefined && !isBeingDeleted(request)) {
        plan.deleted++;
        plan.actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(request), reason: `node ${name}: no SriovNetworkNodeState ${config.sriovNamespace}/${name} with ${SRIOV_ANNOTATION_EXTERNAL_DRAINER}=true` });
      }
      continue;
    }
    const asked = node.metadata?.annotations?.[SRIOV_ANNOTATION_NODE_STATE] ?? HandshakeState.Idle;
    const current = state.metadata?.annotations?.[SRIOV_ANNOTATION_CURRENT_STATE] ?? HandshakeState.Idle;
    const decision = decide(name, asked, current, request, request === undefined ? holder : undefined, config, admitted);
    writesOf(plan, node, name, state, decision);
  }
  return plan;
}

/** The SR-IOV protocol's settings when config object `obj` selects it (`spec.nodeHandshake.protocol`), else undefined. */
export function loadSriovHandshakeConfig(obj: unknown, namespace: string): SriovHandshakeConfig | undefined {
  const parsed = maintenanceOperatorConfigSchema.safeParse(obj);
  const handshake = parsed.success ? parsed.data.spec?.nodeHandshake : undefined;
  if (handshake?.protocol !== 'sriov-network-operator') return undefined;
  const sriov = handshake.sriovNetworkOperator ?? {};
  return { namespace, sriovNamespace: sriov.namespace ?? DEFAULT_SRIOV_NAMESPACE, resourcePrefix: sriov.resourcePrefix ?? DEFAULT_SRIOV_RESOURCE_PREFIX };
}
