// Waiting for the first change to any of a few LISTs: one WATCH each from the resourceVersion the LIST returned, so
// nothing that changed after the read is missed, closed as soon as one event arrives or the time is up.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { KubeRequestError } from './errors.ts';

/** A LIST as read: where to watch it from. */
export interface ListedVersion {
  /** Plural resource name as the audit log shows it ("pods"). */
  resource: string;
  /** API path of the LIST ("/api/v1/pods"). */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** The LIST's resourceVersion (of its first page). */
  resourceVersion: string;
  /** Order of the reads, to take only those of one round. */
  seq: number;
}

/**
 * - `changed`: an object of one of the LISTs changed (or the API server says the version is too old): read again;
 * - `timeout`: nothing changed within the time;
 * - `refused`: the API server answered a WATCH with an error status (403 without the `watch` verb): do not watch again;
 * - `broken`: a connection failed: fall back to a timed wait this once.
 */
export type WatchOutcome = 'changed' | 'timeout' | 'refused' | 'broken';

export async function watchForChange(
  kubeConfig: KubeConfig,
  targets: readonly ListedVersion[],
  timeoutMs: number,
  opts: { signal?: AbortSignal; count?: (key: string) => void } = {},
): Promise<WatchOutcome> {
  if (targets.length === 0 || timeoutMs <= 0 || opts.signal?.aborted) return 'timeout';
  const watch = new Watch(kubeConfig);
  const controllers: AbortController[] = [];
  let settled = false;
  return new Promise<WatchOutcome>((resolve) => {
    const settle = (outcome: WatchOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      for (const c of controllers) c.abort();
      resolve(outcome);
    };
    const onAbort = (): void => settle('timeout');
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    for (const t of targets) {
      opts.count?.(`watch ${t.resource}`);
      const query = {
        resourceVersion: t.resourceVersion,
        allowWatchBookmarks: true,
        // The server ends the watch a little after we stop caring; we close it ourselves first.
        timeoutSeconds: Math.ceil(timeoutMs / 1000) + 5,
        ...(t.fieldSelector ? { fieldSelector: t.fieldSelector } : {}),
        ...(t.labelSelector ? { labelSelector: t.labelSelector } : {}),
      };
      const onEvent = (phase: string, obj: unknown): void => {
        // BOOKMARK only moves the version on; ERROR (410 Gone: the version was compacted) means read again.
        if (phase === 'BOOKMARK') return;
        // A terminating pod's status updates move nothing on: only its deletion does (the drain and the wait for pods
        // both wait for pods to be gone), so they do not cost a round.
        if (phase === 'MODIFIED' && t.resource === 'pods' && (obj as { metadata?: { deletionTimestamp?: string } } | null)?.metadata?.deletionTimestamp) return;
        settle('changed');
      };
      const onDone = (err: unknown): void => {
        if (settled) return;
        const status = (err as { statusCode?: number } | null)?.statusCode;
        if (status !== undefined) settle(status === 410 ? 'changed' : 'refused');
        else if ((err as { name?: string } | null)?.name === 'TimeoutError') settle('timeout');
        else settle(err ? 'broken' : 'changed');
      };
      void watch.watch(t.path, query, onEvent, onDone).then(
        (c) => (settled ? c.abort() : controllers.push(c)),
        (err: unknown) => onDone(err ?? new KubeRequestError(`watching ${t.path}`, 0, 'watch failed')),
      );
    }
  });
}
