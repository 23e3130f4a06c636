// Pushing a run's metric families to a Prometheus Pushgateway (https://github.com/prometheus/pushgateway#command-line):
// one group per function, keyed by job; POST replaces the pushed families in that group and keeps the others, so
// kmaint_last_success_timestamp_seconds survives a failed run that does not push it.
import { errorMessage } from '../errors/index.ts';
import { renderExposition, EXPOSITION_CONTENT_TYPE } from './exposition.ts';
import type { MetricFamily } from './families.ts';
import { MetricsPushError } from './errors.ts';

/** The environment variable naming the Pushgateway, e.g. http://pushgateway.monitoring:9091. */
export const PUSHGATEWAY_URL_ENV = 'KMAINT_PUSHGATEWAY_URL';

export interface PushOptions {
  /** The Pushgateway's base URL (a path prefix is kept). */
  url: string;
  /** The group's job label. */
  job: string;
  /** PUT replaces the whole group; POST only the families pushed. @default "POST" */
  method?: 'POST' | 'PUT';
  /** @default 10000 */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The group's URL: <base>/metrics/job/<job>. */
export function groupUrl(base: string, job: string): string {
  return `${base.replace(/\/+$/, '')}/metrics/job/${encodeURIComponent(job)}`;
}

/** The Pushgateway job of a kmaint function: kmaint-scheduler, kmaint-drainer, … */
export function jobName(fn: string): string {
  return `kmaint-${fn}`;
}

/** Pushes `families` into the job's group. Throws MetricsPushError when the Pushgateway is unreachable or refuses. */
export async function pushToGateway(families: readonly MetricFamily[], opts: PushOptions): Promise<void> {
  const url = groupUrl(opts.url, opts.job);
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(url, { method: opts.method ?? 'POST', headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE }, body: renderExposition(families), signal });
  } catch (err) {
    throw new MetricsPushError(url, undefined, `pushing metrics to ${url}: ${errorMessage(err, { cause: true })}`, { cause: err });
  }
  if (!res.ok) {
    // The first line of the answer says why; an answer that breaks off is said too, never dropped.
    const body = await res.text().then(
      (text) => text.trim().split('\n')[0] ?? '',
      (err: unknown) => `(the answer's body could not be read: ${errorMessage(err)})`,
    );
    throw new MetricsPushError(url, res.status, `pushing metrics to ${url}: HTTP ${res.status}${body ? `: ${body}` : ''}`);
  }
}
