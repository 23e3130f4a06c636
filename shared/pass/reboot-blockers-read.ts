// The scheduler's read for spec.rebootBlockers (issue 43, kured's blockers): the pods matching blockingPodSelector, and
// the alerts of Alertmanager (/api/v2/alerts) or Prometheus (/api/v1/alerts), read once per pass with a timeout. The
// result is a fact for the `blocking pod` and `blocking alert` gates (scheduling/blockers.ts); nothing here decides.
import { errorMessage } from '../errors/index.ts';
import { RE2JS } from 're2js';
import { isUnscheduled } from '../api/index.ts';
import type { AlertsRead, Blockers } from '../scheduling/index.ts';
import type { PassOptions } from './options.ts';
import type { BaseSnapshot } from './snapshot.ts';
import type { AlertsSettings, BlockerSettings } from './reboot-blockers-config.ts';

/** One alert as either API gives it: its alertname and whether it counts as firing. */
export interface AlertSeen {
  name: string;
  firing: boolean;
}

const record = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/**
 * The alerts in a response body. Alertmanager v2: an array of {labels, status: {state: active|suppressed|unprocessed}};
 * Prometheus v1: {status: 'success', data: {alerts: [{labels, state: firing|pending}]}}. Undefined: not that shape.
 */
export function parseAlerts(api: AlertsSettings['api'], body: unknown): AlertSeen[] | undefined {
  const items = api === 'alertmanager' ? body : record(record(body)?.data)?.alerts;
  if (!Array.isArray(items)) return undefined;
  const seen: AlertSeen[] = [];
  for (const item of items) {
    const alert = record(item);
    const name = record(alert?.labels)?.alertname;
    if (typeof name !== 'string') continue;
    const state = api === 'alertmanager' ? record(alert?.status)?.state : alert?.state;
    seen.push({ name, firing: api === 'alertmanager' ? state === 'active' : state === 'firing' });
  }
  return seen;
}

/** The alert names that block, sorted and unique; a regexp that is not RE2 is a problem (thrown, caught by the read). */
export function blockingAlertNames(alerts: readonly AlertSeen[], settings: Pick<AlertsSettings, 'nameRegexp' | 'ignoreNameRegexp' | 'firingOnly'>): string[] {
  const match = settings.nameRegexp === undefined ? undefined : RE2JS.compile(settings.nameRegexp);
  const ignore = settings.ignoreNameRegexp === undefined ? undefined : RE2JS.compile(settings.ignoreNameRegexp);
  const names = new Set<string>();
  for (const alert of alerts) {
    if (settings.firingOnly && !alert.firing) continue;
    if (match !== undefined && !match.matcher(alert.name).find()) continue;
    if (ignore?.matcher(alert.name).find() === true) continue;
    names.add(alert.name);
  }
  return [...names].sort();
}

/** Reads the alerts API once; any failure (timeout, status, shape, regexp) is `unreachable` with why: it blocks. */
export async function readAlerts(settings: AlertsSettings, fetchImpl: typeof fetch = fetch): Promise<AlertsRead> {
  const url = settings.url;
  const path = settings.api === 'alertmanager' ? '/api/v2/alerts' : '/api/v1/alerts';
  try {
    const res = await fetchImpl(`${url}${path}`, { signal: AbortSignal.timeout(settings.timeoutSeconds * 1000), headers: { accept: 'application/json' } });
    if (!res.ok) return { kind: 'unreachable', url, problem: `${path} answered HTTP ${res.status}` };
    const alerts = parseAlerts(settings.api, await res.json());
    if (alerts === undefined) return { kind: 'unreachable', url, problem: `${path} did not answer the ${settings.api} alerts shape` };
    const names = blockingAlertNames(alerts, settings);
    return names.length === 0 ? { kind: 'quiet', url } : { kind: 'firing', url, names };
  } catch (err) {
    const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${settings.timeoutSeconds}s` : errorMessage(err, { cause: true });
    return { kind: 'unreachable', url, problem: why };
  }
}

/** The blocking pods per Node (running or pending; finished pods block nothing), namespace/name sorted. */
export function blockingPodsByNode(pods: readonly { metadata?: { namespace?: string; name?: string }; spec?: { nodeName?: string }; status?: { phase?: string } }[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    const phase = pod.status?.phase;
    if (node === undefined || node === '' || phase === 'Succeeded' || phase === 'Failed') continue;
    const list = byNode.get(node) ?? [];
    list.push(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
    byNode.set(node, list);
  }
  for (const list of byNode.values()) list.sort();
  return byNode;
}

/**
 * The scheduler pass's read: only with spec.rebootBlockers set and some request waiting. A pod list that fails is
 * thrown (the pass fails and is retried, as any failed read); the alerts API failing is a fact (unreachable: blocked).
 */
export async function readBlockers(opts: Pick<PassOptions, 'client'>, base: Pick<BaseSnapshot, 'maintenances'>, settings: BlockerSettings | undefined, fetchImpl: typeof fetch = fetch): Promise<Blockers | undefined> {
  if (settings === undefined || !base.maintenances.some(isUnscheduled)) return undefined;
  const [pods, alerts] = await Promise.all([
    settings.podSelector === undefined ? undefined : opts.client.listPods({ labelSelector: settings.podSelector }),
    settings.alerts === undefined ? undefined : readAlerts(settings.alerts, fetchImpl),
  ]);
  return {
    ...(pods !== undefined && settings.podSelector !== undefined ? { podsByNode: blockingPodsByNode(pods), podSelector: settings.podSelector } : {}),
    ...(alerts !== undefined ? { alerts } : {}),
  };
}
