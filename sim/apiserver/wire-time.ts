// metav1.Time on built-in kinds: the API server decodes and re-encodes it, so whatever precision a client sends
// (client-node writes milliseconds) is stored at whole seconds in UTC. MicroTime fields (a Lease's renewTime, an
// events.k8s.io eventTime) keep their microseconds; custom resources are stored as sent.
import { isObject, type Json, type JsonObject } from './json-value.ts';

/** Field names that hold a metav1.Time wherever they appear in the built-in kinds the sim serves. */
const TIME_FIELDS: ReadonlySet<string> = new Set([
  'creationTimestamp',
  'deletionTimestamp',
  'lastTransitionTime',
  'lastProbeTime',
  'lastHeartbeatTime',
  'lastUpdateTime',
  'startedAt',
  'finishedAt',
  'startTime',
  'completionTime',
  'firstTimestamp',
  'lastTimestamp',
  'timeAdded',
]);

const FRACTIONAL = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+Z$/;

function truncated(value: Json): Json {
  if (typeof value !== 'string') return value;
  const m = FRACTIONAL.exec(value);
  return m ? `${m[1]}Z` : value;
}

function walk(node: Json, inDisruptedPods: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, false);
    return;
  }
  if (!isObject(node)) return;
  for (const [k, v] of Object.entries(node)) {
    // A PodDisruptionBudget's status.disruptedPods maps pod names to metav1.Time.
    if (inDisruptedPods || TIME_FIELDS.has(k)) node[k] = truncated(v);
    else walk(v, k === 'disruptedPods');
  }
}

/** Truncates every metav1.Time of a built-in object to whole seconds, in place. */
export function truncateTimes(obj: JsonObject): void {
  walk(obj, false);
}
