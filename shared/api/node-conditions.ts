// Reading the KEP-5683 node lifecycle conditions on a Node: which are kmaint's, and whether another writer says the
// node is under maintenance. Structural types, so planners of every area can ask without a client-node import.
import { NODE_CONDITION_MESSAGE_PREFIX, NodeCondition } from './constants.ts';

/** The part of a Node condition these rules read. */
export interface NodeConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The node conditions as read (none when the node has no status). */
type WithConditions = { status?: { conditions?: readonly NodeConditionView[] } };

/** Conditions that say work is under way on the node; MaintenancePlanned alone does not take it out of service. */
const UNDER_MAINTENANCE: readonly string[] = [NodeCondition.MaintenanceInProgress, NodeCondition.DrainInProgress, NodeCondition.Drained];

/** kmaint's own: the message starts with NODE_CONDITION_MESSAGE_PREFIX. */
export function isOwnNodeCondition(c: NodeConditionView): boolean {
  return (c.message ?? '').startsWith(NODE_CONDITION_MESSAGE_PREFIX);
}

/**
 * The first condition by which another controller marks `node` as under maintenance (MaintenanceInProgress,
 * DrainInProgress or Drained True, not kmaint's), as "Type=True (reason)"; undefined when none does.
 */
export function maintenanceMarkedByOthers(node: WithConditions): string | undefined {
  const c = node.status?.conditions?.find((x) => UNDER_MAINTENANCE.includes(x.type) && x.status === 'True' && !isOwnNodeCondition(x));
  return c === undefined ? undefined : `${c.type}=True${c.reason ? ` (${c.reason})` : ''}`;
}
