// The medik8s node lease, read purely: who holds `medik8s-leases/node-<name>` and what kmaint must do about it
// before cordoning (take it, renew it, or wait for another live holder), and who cordoned a node.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { ANNOTATION_CORDONED_BY, ANNOTATION_MEDIK8S_LEASE, DEFAULTS, FINALIZER, maintenancePhase, MEDIK8S_HOLDER_PREFIX, MEDIK8S_LEASE_NAMESPACE, MEDIK8S_LEASE_PREFIX, microTime, Phase } from '../api/index.ts';
import type { NodeLeaseWrite, NodeMaintenance } from '../api/index.ts';

/** How long kmaint's hold lasts (the node-maintenance-operator also takes an hour); renewed when less than half is left. */
export const MEDIK8S_LEASE_SECONDS = 3600;

/** What a pass read of the medik8s lease namespace. */
export type Medik8sLeases =
  /** The namespace does not exist: no medik8s tool coordinates through leases here. */
  | { kind: 'absent' }
  /** By lease name. */
  | { kind: 'present'; leases: ReadonlyMap<string, V1Lease> }
  /** The namespace exists but its leases could not be read (RBAC, API error): fail closed, never cordon. */
  | { kind: 'unreadable'; message: string };

export type LeaseView =
  | { state: 'free'; lease: V1Lease | undefined }
  | { state: 'ours'; lease: V1Lease; renewDue: boolean }
  | { state: 'held'; holder: string; until: Date };

/** kmaint's holderIdentity for `nm`, also the value of kmaint.io/cordoned-by: `kmaint/<namespace>/<name>`. */
export function holderFor(nm: NodeMaintenance): string {
  return `${MEDIK8S_HOLDER_PREFIX}${nm.metadata.namespace ?? ''}/${nm.metadata.name}`;
}

export function nodeLeaseName(node: string): string {
  return `${MEDIK8S_LEASE_PREFIX}${node}`;
}

function timeOf(value: Date | string | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** When the lease's hold ends; undefined when it names no holder or lacks renewTime or duration (an invalid lease, as medik8s reads it). */
export function leaseExpiry(lease: V1Lease): Date | undefined {
  const renew = timeOf(lease.spec?.renewTime as Date | string | undefined);
  const seconds = lease.spec?.leaseDurationSeconds;
  if (!lease.spec?.holderIdentity || renew === undefined || seconds === undefined) return undefined;
  return new Date(renew + seconds * 1000);
}

/** Pure: the state of `lease` for `holder` at `now`. */
export function viewLease(lease: V1Lease | undefined, holder: string, now: Date): LeaseView {
  if (!lease) return { state: 'free', lease };
  const until = leaseExpiry(lease);
  const live = until !== undefined && until.getTime() > now.getTime();
  if (lease.spec?.holderIdentity === holder && until !== undefined) {
    const left = until.getTime() - now.getTime();
    return { state: 'ours', lease, renewDue: left < ((lease.spec.leaseDurationSeconds ?? 0) * 1000) / 2 };
  }
  if (live && until) return { state: 'held', holder: lease.spec?.holderIdentity ?? '', until };
  return { state: 'free', lease };
}

/** The write that takes (create, or take over a free one) or renews the lease for `holder`. */
export function leaseWrite(node: V1Node, view: LeaseView, holder: string, now: Date): NodeLeaseWrite {
  const name = node.metadata?.name ?? '';
  const lease = view.state === 'held' ? undefined : view.lease;
  const renewing = view.state === 'ours';
  const transitions = lease?.spec?.leaseTransitions ?? 0;
  const acquired = renewing ? lease?.spec?.acquireTime : undefined;
  return {
    namespace: MEDIK8S_LEASE_NAMESPACE,
    name: nodeLeaseName(name),
    ...(lease?.metadata?.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
    holder,
    durationSeconds: MEDIK8S_LEASE_SECONDS,
    acquireTime: acquired !== undefined ? microTime(new Date(timeOf(acquired as Date | string) ?? now.getTime())) : microTime(now),
    renewTime: microTime(now),
    // A new lease starts at 0; a change of holder counts one more transition, as coordination leases do.
    transitions: lease ? (renewing ? transitions : transitions + 1) : 0,
    owner: { name, uid: node.metadata?.uid ?? '' },
  };
}

/** Who cordoned `node`, as its kmaint.io/cordoned-by record says; undefined when there is no record. */
export function cordonedBy(node: V1Node): string | undefined {
  return node.metadata?.annotations?.[ANNOTATION_CORDONED_BY];
}

/**
 * Pure: whether a pass must read the medik8s leases. The drainer: a request about to cordon, or one holding a lease it
 * may renew. Cleanup (`deleted`): a deleted request of ours that recorded a lease to give back.
 */
export function needsMedik8sLeases(maintenances: readonly NodeMaintenance[], fn: 'drainer' | 'cleanup'): boolean {
  return maintenances.some((nm) => {
    const recorded = nm.metadata.annotations?.[ANNOTATION_MEDIK8S_LEASE] !== undefined;
    if (fn === 'cleanup') return !!nm.metadata.deletionTimestamp && recorded && (nm.metadata.finalizers ?? []).includes(FINALIZER);
    if (nm.metadata.deletionTimestamp) return false;
    const phase = maintenancePhase(nm);
    if (phase === Phase.Scheduled || phase === Phase.Cordon) return nm.spec.cordon ?? DEFAULTS.cordon;
    return recorded;
  });
}
