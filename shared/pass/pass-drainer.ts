// The drainer's row of PASSES: the Nodes it reads, the pods, medik8s leases and Slurm it needs, and planDrainer.
import { planDrainer } from '../lifecycle/index.ts';
import { PHASES_NEEDING_PODS } from '../api/index.ts';
import { indexClaims } from '../drain/index.ts';
import type { SlurmRead } from '../slurm/index.ts';
import { readMedik8sFor, readSlurmFor, withNodeConditions } from './pass-common.ts';
import { slurmEffect } from './pass-effects.ts';
import type { PassDefinition } from './pass-definition.ts';
import { drainerNodesNeeded } from './choose-node-read.ts';
import { ownPodsOf, readDrainPods, readMedik8sLeases } from './snapshot.ts';

export interface DrainerReads {
  drainPods: Awaited<ReturnType<typeof readDrainPods>>;
  ownPods: ReturnType<typeof ownPodsOf>;
  medik8s: Awaited<ReturnType<typeof readMedik8sLeases>>;
  slurm: SlurmRead;
}

export const DRAINER_PASS: PassDefinition<DrainerReads> = {
  nodesNeeded: (head, config) => drainerNodesNeeded(head.maintenances, config.limits.admission?.gangNodeLabel, config.namespace),
  read: async (opts, base, config) => {
    const drainPods = await readDrainPods(opts.client, base);
    const medik8s = await readMedik8sFor(opts, base.maintenances, 'drainer');
    const needsSlurm = base.maintenances.some((nm) => !nm.metadata.deletionTimestamp && PHASES_NEEDING_PODS.has(nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? ''));
    return { drainPods, ownPods: ownPodsOf(opts.namespace, opts.env ?? process.env, config.upstreamOperatorNamespace), medik8s, slurm: await readSlurmFor(opts, config, needsSlurm) };
  },
  plan: ({ base, config, reads, namespace, now }) => {
    const { podsByNode, pdbs, budgetPods, claims, claimsProblem } = reads.drainPods;
    const slurm = reads.slurm.context;
    const dra = { claims: indexClaims(claims), resourceNames: config.draResourceNames.names, ...(claimsProblem !== undefined ? { unreadable: claimsProblem } : {}) };
    const outOfService = config.limits.outOfServiceTaint;
    // Gangs by node label are held in Scheduled like gangs by request label until every member is admitted (gang-hold.ts).
    const gangNodeLabel = config.limits.admission?.gangNodeLabel;
    const plan = planDrainer({ nodes: base.nodes, maintenances: base.maintenances, podsByNode, pdbs, budgetPods, medik8s: reads.medik8s, dra, ownPods: reads.ownPods, outOfService, namespace, ...(gangNodeLabel !== undefined ? { gangNodeLabel } : {}), ...(slurm ? { slurm } : {}), reboot: config.reboot }, now);
    return {
      actions: withNodeConditions(plan.actions, base, config, now),
      state: plan.inFlight > 0 || plan.slurm.length > 0 ? 'in-flight' : 'idle',
      report: { becameReady: plan.becameReady },
      effects: slurmEffect(plan.slurm, reads.slurm),
    };
  },
  reportsConfig: false,
  writesLeaveWork: true,
};
