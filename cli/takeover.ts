// `kmaint takeover --from nvidia | --to nvidia`: the hand-over docs/migrate.md describes, as a plan (the default, or
// --dry-run) or written (--apply). From upstream: each cordon upstream made for a request in flight gets kmaint's
// record, so kmaint's release lifts it (step 4; written by another field manager than kmaint's, the record vouches
// for the cordon: migrate.md "Who lifts a cordon"). To upstream: each request kmaint cordoned for gets the
// `node-initial-state.unschedulable: "false"` upstream uncordons by, where it lacks it; kmaint's `kmaint.io/Waiting`
// condition leaves every request that has it (upstream never writes or clears it, and the WAITING column and
// kube-state-metrics would go on naming a gate kmaint no longer keeps); kmaint's own requests are named, to be released
// before the switch (step 3). Pure: the caller reads and applies.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_CORDONED_BY, ANNOTATION_INITIAL_UNSCHEDULABLE, MEDIK8S_HOLDER_PREFIX, Phase, isKmaintNodeRequest, maintenanceKey, maintenancePhase, maintenanceRef } from '../shared/api/index.ts';
import type { Action, NodeMaintenance } from '../shared/api/index.ts';
import { recordOwner } from '../shared/lifecycle/index.ts';
import { dropWaiting, upstreamCordons } from './leftovers.ts';

export type TakeoverDirection = 'from-nvidia' | 'to-nvidia';

export interface TakeoverPlan {
  actions: Action[];
  /** What must happen by hand before the switch (kmaint's own requests, going back): the switch waits for them. */
  blockers: string[];
}

/** Phases in which the node is cordoned for the request (past Scheduled). */
const CORDONED_PHASES: readonly string[] = [Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining, Phase.Ready, Phase.RequestorFailed];

function fromNvidia(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[]): TakeoverPlan {
  const actions: Action[] = upstreamCordons(nodes, maintenances)
    .filter(({ request }) => CORDONED_PHASES.includes(maintenancePhase(request)))
    .map(({ node, request }): Action => {
      const found = nodes.find((n) => n.metadata?.name === node);
      return {
        kind: 'patchNodeAnnotations',
        node: { name: node, resourceVersion: found?.metadata?.resourceVersion ?? '' },
        annotations: { [ANNOTATION_CORDONED_BY]: `${MEDIK8S_HOLDER_PREFIX}${maintenanceKey(request)}` },
        reason: `hand upstream's cordon of ${node} over to kmaint: ${maintenanceKey(request)} is ${maintenancePhase(request)}, its node-initial-state.unschedulable "false"`,
      };
    });
  return { actions, blockers: [] };
}

function toNvidia(nodes: readonly V1Node[], maintenances: readonly NodeMaintenance[], kmaintNamespace: string): TakeoverPlan {
  const actions: Action[] = [];
  for (const node of [...nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1))) {
    const owner = recordOwner(node.metadata?.annotations?.[ANNOTATION_CORDONED_BY]);
    if (owner === undefined || node.spec?.unschedulable !== true) continue;
    const request = maintenances.find((nm) => nm.metadata.namespace === owner.namespace && nm.metadata.name === owner.name);
    if (request === undefined || request.metadata.annotations?.[ANNOTATION_INITIAL_UNSCHEDULABLE] !== undefined) continue;
    actions.push({ kind: 'patchMaintenanceMeta', target: maintenanceRef(request), annotations: { [ANNOTATION_INITIAL_UNSCHEDULABLE]: 'false' }, reason: `kmaint cordoned ${node.metadata?.name ?? ''} for ${maintenanceKey(request)}: upstream uncordons it by node-initial-state.unschedulable "false"` });
  }
  for (const request of [...maintenances].sort((a, b) => (maintenanceKey(a) < maintenanceKey(b) ? -1 : 1))) {
    const drop = dropWaiting(request, 'upstream neither writes nor clears it');
    if (drop !== undefined) actions.push(drop);
  }
  const blockers = maintenances
    .filter((nm) => isKmaintNodeRequest(nm, kmaintNamespace))
    .map((nm) => `kmaint's own request ${maintenanceKey(nm)} (${nm.spec.requestorID}): release it while kmaint runs (docs/migrate.md "Going back", step 3)`)
    .sort();
  return { actions, blockers };
}

/** Pure: the hand-over's writes and what blocks it. */
export function planTakeover(direction: TakeoverDirection, input: { nodes: readonly V1Node[]; maintenances: readonly NodeMaintenance[]; kmaintNamespace: string }): TakeoverPlan {
  return direction === 'from-nvidia' ? fromNvidia(input.nodes, input.maintenances) : toNvidia(input.nodes, input.maintenances, input.kmaintNamespace);
}
