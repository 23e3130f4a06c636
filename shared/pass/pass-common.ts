// What several rows of PASSES share: the Slurm and medik8s reads, the Slurm writes' shape, and the node conditions
// every pass that moves requests plans after its own writes.
import { isBeingDeleted, isUnscheduled } from '../api/index.ts';
import type { Action, NodeMaintenance } from '../api/index.ts';
import { needsMedik8sLeases, nodesCordoned, phasesAfter, planNodeConditions } from '../lifecycle/index.ts';
import { holdsAdmission } from '../scheduling/index.ts';
import { readSlurm, type SlurmRead } from '../slurm/index.ts';
import type { KmaintConfig } from './config.ts';
import type { PassOptions } from './options.ts';
import { readMedik8sLeases, type BaseSnapshot } from './snapshot.ts';

/** slurmrestd, read only when `needed` (its reservations too with `reservations`); with the secret read through the pass's client. */
export function readSlurmFor(opts: PassOptions, config: KmaintConfig, needed: boolean, reservations = false): Promise<SlurmRead> {
  return readSlurm({
    settings: config.slurm,
    needed,
    reservations,
    readSecretKey: (name, key) => opts.client.getSecretKey(opts.namespace, name, key),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

/** The medik8s node leases when some request needs them; a round notes that it has seen them. */
export async function readMedik8sFor(opts: PassOptions, maintenances: readonly NodeMaintenance[], fn: 'drainer' | 'cleanup'): Promise<Awaited<ReturnType<typeof readMedik8sLeases>>> {
  const medik8s = await readMedik8sLeases(opts.client, needsMedik8sLeases(maintenances, fn));
  if (opts.round && medik8s.kind !== 'absent') opts.round.medik8sSeen = true;
  return medik8s;
}

/**
 * A plan's actions followed by the KEP-5683 node conditions for the phases they move requests to: every pass that moves
 * requests (scheduler, drainer, cleanup) plans them, so a node shows a phase in the same pass its request reaches it;
 * but a node this pass cordons in the next pass (nodesCordoned says why). Each patch is a Node status write that wakes
 * every node watcher, so a pass whose round runs the drainer after it (`later`) leaves them to the drainer, which plans
 * every node's conditions from a fresh read: a request admitted and cordoned in one round shows one phase, not two.
 * Where the patches sit in their units (a release's removal before its uncordon) is api/write-order.ts orderWrites'.
 */
export function withNodeConditions(actions: Action[], base: BaseSnapshot, config: KmaintConfig, now: Date, later = false): Action[] {
  if (later) return actions;
  const conditions = planNodeConditions({
    nodes: base.nodeList,
    // A phase kmaint never admitted (issue 40) shows on no Node: only Pending requests, those being deleted, and admitted ones.
    maintenances: base.maintenances.filter((nm) => isUnscheduled(nm) || isBeingDeleted(nm) || holdsAdmission(nm, base.nodes.get(nm.spec.nodeName))),
    phaseAfter: phasesAfter(actions),
    enabled: config.limits.nodeConditions,
    plannedLeadSeconds: config.limits.maintenancePlannedLeadSeconds,
    later: nodesCordoned(actions),
    now,
  });
  return conditions.length === 0 ? actions : [...actions, ...conditions];
}
