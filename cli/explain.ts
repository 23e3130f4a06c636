// `kmaint explain <namespace>/<name>`: the whole chain for one request as plain text — its state, each admission
// gate with its numbers, each pod still on its node and what holds it, waits reported on the object, and the next
// thing that has to happen. Reads like a pass (a few LISTs), writes nothing.
import type { ResourceV1ResourceClaim, V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ANNOTATION_ACCEPT_UPSTREAM_SCHEMA, ANNOTATION_CLOUD_EVENTS, CONFIG_NAME, isUnscheduled, maintenanceKey, maintenancePhase, readyCondition } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { indexClaims, referencesClaims } from '../shared/drain/index.ts';
import { deviceRequestLines, isDeviceRequest, type DeviceView } from '../shared/devices/index.ts';
import { fieldSelectorTerm, type KubeClient } from '../shared/kube/index.ts';
import { judgeCrd, loadConfig, malformedMessage, readBase, readBlockers, readDevices, readConfigCrd, readMedik8sLeases, ownPodsOf, readDrainPods, readSriov, readValidation, schedulingLimitsOf, sriovExternalPools, type CrdStanding, type KmaintConfig } from '../shared/pass/index.ts';
import { schedulerInputs, type Blockers, type ExternalPools } from '../shared/scheduling/index.ts';
import { UsageError } from './errors.ts';
import { explainAdmission } from './explain-admission.ts';
import { ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM, readSlurm, recordedReservation, recordedSlurmNodes, type SlurmContext } from '../shared/slurm/index.ts';
import { needsMedik8sLeases, type Medik8sLeases, type ValidationReads } from '../shared/lifecycle/index.ts';
import { explainCleanup } from './explain-cleanup.ts';
import { requestTimes, requestTimesText } from './request-times.ts';
import { explainDrain, explainPodCompletion, explainReportedWait, mark, nextByPhase, renderLine, type ExplainSection, type PodsInput } from './explain-sections.ts';
import { ageText } from './age-text.ts';

export interface ExplainSnapshot {
  maintenance: NodeMaintenance;
  nodes: V1Node[];
  maintenances: NodeMaintenance[];
  /** The config parsed once, as a pass parses it (shared/pass/config.ts). */
  config: KmaintConfig;
  /** Namespace of the MaintenanceOperatorConfig. */
  namespace: string;
  pods: V1Pod[];
  pdbs: V1PodDisruptionBudget[];
  budgetPods: Map<string, V1Pod[]>;
  /** The ResourceClaims as the drainer reads them (listed only when a pod on the node has spec.resourceClaims). */
  claims: ResourceV1ResourceClaim[];
  /** Whether kmaint's CRDs are in force (the scheduler's check); absent: not read. */
  crds?: CrdStanding;
  /** Set when the request does not have the shape the CRD promises: no pass reads it (its problems). */
  malformed?: string;
  /** The SR-IOV network operator's pool limits (spec.nodeHandshake.protocol sriov-network-operator), as the scheduler reads them. */
  externalPools?: ExternalPools;
  /** The medik8s node leases, as cleanup reads them for a request it releases; absent: not read (none). */
  medik8s?: Medik8sLeases;
  /** Slurm, as cleanup reads it for a request it releases; absent: Slurm off or not read. */
  slurm?: SlurmContext;
  /** spec.validation and its Jobs' outcomes, as cleanup reads them for a request it releases (issue 44); absent: off. */
  validation?: ValidationReads;
  /** kured's blockers (spec.rebootBlockers), as the scheduler reads them. */
  blockers?: Blockers;
  /** Device requests (issue 45): DeviceTaintRules served and the nodes' devices, as the scheduler reads them. */
  devices?: DeviceView;
}

const NAMESPACE_PATTERN = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const NAME_PATTERN = '[a-z0-9]([-.a-z0-9]*[a-z0-9])?';

/**
 * `namespace/name`, or with -n (`namespace`) also a bare `name`, as `kubectl get -n ns name`; a UsageError (exit 2)
 * otherwise, and when -n and the argument name different namespaces.
 */
export function parseRequestRef(ref: string, namespace?: string): { namespace: string; name: string } {
  const bare = namespace !== undefined ? new RegExp(`^${NAME_PATTERN}$`).exec(ref) : null;
  if (bare && namespace !== undefined) return { namespace, name: ref };
  const m = new RegExp(`^(${NAMESPACE_PATTERN})\\/(${NAME_PATTERN})$`).exec(ref);
  if (!m) throw new UsageError(`expected <namespace>/<name> of a NodeMaintenance${namespace !== undefined ? ' or <name> with -n' : ''}, got "${ref}"`);
  const parsed = { namespace: m[1] ?? '', name: m[3] ?? '' };
  if (namespace !== undefined && namespace !== parsed.namespace) throw new UsageError(`-n ${namespace} and ${ref} name different namespaces`);
  return parsed;
}

/** `kmaint explain -o json|yaml`: the request and the explanation's lines as they print in text. */
export interface ExplainDocument {
  request: string;
  lines: string[];
}

/**
 * The requests, nodes and config as a pass reads them (shared/pass readBase: malformed requests set apart), and the
 * node's pods and the budgets as the drainer reads them (readDrainPods), for a request in a phase that reads them.
 */
export async function readExplainSnapshot(client: KubeClient, namespace: string, ref: { namespace: string; name: string }): Promise<ExplainSnapshot> {
  const [base, crd] = await Promise.all([readBase(client, namespace), readConfigCrd(client)]);
  const found = (nm: NodeMaintenance): boolean => nm.metadata.namespace === ref.namespace && nm.metadata.name === ref.name;
  const config = loadConfig(base, base.nodeList.length, namespace);
  const snapshot = (maintenance: NodeMaintenance): ExplainSnapshot => ({ maintenance, nodes: base.nodeList, maintenances: base.maintenances, config, namespace, pods: [], pdbs: [], budgetPods: new Map(), claims: [], crds: judgeCrd(crd, config.acceptsUpstreamSchema) });
  const malformed = base.malformed.find((m) => found(m.nm));
  if (malformed !== undefined) return { ...snapshot(malformed.nm), malformed: malformed.problem };
  const maintenance = base.maintenances.find(found);
  if (maintenance === undefined) throw new UsageError(`NodeMaintenance ${ref.namespace}/${ref.name} not found`);
  const drain = await readDrainPods(client, { ...base, maintenances: [maintenance] });
  // Before admission, the SR-IOV pools count as the scheduler counts them (two LISTs, only with that protocol).
  const externalPools = isUnscheduled(maintenance) ? sriovExternalPools(await readSriov({ client, namespace }, config), base) : undefined;
  const cleanup = await readCleanupReads(client, namespace, config, maintenance, base.nodes.has(maintenance.spec.nodeName));
  // kured's blockers: the pods and alerts, only with spec.rebootBlockers.
  const blockers = isUnscheduled(maintenance) ? await readBlockers({ client }, base, config.rebootBlockers) : undefined;
  // A device request (issue 45): the scheduler's device read, and its node's pods and claims in any phase (who holds the devices).
  const devices = await readDevices({ client }, { maintenances: [maintenance] });
  const devicePods = isDeviceRequest(maintenance) && !drain.podsByNode.has(maintenance.spec.nodeName) ? await client.listPods({ fieldSelector: fieldSelectorTerm('spec.nodeName', maintenance.spec.nodeName) }) : undefined;
  const deviceClaims = devicePods !== undefined && devicePods.some(referencesClaims) ? await client.listResourceClaims() : undefined;
  return {
    ...cleanup,
    ...snapshot(maintenance),
    pods: devicePods ?? drain.podsByNode.get(maintenance.spec.nodeName) ?? [],
    pdbs: drain.pdbs,
    budgetPods: drain.budgetPods,
    claims: deviceClaims ?? drain.claims,
    ...(devices !== undefined ? { devices } : {}),
    ...(externalPools !== undefined ? { externalPools } : {}),
    ...(blockers !== undefined ? { blockers } : {}),
  };
}

/**
 * What cleanup reads for a request it releases (deleted, or its node gone), as the cleanup pass reads it: the medik8s
 * node leases when the request recorded one, Slurm (its reservations too) when it recorded Slurm drains or a reservation.
 */
async function readCleanupReads(client: KubeClient, namespace: string, config: KmaintConfig, nm: NodeMaintenance, nodeExists: boolean): Promise<Pick<ExplainSnapshot, 'medik8s' | 'slurm' | 'validation'>> {
  if (nm.metadata.deletionTimestamp === undefined && nodeExists) return {};
  const medik8s = await readMedik8sLeases(client, needsMedik8sLeases([nm], 'cleanup'));
  const reservations = recordedReservation(nm) !== undefined;
  const slurm = await readSlurm({ settings: config.slurm, needed: reservations || recordedSlurmNodes(nm).length > 0, reservations, readSecretKey: (name, key) => client.getSecretKey(namespace, name, key), env: process.env });
  const validation = await readValidation(client, config, nm.metadata.deletionTimestamp !== undefined);
  return { medik8s, ...(slurm.context !== undefined ? { slurm: slurm.context } : {}), ...(validation ? { validation } : {}) };
}

/** The sections in the order a request meets them; each returns undefined when it has nothing to say in this phase. */
const SECTIONS: ReadonlyArray<(s: ExplainSnapshot, now: Date) => ExplainSection | undefined> = [
  // Foreign CRDs close admission as a whole, before any gate (shared/pass/crd-schema.ts).
  (s) => {
    if (!isUnscheduled(s.maintenance) || (s.crds?.kind !== 'refused' && s.crds?.kind !== 'acknowledged')) return undefined;
    const next = `kmaint's CRDs applied again (kubectl apply -f crds/) or the config annotated ${ANNOTATION_ACCEPT_UPSTREAM_SCHEMA}=true`;
    return { stage: 'CRDs', title: 'CRDs', lines: [mark('text', s.crds.line)], ...(s.crds.refusal !== undefined ? { next } : {}) };
  },
  // Before admission only the scheduler's gates matter.
  (s, now) => {
    if (!isUnscheduled(s.maintenance)) return undefined;
    // The scheduler's own inputs (schedulerInputs); the CRDs' standing is the section above's to say.
    const inputs = schedulerInputs({ nodes: s.nodes, maintenances: s.maintenances, limits: schedulingLimitsOf(s.config, undefined), kmaintNamespace: s.namespace, ...(s.externalPools !== undefined ? { externalPools: s.externalPools } : {}), ...(s.blockers !== undefined ? { blockers: s.blockers } : {}), ...(s.devices !== undefined ? { devices: s.devices } : {}) });
    return explainAdmission({ maintenance: s.maintenance, inputs, configName: `${s.namespace}/${CONFIG_NAME}` }, now);
  },
  // What cleanup waits on and will do, from its own table of releases: a deleted request, or a Ready one due for collection.
  (s, now) => {
    const { maxNodeMaintenanceTimeSeconds } = s.config.limits;
    return explainCleanup({ maintenance: s.maintenance, nodes: s.nodes, maxNodeMaintenanceTimeSeconds, releaseDelaySeconds: s.config.releaseDelaySeconds, ...(s.medik8s ? { medik8s: s.medik8s } : {}), ...(s.slurm ? { slurm: s.slurm } : {}), ...(s.validation ? { validation: s.validation } : {}) }, now);
  },
  // Waits another system reports (medik8s lease; Slurm goes in that list) come before the pods: they stop the cordon.
  (s) => explainReportedWait(s.maintenance),
  (s) => explainPodCompletion(podsInput(s)),
  (s) => explainDrain(podsInput(s)),
];

function podsInput(s: ExplainSnapshot): PodsInput {
  const dra = { claims: indexClaims(s.claims), resourceNames: s.config.draResourceNames.names };
  // kmaint's own pods as the drainer in kmaint's namespace finds them (KMAINT_SERVICE_ACCOUNT, default kmaint).
  return { maintenance: s.maintenance, pods: s.pods, pdbs: s.pdbs, budgetPods: s.budgetPods, dra, ownPods: ownPodsOf(s.namespace, process.env, s.config.upstreamOperatorNamespace) };
}

/** The sections with something to say about the request, in the order it meets them (cli/explain-document.ts). Pure. */
export function explainSections(s: ExplainSnapshot, now: Date): ExplainSection[] {
  return SECTIONS.flatMap((section) => section(s, now) ?? []);
}

/** The explanation, one line per array entry. Pure. */
export function explainRequest(s: ExplainSnapshot, now: Date): string[] {
  const nm = s.maintenance;
  // Its spec cannot be trusted: say only what every pass says of it.
  if (s.malformed !== undefined) return [`NodeMaintenance ${maintenanceKey(nm)}: ${malformedMessage(s.malformed)}`, 'next: its requestor fixes the object (or deletes it)'];
  const created = Date.parse(nm.metadata.creationTimestamp ?? '');
  const age = Number.isNaN(created) ? '-' : ageText(Math.floor((now.getTime() - created) / 1000));
  const phase = maintenancePhase(nm) || 'new';
  const lines = [
    `NodeMaintenance ${maintenanceKey(nm)}: node ${nm.spec.nodeName}, requestor ${nm.spec.requestorID}, phase ${phase}${nm.metadata.deletionTimestamp ? ' (deleting)' : ''}, age ${age}`,
    `  Ready: ${readyCondition(nm)?.message || '(no message yet)'}`,
  ];
  const times = requestTimesText(requestTimes(nm, now), now);
  if (times !== '') lines.push(`  ${times}`);
  // A cloud-events request (the reaper's): the scheduled events it stands for, one per line (code, id, NotBefore).
  const cloudEvents = (nm.metadata.annotations?.[ANNOTATION_CLOUD_EVENTS] ?? '').split('\n').filter((l) => l.trim() !== '');
  for (const line of cloudEvents) lines.push(`  cloud event ${line.trim()}`);
  // Advance notice to Slurm: the maintenance reservation this request recorded, or why it could not make one.
  const reservation = recordedReservation(nm);
  const reservationProblem = nm.metadata.annotations?.[ANNOTATION_SLURM_RESERVATION_PROBLEM];
  if (reservation !== undefined) lines.push(`  Slurm reservation ${reservation} (${ANNOTATION_SLURM_RESERVATION})`);
  else if (reservationProblem !== undefined) lines.push(`  Slurm reservation: ${reservationProblem}`);
  // A device request (issue 45): its devices, its DeviceTaintRules and the pods holding the devices.
  for (const line of deviceRequestLines(nm, s.pods, indexClaims(s.claims))) lines.push(`  ${line}`);
  let next: string | undefined;
  for (const section of SECTIONS) {
    const found = section(s, now);
    if (found === undefined) continue;
    lines.push(`${found.title}:`, ...found.lines.map((l) => `  ${renderLine(l)}`));
    next ??= found.next;
  }
  lines.push(`next: ${next ?? nextByPhase(nm)}`);
  return lines;
}
