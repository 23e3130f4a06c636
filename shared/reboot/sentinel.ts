// kured's sentinel, stateless (issue 43 point 2): node-problem-detector sets a Node condition (RebootRequired by
// default, the chart's custom plugin) and the scheduler pass files one reboot request per Node with it; the request is
// admitted like any other (limits, pools, zones, windows) and deleted by kmaint once Ready with the condition cleared,
// which lets the node go back. Only kmaint's own requests (api/kmaint-requests.ts: namespace, name, label and
// requestorID) are ever deleted; a Node with any other request gets none.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_GC_IGNORE,
  ANNOTATION_REBOOT,
  DEFAULT_REBOOT_SENTINEL_CONDITION,
  EVENT_REASON_REBOOT_DONE,
  EVENT_REASON_REBOOT_REQUESTED,
  LABEL_REBOOT_SENTINEL,
  Phase,
  REBOOT_SENTINEL_REQUESTOR,
  maintenancePhase,
  maintenanceRef,
  rebootRequestName,
  isKmaintNodeRequest,
  rebootSentinelSchema,
} from '../api/index.ts';
import type { Action, MaintenanceRef, NodeMaintenance } from '../api/index.ts';

export interface RebootSentinelSettings {
  /** The Node condition type asking for a reboot. @default DEFAULT_REBOOT_SENTINEL_CONDITION */
  conditionType: string;
}

/** spec.rebootSentinel: `off` (absent), `on` with its settings, or `invalid` (files nothing, said on the config). */
export type LoadedRebootSentinel = { kind: 'off' } | { kind: 'on'; settings: RebootSentinelSettings } | { kind: 'invalid'; problem: string };

/** Section parser (shared/pass/config.ts): reads spec.rebootSentinel from the raw config object. */
export function loadRebootSentinel(config: unknown): LoadedRebootSentinel {
  const raw = (config as { spec?: { rebootSentinel?: unknown } } | undefined | null)?.spec?.rebootSentinel;
  if (raw === undefined || raw === null) return { kind: 'off' };
  const parsed = rebootSentinelSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { kind: 'invalid', problem: `spec.rebootSentinel${first ? `${first.path.map((k) => `.${String(k)}`).join('')}: ${first.message}` : ''}; no reboot request is filed until this is fixed` };
  }
  return { kind: 'on', settings: { conditionType: parsed.data.conditionType ?? DEFAULT_REBOOT_SENTINEL_CONDITION } };
}

export interface RebootSentinelSnapshot {
  nodes: readonly V1Node[];
  maintenances: readonly NodeMaintenance[];
  /** kmaint's namespace: its requests are filed there. */
  namespace: string;
}

export interface RebootSentinelPlan {
  actions: Action[];
  filed: number;
  deleted: number;
}

/** Whether `node` has the condition `type` with status True. */
export function asksForReboot(node: V1Node, type: string): boolean {
  return node.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;
}

/** A Node event saying what a write on the request `about` did: it follows that write in the request's unit. */
function nodeEvent(node: V1Node, about: MaintenanceRef, eventReason: string, message: string, reason: string): Action {
  const uid = node.metadata?.uid;
  return { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: node.metadata?.name ?? '', ...(uid ? { uid } : {}) }, type: 'Normal', eventReason, message, maintenance: about, reason };
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One pass of the sentinel. `loaded` on: a request for every Node whose condition is True and that has no request of
 * anyone's (never a second one, a user's never replaced). Whatever `loaded` says, kmaint's own request is deleted once
 * Ready with the condition not True (off or invalid: once Ready, the node keeps nothing to wait for), and when its Node
 * is gone. A request of ours being deleted is left to its finalizer. Pure: inputs are not mutated, no clock is read.
 */
export function planRebootSentinel(snapshot: RebootSentinelSnapshot, loaded: LoadedRebootSentinel): RebootSentinelPlan {
  const plan: RebootSentinelPlan = { actions: [], filed: 0, deleted: 0 };
  const type = loaded.kind === 'on' ? loaded.settings.conditionType : undefined;
  const requested = new Set(snapshot.maintenances.map((nm) => nm.spec.nodeName));
  const own = [...snapshot.maintenances].filter((nm) => isKmaintNodeRequest(nm, snapshot.namespace) && nm.metadata.labels?.[LABEL_REBOOT_SENTINEL] === 'true' && !nm.metadata.deletionTimestamp);
  const nodes = new Map(snapshot.nodes.map((n) => [n.metadata?.name ?? '', n]));
  for (const nm of own.sort((a, b) => byName(a.metadata.name, b.metadata.name))) {
    const node = nodes.get(nm.spec.nodeName);
    if (!node) {
      plan.actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `reboot request for node ${nm.spec.nodeName}: the node is gone` });
    } else if (maintenancePhase(nm) === Phase.Ready && (type === undefined || !asksForReboot(node, type))) {
      const why = type === undefined ? 'rebooted (spec.rebootSentinel is off)' : `rebooted and its ${type} condition is no longer True`;
      plan.actions.push({ kind: 'deleteMaintenance', target: maintenanceRef(nm), reason: `reboot request for node ${nm.spec.nodeName}: ${why}` }, nodeEvent(node, maintenanceRef(nm), EVENT_REASON_REBOOT_DONE, `deleted ${snapshot.namespace}/${nm.metadata.name}: ${why}`, 'reboot done'));
    } else continue;
    plan.deleted += 1;
  }
  if (type === undefined) return plan;
  for (const [name, node] of [...nodes].sort(([a], [b]) => byName(a, b))) {
    if (requested.has(name) || !asksForReboot(node, type)) continue;
    const requestName = rebootRequestName(name);
    plan.actions.push(
      {
        kind: 'createMaintenance',
        target: { namespace: snapshot.namespace, name: requestName },
        labels: { [LABEL_REBOOT_SENTINEL]: 'true' },
        // Held Ready until the condition clears: kmaint deletes it then, so garbage collection must leave it (a second
        // request would reboot the node again).
        annotations: { [ANNOTATION_REBOOT]: 'true', [ANNOTATION_GC_IGNORE]: 'true' },
        spec: { requestorID: REBOOT_SENTINEL_REQUESTOR, nodeName: name, cordon: true, drainSpec: { force: true, deleteEmptyDir: true } },
        reason: `node ${name} has condition ${type}=True`,
      },
      nodeEvent(node, { namespace: snapshot.namespace, name: requestName, resourceVersion: '' }, EVENT_REASON_REBOOT_REQUESTED, `filed ${snapshot.namespace}/${requestName}: condition ${type} is True`, 'reboot requested'),
    );
    plan.filed += 1;
  }
  return plan;
}
