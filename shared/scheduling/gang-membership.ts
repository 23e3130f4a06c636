// Who belongs to which gang (issues 21, 30, 31): one rule shared by the scheduler (admit whole) and the drainer (cordon
// none until all are admitted). A request label's gang is scoped by namespace; a node-label gang (an NVLink clique)
// binds the requests of one requestor in one namespace, and never the requests kmaint files itself.
import type { V1Node } from '@kubernetes/client-node';
import { DRAINED_PHASES, isBeingDeleted, isKmaintNodeRequest, LABEL_GANG, maintenancePhase, type NodeMaintenance } from '#api';
import { holdsAdmission } from './admission-record.ts';

export interface GangIdentity {
  /** What groups the members: never shown, unique across namespaces and requestors. */
  readonly key: string;
  /** As messages name the gang: the label's value, or `<gangNodeLabel>=<value>`. */
  readonly name: string;
  /** For a gang by node label: the label's value its nodes carry, and whose requests it binds. */
  readonly byNodeLabel?: { readonly label: string; readonly value: string; readonly namespace: string; readonly requestorID: string };
}

/**
 * A request kmaint filed for one node's own reason (a reaper verdict, a cloud retirement, an SR-IOV or node-agent
 * drain under the default requestor): binding it to a clique would make it wait for requests nobody will ever file
 * (issue 30). Recognised by where and by whom it was made (api isKmaintNodeRequest, issue 40): a requestor that copies
 * one of kmaint's requestorIDs or labels in its own namespace files an ordinary request, bound like any other.
 */
export function isKmaintRequest(nm: NodeMaintenance, kmaintNamespace: string | undefined): boolean {
  return isKmaintNodeRequest(nm, kmaintNamespace);
}

/**
 * A request's gang: its own kmaint.io/gang label first, else its node's value of `gangNodeLabel`; undefined: a single.
 * `kmaintNamespace`: where kmaint files its own requests (undefined: no request is kmaint's).
 */
export function gangIdentityOf(nm: NodeMaintenance, node: V1Node | undefined, gangNodeLabel: string | undefined, kmaintNamespace: string | undefined): GangIdentity | undefined {
  const namespace = nm.metadata.namespace ?? '';
  const own = nm.metadata.labels?.[LABEL_GANG];
  // Scoped by namespace (issue 31): another namespace's request with the same label is another gang.
  if (own !== undefined && own !== '') return { key: `label\u0000${namespace}\u0000${own}`, name: own };
  if (gangNodeLabel === undefined || isKmaintRequest(nm, kmaintNamespace)) return undefined;
  const value = node?.metadata?.labels?.[gangNodeLabel];
  if (value === undefined || value === '') return undefined;
  const { requestorID } = nm.spec;
  return {
    key: `node\u0000${namespace}\u0000${requestorID}\u0000${gangNodeLabel}=${value}`,
    name: `${gangNodeLabel}=${value}`,
    byNodeLabel: { label: gangNodeLabel, value, namespace, requestorID },
  };
}

/**
 * Admitted and not yet Ready: the members a partly admitted gang has started (the drainer holds them at Scheduled).
 * Admitted by kmaint's record on the Node (issue 40), never by a phase written into status.
 */
export function isAdmittedUnfinished(nm: NodeMaintenance, node: V1Node | undefined): boolean {
  return !isBeingDeleted(nm) && !DRAINED_PHASES.has(maintenancePhase(nm)) && holdsAdmission(nm, node);
}

/**
 * The ranked candidates with the members of partly admitted gangs moved to the front (in rank order), before the
 * one-per-Node pick: a gang some of whose requests already hold slots completes before anything else starts (issue 30).
 */
export function completingGangsFirst(
  ranked: readonly NodeMaintenance[],
  maintenances: readonly NodeMaintenance[],
  nodes: ReadonlyMap<string, V1Node>,
  gangNodeLabel: string | undefined,
  kmaintNamespace: string | undefined,
): NodeMaintenance[] {
  const keyOf = (nm: NodeMaintenance): string | undefined => gangIdentityOf(nm, nodes.get(nm.spec.nodeName), gangNodeLabel, kmaintNamespace)?.key;
  const partial = new Set(maintenances.filter((nm) => isAdmittedUnfinished(nm, nodes.get(nm.spec.nodeName))).map(keyOf));
  partial.delete(undefined);
  if (partial.size === 0) return [...ranked];
  const completing = (nm: NodeMaintenance): boolean => partial.has(keyOf(nm));
  return [...ranked.filter(completing), ...ranked.filter((nm) => !completing(nm))];
}
