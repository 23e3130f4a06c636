// The cleanup pass's pure plan: release deleted requests (uncordon if we cordoned, drop the finalizer),
// release requests whose node is gone, and garbage-collect stale Ready requests.
import type { V1Node } from '@kubernetes/client-node';
import { maintenanceRef, type Action } from '../api/actions.ts';
import { ANNOTATION_GC_IGNORE, ANNOTATION_INITIAL_UNSCHEDULABLE, ANNOTATION_READY_TIME, FINALIZER, Phase } from '../api/constants.ts';
import type { NodeMaintenance } from '../api/types.ts';
import { maintenanceKey, maintenancePhase } from '../scheduling/index.ts';

export interface CleanupSnapshot {
  nodes: ReadonlyMap<string, V1Node>;
  maintenances: readonly NodeMaintenance[];
}

export interface CleanupConfig {
  maxNodeMaintenanceTimeSeconds: number;
}

export interface CleanupPlan {
  actions: Action[];
  /** Deleted requests held by additionalRequestors. */
  held: Array<{ key: string; why: string }>;
  released: number;
  collected: number;
  idle: boolean;
}


const HOLDING_PHASES: ReadonlySet<string> = new Set([Phase.Ready, Phase.RequestorFailed]);

/** Pure: decides every release and collection for one snapshot. */
export function planCleanup(snapshot: CleanupSnapshot, config: CleanupConfig, now: Date): CleanupPlan {
  const actions: Action[] = [];
  const held: CleanupPlan['held'] = [];
  let released = 0;
  let collected = 0;
  const sorted = [...snapshot.maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1));
  for (const nm of sorted) {
    const ref = maintenanceRef(nm);
    const key = maintenanceKey(nm);
    const ours = (nm.metadata.finalizers ?? []).includes(FINALIZER);
    const node = snapshot.nodes.get(nm.spec.nodeName);
    const phase = maintenancePhase(nm);
    if (ours && !node) {
      // Nothing left to undo on a node that is gone; Kubernetes GC removes the object through its owner.
      actions.push({ kind: 'patchMaintenanceMeta', target: ref, removeFinalizer: true, reason: `node ${nm.spec.nodeName} no longer exists` });
      released++;
      continue;
    }
    if (nm.metadata.deletionTimestamp) {
      if (!ours || !node) continue;
      const others = nm.spec.additionalRequestors ?? [];
      if (HOLDING_PHASES.has(phase) && others.length > 0) {
        held.push({ key, why: `waiting for additional requestors: ${others.join(', ')}` });
        continue;
      }
      // Undo only what the record says we did: uncordon if the node was schedulable before us.
      const wasSchedulable = nm.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE] === 'false';
      if (wasSchedulable && node.spec?.unschedulable === true) {
        actions.push({
          kind: 'uncordonNode',
          node: { name: nm.spec.nodeName, resourceVersion: node.metadata?.resourceVersion ?? '' },
          maintenance: ref,
          reason: `${key} deleted; node was schedulable before maintenance`,
        });
      }
      const hasRecord = nm.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE] !== undefined;
      actions.push({
        kind: 'patchMaintenanceMeta',
        target: ref,
        ...(hasRecord ? { annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: null } } : {}),
        removeFinalizer: true,
        reason: `${key} deleted in phase ${phase || '(new)'}`,
      });
      released++;
      continue;
    }
    // Garbage collection: only Ready requests; a RequestorFailed request waits for a person.
    if (phase === Phase.Ready && nm.metadata.annotations?.[ANNOTATION_GC_IGNORE] !== 'true') {
      const readyAt = Date.parse(nm.metadata.annotations?.[ANNOTATION_READY_TIME] ?? '');
      if (!Number.isNaN(readyAt) && now.getTime() - readyAt >= config.maxNodeMaintenanceTimeSeconds * 1000) {
        actions.push({ kind: 'deleteMaintenance', target: ref, reason: `Ready for more than maxNodeMaintenanceTimeSeconds (${config.maxNodeMaintenanceTimeSeconds} s)` });
        collected++;
      }
    }
  }
  return { actions, held, released, collected, idle: actions.length === 0 };
}
