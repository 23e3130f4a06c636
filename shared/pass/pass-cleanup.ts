// Cleanup's row of PASSES: when it starts, the Nodes it reads, its medik8s, Slurm and orphan reads, and its plan:
// planCleanup (shared/lifecycle's table of releases), then the sweeps (cleanup-sweeps.ts: malformed requests' releases, orphans, Slurm).
import { maintenanceKey, type NodeMaintenance } from '../api/index.ts';
import { cleanupNodesNeeded, chooseNodeRead } from './choose-node-read.ts';
import { findNodeOrphans, orphanLiveKey, planCleanup, type NodeOrphan, type ValidationReads } from '../lifecycle/index.ts';
import { readValidation } from './validation-read.ts';
import { recordedReservation, recordedSlurmNodes, type SlurmRead } from '../slurm/index.ts';
import type { KmaintConfig } from './config.ts';
import { planCleanupSweeps } from './cleanup-sweeps.ts';
import type { PassOptions } from './options.ts';
import { readMedik8sFor, readSlurmFor, withNodeConditions } from './pass-common.ts';
import { slurmEffect } from './pass-effects.ts';
import type { PassDefinition } from './pass-definition.ts';
import type { RoundRead } from './round.ts';
import { knowsNode, readAllOf, readMedik8sLeases, type BaseSnapshot } from './snapshot.ts';

export interface CleanupReads {
  medik8s: Awaited<ReturnType<typeof readMedik8sLeases>>;
  slurm: SlurmRead;
  /** Node-side state whose request is gone, confirmed by a LIST of the requests made after the nodes were read. */
  orphans: NodeOrphan[];
  /** spec.validation with the validation Jobs' outcomes (their pods listed only when it is on and a request is being deleted); undefined: off. */
  validation?: ValidationReads | undefined;
}

/** spec.slurm on with slurmrestd: every cleanup pass reads Slurm and sweeps what no live request owns (slurm/sweep.ts). */
function sweepsSlurm(config: KmaintConfig): boolean {
  const loaded = config.slurm;
  return loaded.kind === 'on' && loaded.settings.source === 'slurmrestd';
}

/**
 * Whether a cleanup pass could act on `base`: Slurm to sweep, something being deleted (its medik8s lease and Slurm drains are read only
 * then), or the plan without them collects a stale request or releases one whose node is gone.
 */
function cleanupHasWork({ base, config }: RoundRead, now: Date): boolean {
  if (findNodeOrphans(base.nodeList, liveRequestKeys(base)).length > 0) return true;
  if (sweepsSlurm(config)) return true;
  if ([...base.maintenances, ...base.malformed.map((m) => m.nm)].some((nm) => nm.metadata.deletionTimestamp !== undefined)) return true;
  const { maxNodeMaintenanceTimeSeconds } = config.limits;
  return planCleanup({ nodes: base.nodes, maintenances: cleanupRequests(base) }, { maxNodeMaintenanceTimeSeconds, releaseDelaySeconds: config.releaseDelaySeconds }, now).actions.length > 0;
}

/** The requests cleanup plans on `base`: on a named read, those whose Node it read (a Node not asked is not gone). */
function cleanupRequests(base: BaseSnapshot): NodeMaintenance[] {
  return readAllOf(base) ? base.maintenances : base.maintenances.filter((nm) => knowsNode(base, nm.spec.nodeName));
}

/**
 * Cleanup's start on a round's snapshot of named Nodes: its sweeps need a full read, so it is skipped only when this run
 * knows cleanup's last full read and it is not due yet.
 */
function cleanupFullReadDue(opts: PassOptions, { base, config }: RoundRead, now: Date): boolean {
  if (readAllOf(base)) return false;
  const record = opts.round?.fullReads.get('cleanup');
  return chooseNodeRead({ record, settings: config.nodeReads, needed: { kind: 'named', names: [] }, now }).kind === 'full';
}

/**
 * Every request the snapshot holds, malformed ones too, by namespace/name and by namespace/name/uid (the admission
 * record names the uid too): the owners node-side records may name (orphanLiveKey).
 */
function liveRequestKeys(base: BaseSnapshot, also: readonly NodeMaintenance[] = []): Set<string> {
  return new Set(
    [...base.maintenances, ...base.malformed.map((m) => m.nm), ...also].flatMap((nm) => {
      const key = maintenanceKey(nm);
      return [key, `${key}/${nm.metadata.uid ?? ''}`];
    }),
  );
}

/**
 * The orphans of the base snapshot (orphan-sweep.ts), each confirmed by a LIST of the requests made after the nodes were
 * read: the base read its nodes and requests side by side, so a request created in between must not count as gone.
 * That LIST is made only when some node has a candidate.
 */
async function readOrphans(opts: PassOptions, base: BaseSnapshot): Promise<NodeOrphan[]> {
  // Only a full read sweeps: a named read sees only Nodes whose requests are alive.
  if (!readAllOf(base)) return [];
  const candidates = findNodeOrphans(base.nodeList, liveRequestKeys(base));
  if (candidates.length === 0) return [];
  const fresh = liveRequestKeys(base, await opts.client.listMaintenances());
  return candidates.filter((o) => !fresh.has(orphanLiveKey(o)));
}

export const CLEANUP_PASS: PassDefinition<CleanupReads> = {
  // Nothing deleting, nothing collectable and no node gone in this round's snapshot: the passes before it in the
  // round only admit and drain, which never gives cleanup work (a deletion shows next round).
  // On a round's snapshot of named Nodes it also runs when its own full read is due (its sweeps need one).
  start: (opts, round) => Promise.resolve(round && !cleanupHasWork(round, opts.now()) && !cleanupFullReadDue(opts, round, opts.now()) ? 'skip' : 'leased'),
  nodesNeeded: (head) => cleanupNodesNeeded(head.maintenances, head.malformed.map((m) => m.nm)),
  read: async (opts, base, config) => {
    const medik8s = await readMedik8sFor(opts, base.maintenances, 'cleanup');
    // Requests cleanup releases: deleted ones, and those whose node is gone (their Slurm state outlives the node).
    const releasing = base.maintenances.filter((nm) => nm.metadata.deletionTimestamp !== undefined || (knowsNode(base, nm.spec.nodeName) && !base.nodes.has(nm.spec.nodeName)));
    const sweep = sweepsSlurm(config);
    const reservations = sweep || releasing.some((nm) => recordedReservation(nm) !== undefined);
    const needsSlurm = reservations || releasing.some((nm) => recordedSlurmNodes(nm).length > 0);
    return { medik8s, slurm: await readSlurmFor(opts, config, needsSlurm, reservations), orphans: await readOrphans(opts, base), validation: await readValidation(opts.client, config, releasing.some((nm) => nm.metadata.deletionTimestamp !== undefined)) };
  },
  plan: ({ base, config, reads, now }) => {
    const slurm = reads.slurm.context;
    // The table of releases (lifecycle/releases.ts) for every request, then the sweeps (cleanup-sweeps.ts).
    const plan = planCleanup({ nodes: base.nodes, maintenances: cleanupRequests(base), medik8s: reads.medik8s, ...(slurm ? { slurm } : {}), ...(reads.validation ? { validation: reads.validation } : {}) }, { maxNodeMaintenanceTimeSeconds: config.limits.maxNodeMaintenanceTimeSeconds, releaseDelaySeconds: config.releaseDelaySeconds }, now);
    const sweeps = planCleanupSweeps({ nodes: base.nodes, nodeList: base.nodeList, maintenances: base.maintenances, malformed: base.malformed, orphans: reads.orphans, slurm }, now);
    const released = plan.released + sweeps.released;
    const slurmWrites = [...plan.slurm, ...sweeps.slurm];
    return {
      actions: withNodeConditions([...plan.actions, ...sweeps.actions], base, config, now),
      state: released > 0 || slurmWrites.length > 0 ? 'in-flight' : plan.held.length > 0 ? 'blocked' : 'idle',
      report: { released, collected: plan.collected },
      effects: slurmEffect(slurmWrites, reads.slurm),
      // The orphans' node conditions join their unit (api/write-order.ts orderWrites, rule 6).
      writeOrder: { sweep: sweeps.orphanWrites },
    };
  },
  reportsConfig: false,
  writesLeaveWork: false,
};
