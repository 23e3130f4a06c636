// kured's blockers as admission gates (issue 43): pods matching a selector on a Node keep that Node's requests from
// being admitted, and firing alerts (Prometheus or Alertmanager) hold every admission. What the pass read is a fact in
// the scheduling state; these gates only read it (the planner stays pure). Both refuse whatever the counts, so a blocked
// request takes no slot and holds nothing (start-now.ts).

import { shortList } from '../text/index.ts';

/** What the scheduler pass read for spec.rebootBlockers; absent from the state when that section is not set. */
export interface Blockers {
  /** With blockingPodSelector: Node name -> the blocking pods on it (namespace/name, sorted); Nodes without one absent. */
  readonly podsByNode?: ReadonlyMap<string, readonly string[]>;
  /** The selector, for the refusal text. */
  readonly podSelector?: string;
  /** With alerts configured: what the read found. */
  readonly alerts?: AlertsRead;
}

export type AlertsRead =
  | { readonly kind: 'quiet'; readonly url: string }
  | { readonly kind: 'firing'; readonly url: string; /** Alert names that block, sorted, unique. */ readonly names: readonly string[] }
  | { readonly kind: 'unreachable'; readonly url: string; readonly problem: string };

/** At most this many names in a refusal; the rest are counted. */
const LISTED = 3;

function listed(items: readonly string[]): string {
  return shortList(items, LISTED);
}

/** Why a request on `node` may not start because of a blocking pod there, or undefined. */
export function blockingPodRefusal(blockers: Blockers | undefined, node: string): string | undefined {
  const pods = blockers?.podsByNode?.get(node);
  if (pods === undefined || pods.length === 0) return undefined;
  return `blocked by pod ${listed(pods)} on node ${node} (matches blockingPodSelector ${blockers?.podSelector ?? ''})`;
}

export function blockingPodAdmits(blockers: Blockers | undefined, node: string): string | undefined {
  return blockers?.podsByNode === undefined ? undefined : `blockingPodSelector ${blockers.podSelector ?? ''}: no matching pod on node ${node}`;
}

/** Why nothing may start because of the alerts read, or undefined. Unreachable blocks (fail closed) and says so. */
export function blockingAlertRefusal(blockers: Blockers | undefined): string | undefined {
  const alerts = blockers?.alerts;
  if (alerts === undefined || alerts.kind === 'quiet') return undefined;
  if (alerts.kind === 'unreachable') return `blocked: alerts unreachable at ${alerts.url} (${alerts.problem}); nothing is admitted until they can be read`;
  return `blocked by firing alert ${listed(alerts.names)} (${alerts.url})`;
}

export function blockingAlertAdmits(blockers: Blockers | undefined): string | undefined {
  const alerts = blockers?.alerts;
  return alerts === undefined ? undefined : `alerts at ${alerts.url}: none blocking`;
}
