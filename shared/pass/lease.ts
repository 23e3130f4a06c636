// One pass at a time per function: a coordination.k8s.io Lease `kmaint-<function>` held for the pass.
import { microTime } from '../api/index.ts';
import type { V1Lease } from '@kubernetes/client-node';
import type { KubeClient } from '../kube/index.ts';

export type LeaseOutcome =
  | { kind: 'acquired'; lease: V1Lease }
  | { kind: 'held'; holder: string; until: Date }
  | { kind: 'lost'; message: string };

/** The pass lease is written outside the write fence it guards (lease-fence.ts). */
const OWN = { ownLease: true } as const;

function heldUntil(lease: V1Lease): Date | undefined {
  const holder = lease.spec?.holderIdentity;
  const renew = lease.spec?.renewTime;
  if (!holder || !renew) return undefined;
  return new Date(new Date(renew as unknown as string).getTime() + (lease.spec?.leaseDurationSeconds ?? 0) * 1000);
}

/**
 * Takes the lease unless a live holder has it. A conflict means another pass won the race. `annotations` are merged
 * into the lease's own (the drainer's and cleanup's record of their last full node read, choose-node-read.ts).
 */
export async function acquirePassLease(
  client: KubeClient,
  opts: {
    namespace: string;
    fn: string;
    holder: string;
    durationSeconds: number;
    now: Date;
    annotations?: Record<string, string>;
    /**
     * The lease as this pass read it moments ago (undefined: it was not there), so it is not read again: the create
     * or the replace preconditioned on that read's resourceVersion fails (lost) if another pass wrote it since.
     */
    seen?: { lease: V1Lease | undefined };
  },
): Promise<LeaseOutcome> {
  const name = `kmaint-${opts.fn}`;
  const spec = {
    holderIdentity: opts.holder,
    leaseDurationSeconds: opts.durationSeconds,
    acquireTime: microTime(opts.now) as unknown as Date,
    renewTime: microTime(opts.now) as unknown as Date,
  };
  const existing = opts.seen ? opts.seen.lease : await client.getLease(opts.namespace, name);
  const added = opts.annotations !== undefined && Object.keys(opts.annotations).length > 0 ? opts.annotations : undefined;
  if (!existing) {
    const metadata = { name, namespace: opts.namespace, ...(added ? { annotations: added } : {}) };
    const out = await client.createLease(opts.namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec }, OWN);
    if (out.kind === 'ok') return { kind: 'acquired', lease: { metadata: { ...metadata, ...(out.resourceVersion ? { resourceVersion: out.resourceVersion } : {}) }, spec } };
    if (out.kind === 'conflict') return { kind: 'lost', message: `lease ${opts.namespace}/${name} was just created by another pass` };
    if (out.kind === 'error') throw out.error;
    return { kind: 'lost', message: `creating lease ${opts.namespace}/${name}: ${out.kind}` };
  }
  const until = heldUntil(existing);
  if (until && until.getTime() > opts.now.getTime() && existing.spec?.holderIdentity !== opts.holder) {
    return { kind: 'held', holder: existing.spec?.holderIdentity ?? '', until };
  }
  const base = added ? withLeaseAnnotations(existing, added) : existing;
  const next: V1Lease = { ...base, spec: { ...existing.spec, ...spec, leaseTransitions: (existing.spec?.leaseTransitions ?? 0) + 1 } };
  const out = await client.replaceLease(opts.namespace, next, OWN);
  if (out.kind === 'ok') {
    return { kind: 'acquired', lease: { ...next, metadata: { ...next.metadata, ...(out.resourceVersion ? { resourceVersion: out.resourceVersion } : {}) } } };
  }
  if (out.kind === 'error') throw out.error;
  return { kind: 'lost', message: `lease ${opts.namespace}/${name} changed while taking it (${out.kind})` };
}

/** Gives the lease back so the next pass need not wait for it to expire. Failure only delays that pass. */
export async function releasePassLease(client: KubeClient, lease: V1Lease): Promise<void> {
  const namespace = lease.metadata?.namespace ?? '';
  const released: V1Lease = { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } };
  await client.replaceLease(namespace, released, OWN);
}

/**
 * Renews a lease this holder already has, without reading it first: one UPDATE preconditioned on the resourceVersion
 * we last wrote. A conflict means someone else wrote it since (it expired and was taken): the caller no longer holds it.
 */
export async function renewPassLease(client: KubeClient, lease: V1Lease, now: Date): Promise<LeaseOutcome> {
  const namespace = lease.metadata?.namespace ?? '';
  const next: V1Lease = { ...lease, spec: { ...lease.spec, renewTime: microTime(now) as unknown as Date } };
  const out = await client.replaceLease(namespace, next, OWN);
  if (out.kind === 'ok') return { kind: 'acquired', lease: { ...next, metadata: { ...next.metadata, ...(out.resourceVersion ? { resourceVersion: out.resourceVersion } : {}) } } };
  if (out.kind === 'error') throw out.error;
  return { kind: 'lost', message: `lease ${namespace}/${lease.metadata?.name ?? ''} changed since we renewed it (${out.kind})` };
}

/** `lease` with `annotations` merged into its own, to be written by its next take, renewal or release. */
export function withLeaseAnnotations(lease: V1Lease, annotations: Record<string, string>): V1Lease {
  return { ...lease, metadata: { ...lease.metadata, annotations: { ...lease.metadata?.annotations, ...annotations } } };
}
