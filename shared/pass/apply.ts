// Applies a plan: one idempotent write per action, per-object order kept, bounded concurrency across objects.
import { forEachBounded } from '../concurrency/index.ts';
import { API_VERSION, CONFIG_KIND, describeAction, FINALIZER, namespacedName, NODE_MAINTENANCE_KIND, orderWrites } from '../api/index.ts';
import type { Action, NodeMaintenance, WriteUnit } from '../api/index.ts';
import { isDeepStrictEqual } from 'node:util';
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { WriteFenceError, type KubeClient, type WriteOutcome } from '../kube/index.ts';
import { rebootJobManifest } from '../reboot/index.ts';
import { chooseProvider, type InstanceProviders } from '../reaper/index.ts';
import { errorMessage } from '../errors/index.ts';

/** A write's outcome; `failed` is a cloud call's (an instance reboot), which has no HTTP status of the Kubernetes API. */
type ApplyOutcome = WriteOutcome | { kind: 'failed'; message: string };
import { deviceTaintRuleManifest } from '../devices/index.ts';
import { validationJobManifest } from '../validation/index.ts';

export interface ApplyResult {
  /** Actions applied, by kind. */
  applied: Record<string, number>;
  conflicts: number;
  /** Node writes refused 409 that were sent again on a fresh read: the Node changed only where no plan reads, or a record. */
  refreshed: number;
  notFound: number;
  /** Evictions refused by a disruption budget, with the server's message. */
  blocked: Array<{ action: string; message: string }>;
  errors: Array<{ action: string; error: string }>;
  /** Actions not attempted because an earlier write to the same object failed. */
  skipped: number;
  /** Units ("nm/<namespace>/<name>", "node/<name>", …) whose own writes stopped at one that did not land. */
  stopped: string[];
  /** Why the client's write fence stopped the writes (the pass's lease, lease-fence.ts); the rest were not sent. */
  fenced?: string;
}

export interface ApplyOptions {
  client: KubeClient;
  /** Objects as the plan saw them, to compute full finalizer and ownerReference lists. */
  maintenances: ReadonlyMap<string, NodeMaintenance>;
  now: Date;
  component: string;
  /** Namespace of the MaintenanceOperatorConfig (events about it go there). */
  namespace: string;
  /**
   * The Nodes the plan was made on, by name. With them, a Node write refused 409 reads its Node again; when nothing a
   * plan reads of it changed (only the resourceVersion and conditions' heartbeat times: a kubelet's or a node problem
   * detector's status post), the write goes once more on the fresh resourceVersion, as it would have had the post come
   * just after it. Anything else changed: the 409 stands and the next pass decides again.
   */
  nodes?: ReadonlyMap<string, V1Node>;
  /** Instance providers by providerID prefix, for rebootInstance actions (spec.reboot.method ec2). Absent: those fail. */
  instances?: InstanceProviders;
  /** @default 16 */
  concurrency?: number;
  signal?: AbortSignal;
}

/**
 * The object a write changes, to thread the resourceVersion each write returns into the next write to that object. Not
 * the write's unit (api/write-order.ts unitKey, which request a write serves): a cordon changes its Node and serves
 * its request; a unit holds writes to several objects.
 */
function versionKey(a: Action): string {
  switch (a.kind) {
    case 'writeStatus':
    case 'patchMaintenanceMeta':
    case 'deleteMaintenance':
    case 'createMaintenance':
      return `nm/${a.target.namespace}/${a.target.name}`;
    case 'cordonNode':
    case 'uncordonNode':
    case 'patchNodeAnnotations':
    case 'patchNodeConditions':
    case 'setNodeTaints':
      return `node/${a.node.name}`;
    case 'evictPod':
    case 'deletePod':
      return `pod/${a.pod.namespace}/${a.pod.name}`;
    case 'emitEvent':
      return `event/${a.target.kind}/${a.target.namespace}/${a.target.name}`;
    case 'writeConfigStatus':
      return `config/${a.target.namespace}/${a.target.name}`;
    case 'takeNodeLease':
    case 'releaseNodeLease':
      return `lease/${a.lease.namespace}/${a.lease.name}`;
    case 'patchSriovNodeState':
      return `sriovnetworknodestate/${a.target.namespace}/${a.target.name}`;
    case 'createRebootJob':
    case 'deleteRebootJob':
    case 'createValidationJob':
    case 'deleteValidationJob':
      return `job/${a.job.namespace}/${a.job.name}`;
    case 'rebootInstance':
      return `instance/${a.instance.providerID}`;
    case 'moveInstanceEvent':
      return `instance/${a.move.providerID}`;
    case 'createDeviceTaintRule':
      return `devicetaintrule/${a.rule.name}`;
    case 'deleteDeviceTaintRule':
      return `devicetaintrule/${a.name}`;
  }
}

function metaPatch(a: Extract<Action, { kind: 'patchMaintenanceMeta' }>, current: NodeMaintenance | undefined): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (a.annotations) metadata['annotations'] = a.annotations;
  if (a.addFinalizer || a.removeFinalizer) {
    const finalizers = (current?.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
    if (a.addFinalizer) finalizers.push(FINALIZER);
    metadata['finalizers'] = finalizers;
  }
  if (a.ownerNode) {
    const others = (current?.metadata.ownerReferences ?? []).filter((o) => !(o.kind === 'Node' && o.apiVersion === 'v1'));
    metadata['ownerReferences'] = [...others, { apiVersion: 'v1', kind: 'Node', name: a.ownerNode.name, uid: a.ownerNode.uid }];
  }
  return a.additionalRequestors ? { metadata, spec: { additionalRequestors: a.additionalRequestors } } : { metadata };
}

/** The Lease a takeNodeLease writes; the medik8s convention: owned by its Node, so it goes with the Node. */
function leaseBody(l: Extract<Action, { kind: 'takeNodeLease' }>['lease'], threadedVersion: string | undefined): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: l.name,
      namespace: l.namespace,
      ...(l.resourceVersion !== undefined ? { resourceVersion: threadedVersion ?? l.resourceVersion } : {}),
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: l.owner.name, uid: l.owner.uid }],
    },
    spec: {
      holderIdentity: l.holder,
      leaseDurationSeconds: l.durationSeconds,
      // MicroTime strings go on the wire as they are; client-node types them as Date.
      acquireTime: l.acquireTime as unknown as Date,
      renewTime: l.renewTime as unknown as Date,
      leaseTransitions: l.transitions,
    },
  };
}

/**
 * A cloud call for an instance (a reboot, an event move) through the provider of its providerID's prefix. Sent once:
 * the request's record of it landed just before, in the same unit, and no plan asks for it again; a failure is
 * reported (the reboot's timeout, or the event's unchanged start read back, then says what came of it).
 */
async function instanceCall(a: Extract<Action, { kind: 'rebootInstance' | 'moveInstanceEvent' }>, opts: ApplyOptions): Promise<ApplyOutcome> {
  const providerID = a.kind === 'rebootInstance' ? a.instance.providerID : a.move.providerID;
  const choice = opts.instances ? chooseProvider(providerID, opts.instances) : { ok: false as const, problem: 'this pass was given no instance providers' };
  if (!choice.ok) return { kind: 'failed', message: choice.problem };
  const { provider } = choice;
  try {
    if (a.kind === 'rebootInstance') {
      if (!provider.reboot) return { kind: 'failed', message: `provider ${provider.prefix} does not reboot instances` };
      await provider.reboot(providerID, opts.signal);
    } else {
      if (!provider.moveEvent) return { kind: 'failed', message: `provider ${provider.prefix} does not move scheduled events` };
      await provider.moveEvent(providerID, a.move.eventId, new Date(a.move.notBefore), opts.signal);
    }
    return { kind: 'ok' };
  } catch (err) {
    return { kind: 'failed', message: errorMessage(err) };
  }
}

async function applyOne(a: Action, rv: Map<string, string>, opts: ApplyOptions): Promise<ApplyOutcome> {
  const c = opts.client;
  const key = versionKey(a);
  switch (a.kind) {
    case 'writeStatus':
      return c.writeMaintenanceStatus(a.target.namespace, a.target.name, rv.get(key) ?? a.target.resourceVersion, a.status);
    case 'patchMaintenanceMeta':
      return c.patchMaintenance(
        a.target.namespace,
        a.target.name,
        rv.get(key) ?? a.target.resourceVersion,
        metaPatch(a, opts.maintenances.get(namespacedName(a.target))),
      );
    case 'cordonNode':
      return c.setUnschedulable(a.node.name, rv.get(key) ?? a.node.resourceVersion, true, a.annotations);
    case 'uncordonNode':
      return c.setUnschedulable(a.node.name, rv.get(key) ?? a.node.resourceVersion, false, a.annotations);
    case 'evictPod':
      return c.evictPod(a.pod.namespace, a.pod.name, a.pod.uid);
    case 'deletePod':
      return c.deletePod(a.pod.namespace, a.pod.name, a.gracePeriodSeconds, a.pod.uid);
    case 'deleteMaintenance': {
      const pre: { uid?: string; resourceVersion?: string } = { resourceVersion: rv.get(key) ?? a.target.resourceVersion };
      if (a.target.uid) pre.uid = a.target.uid;
      return c.deleteMaintenance(a.target.namespace, a.target.name, pre);
    }
    case 'writeConfigStatus':
      return c.writeConfigStatus(a.target.namespace, a.target.name, rv.get(key) ?? a.target.resourceVersion, a.conditions);
    case 'createMaintenance':
      return c.createMaintenance(a.target.namespace, {
        apiVersion: API_VERSION,
        kind: NODE_MAINTENANCE_KIND,
        metadata: { name: a.target.name, namespace: a.target.namespace, labels: a.labels, annotations: a.annotations },
        spec: a.spec,
      });
    case 'patchNodeAnnotations':
      return c.patchNodeAnnotations(a.node.name, rv.get(key) ?? a.node.resourceVersion, a.annotations);
    case 'patchSriovNodeState':
      return c.patchSriovNodeState(a.target.namespace, a.target.name, rv.get(key) ?? a.target.resourceVersion, a.annotations);
    case 'setNodeTaints':
      return c.setNodeTaints(a.node.name, rv.get(key) ?? a.node.resourceVersion, a.taints, a.annotations);
    case 'patchNodeConditions':
      return c.patchNodeConditions(a.node.name, rv.get(key) ?? a.node.resourceVersion, a.set, a.remove);
    case 'takeNodeLease': {
      const body = leaseBody(a.lease, rv.get(key));
      return a.lease.resourceVersion === undefined ? c.createLease(a.lease.namespace, body) : c.replaceLease(a.lease.namespace, body);
    }
    case 'releaseNodeLease':
      return c.deleteLease(a.lease.namespace, a.lease.name, rv.get(key) ?? a.lease.resourceVersion);
    case 'createRebootJob': {
      // The name is the request's own (its uid): one already there is the Job an earlier pass created, never a second.
      const out = await c.createJob(a.job.namespace, rebootJobManifest(a.job));
      return out.kind === 'conflict' ? { kind: 'ok' } : out;
    }
    case 'deleteRebootJob':
    case 'deleteValidationJob': {
      // Already gone (deleted by an earlier pass, or with its Node): what the delete wanted.
      const out = await c.deleteJob(a.job.namespace, a.job.name);
      return out.kind === 'notFound' ? { kind: 'ok' } : out;
    }
    case 'createValidationJob':
      return c.createJob(a.job.namespace, validationJobManifest(a.job));
    case 'rebootInstance':
    case 'moveInstanceEvent':
      return instanceCall(a, opts);
    case 'createDeviceTaintRule': {
      // The name is the request's own (its uid): one already there is the rule an earlier pass created.
      const out = await c.createDeviceTaintRule(deviceTaintRuleManifest(a.rule));
      return out.kind === 'conflict' ? { kind: 'ok' } : out;
    }
    case 'deleteDeviceTaintRule': {
      const out = await c.deleteDeviceTaintRule(a.name);
      return out.kind === 'notFound' ? { kind: 'ok' } : out;
    }
    case 'emitEvent':
      return emitEvent(a, opts);
  }
}

/** An Event on a Node (in `default`), a request or the config, recorded as this pass's component. */
function emitEvent(a: Extract<Action, { kind: 'emitEvent' }>, opts: ApplyOptions): Promise<WriteOutcome> {
  const c = opts.client;
  if (a.target.kind === 'Node') {
    // A cluster-scoped object's events live in `default`, as the kubelet's own Node events do.
    const involved = { apiVersion: 'v1', kind: 'Node', name: a.target.name, namespace: '', ...(a.target.uid ? { uid: a.target.uid } : {}) };
    return c.createEvent({ namespace: 'default', involved, type: a.type, reason: a.eventReason, message: a.message, now: opts.now, component: opts.component });
  }
  const involved = {
    apiVersion: API_VERSION,
    kind: a.target.kind === 'NodeMaintenance' ? NODE_MAINTENANCE_KIND : CONFIG_KIND,
    name: a.target.name,
    namespace: a.target.namespace,
    ...(a.target.uid ? { uid: a.target.uid } : {}),
  };
  return c.createEvent({ namespace: a.target.namespace, involved, type: a.type, reason: a.eventReason, message: a.message, now: opts.now, component: opts.component });
}

/** What plans read of a Node: all of the lean Node but its resourceVersion and its conditions' heartbeat times. */
function plannedView(node: V1Node): unknown {
  const { resourceVersion: _rv, ...metadata } = node.metadata ?? {};
  const conditions = node.status?.conditions?.map(({ lastHeartbeatTime: _beat, ...rest }) => rest);
  return { ...node, metadata, ...(node.status ? { status: { ...node.status, ...(conditions ? { conditions } : {}) } } : {}) };
}

/** Whether two reads of a Node differ only where no plan looks (the resourceVersion, heartbeat times). */
export function sameForPlans(planned: V1Node, fresh: V1Node): boolean {
  return isDeepStrictEqual(plannedView(planned), plannedView(fresh));
}

/**
 * Whether a node write refused 409 goes again on `fresh`: a record of an outside act (patchNodeAnnotations `record`)
 * on the same Node, whatever changed on it; any other write only if nothing a plan reads changed.
 */
function stillWritable(a: Action, planned: V1Node, fresh: V1Node): boolean {
  if (a.kind === 'patchNodeAnnotations' && a.record) return planned.metadata?.uid !== undefined && fresh.metadata?.uid === planned.metadata.uid;
  return sameForPlans(planned, fresh);
}

/** How many times a node write refused 409 is sent again after a re-read showed only status posts moved the Node. */
const NODE_CONFLICT_RETRIES = 3;

/**
 * A node write refused 409: read the Node by name; if only status posts moved it since the plan's read (or, for a
 * record, it is the same Node), send the write again on its fresh resourceVersion (up to NODE_CONFLICT_RETRIES
 * times: a kubelet and the node lifecycle controller may both write the Node in the meantime). Any other outcome of a
 * re-read leaves the 409 as the outcome.
 */
async function afterNodeConflict(a: Action, out: ApplyOutcome, rv: Map<string, string>, opts: ApplyOptions): Promise<{ out: ApplyOutcome; refreshed: boolean }> {
  if (a.kind !== 'cordonNode' && a.kind !== 'uncordonNode' && a.kind !== 'patchNodeAnnotations' && a.kind !== 'patchNodeConditions' && a.kind !== 'setNodeTaints') return { out, refreshed: false };
  const key = versionKey(a);
  const planned = opts.nodes?.get(a.node.name);
  // A write of this unit already landed on the Node: the plan's read is no longer what it was written over.
  if (planned === undefined || rv.has(key)) return { out, refreshed: false };
  let refreshed = false;
  for (let attempt = 0; attempt < NODE_CONFLICT_RETRIES && out.kind === 'conflict'; attempt++) {
    let fresh: V1Node | undefined;
    try {
      fresh = (await opts.client.readNodes([a.node.name])).get(a.node.name);
    } catch {
      // The re-read failed (counted in the client's errors): the 409 stands, decided again next pass.
      break;
    }
    const version = fresh?.metadata?.resourceVersion;
    if (fresh === undefined || version === undefined || !stillWritable(a, planned, fresh)) break;
    rv.set(key, version);
    out = await applyOne(a, rv, opts);
    refreshed = true;
  }
  // A retry that met a further 409 leaves no version of its own: the unit's next write is not sent over it.
  if (out.kind === 'conflict') rv.delete(key);
  return { out, refreshed };
}

/** Groups actions into units (order kept), runs units with bounded concurrency. Never throws on a write failure. */
export async function applyActions(actions: readonly Action[], opts: ApplyOptions): Promise<ApplyResult> {
  const result: ApplyResult = { applied: {}, conflicts: 0, refreshed: 0, notFound: 0, blocked: [], errors: [], skipped: 0, stopped: [] };
  // Units, their order and what stops one: shared/api/write-order.ts orderWrites.
  const { units } = orderWrites(actions);
  const rv = new Map<string, string>();
  let sent = 0;
  try {
    await forEachBounded(units, { limit: opts.concurrency ?? 16 }, async ({ key, writes: group }) => {
      for (let i = 0; i < group.length; i++) {
        opts.signal?.throwIfAborted();
        const { action: a, stopsUnit } = group[i] as WriteUnit['writes'][number];
        let out = await applyOne(a, rv, opts);
        sent++;
        if (out.kind === 'conflict' && opts.nodes !== undefined) {
          const again = await afterNodeConflict(a, out, rv, opts);
          out = again.out;
          if (again.refreshed) result.refreshed++;
        }
        if (out.kind === 'ok') {
          result.applied[a.kind] = (result.applied[a.kind] ?? 0) + 1;
          if (out.resourceVersion) rv.set(versionKey(a), out.resourceVersion);
          continue;
        }
        if (out.kind === 'blocked') {
          result.blocked.push({ action: describeAction(a), message: out.message });
          continue;
        }
        if (out.kind === 'conflict') result.conflicts++;
        else if (out.kind === 'notFound') result.notFound++;
        else result.errors.push({ action: describeAction(a), error: out.kind === 'failed' ? out.message : out.error.message });
        if (!stopsUnit) continue;
        // The object moved or failed: the rest of this unit is decided again next pass.
        result.skipped += group.length - i - 1;
        result.stopped.push(key);
        break;
      }
    });
  } catch (err) {
    if (!(err instanceof WriteFenceError)) throw err;
    // The fence refused a write: it and every write of the plan not yet sent stay unsent, by this pass for good.
    result.fenced = err.message;
    result.errors.push({ action: 'the rest of the plan', error: err.message });
    result.skipped = actions.length - sent;
  }
  return result;
}
