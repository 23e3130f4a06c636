// WATCH: JSON lines of ADDED/MODIFIED/DELETED from a resourceVersion (replayed from the store's history, 410 Gone
// when it is no longer kept), selector transitions as the watch cache reports them, bookmarks, server timeouts.
import type { SimContext } from './context.ts';
import type { KindInfo } from './kinds.ts';
import { keyOf } from './kinds.ts';
import { matchesFilter, type ObjectFilter } from './selectors.ts';
import type { EventType, StoreEvent, StoredObject } from './store.ts';

export interface WatchRequest {
  kind: KindInfo;
  filter: ObjectFilter;
  /** '' or absent: start with the current objects as ADDED; '0' the same; N: events after N. */
  resourceVersion: string | undefined;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  /** Renders one event object (JSON text), e.g. as a Table row for `kubectl get -w`. */
  render: (object: StoredObject, first: boolean) => string;
}

export interface WatchSink {
  write(text: string): void;
  end(): void;
}

export interface WatchOptions {
  /** How often bookmarks go out when the client allows them. @default 10000 */
  bookmarkIntervalMs?: number;
}

function expired(requested: string, oldest: number): string {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: ${requested} (${oldest + 1})`,
    reason: 'Expired',
    code: 410,
  };
  return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
}

/** What a watcher with `filter` sees of one store event: nothing, or the event type to send. */
export function eventFor(kind: KindInfo, filter: ObjectFilter, e: StoreEvent): EventType | undefined {
  const now = e.type !== 'DELETED' && matchesFilter(kind, filter, e.object);
  const before = e.previous !== undefined && matchesFilter(kind, filter, e.previous);
  if (e.type === 'DELETED') return before ? 'DELETED' : undefined;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  return before ? 'DELETED' : undefined;
}

/** Starts streaming to `sink`; returns the function that stops it (call it when the client goes away). */
export function startWatch(ctx: SimContext, req: WatchRequest, sink: WatchSink, options: WatchOptions = {}): () => void {
  const key = keyOf(req.kind);
  let first = true;
  const send = (type: EventType, object: StoredObject): void => {
    sink.write(`{"type":"${type}","object":${req.render(object, first)}}\n`);
    first = false;
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    const meta = { resourceVersion: String(ctx.store.resourceVersion), ...(annotations ? { annotations } : {}) };
    const kindPart = req.kind.group ? `${req.kind.group}/${req.kind.version}` : req.kind.version;
    sink.write(`{"type":"BOOKMARK","object":${JSON.stringify({ kind: req.kind.kind, apiVersion: kindPart, metadata: meta })}}\n`);
  };
  const rv = req.resourceVersion ?? '';
  if (rv === '' || rv === '0' || req.sendInitialEvents) {
    for (const o of ctx.store.collection(req.kind).objects.values()) if (matchesFilter(req.kind, req.filter, o)) send('ADDED', o);
    if (req.sendInitialEvents && req.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  } else {
    const from = Number(rv);
    const replay = Number.isInteger(from) ? ctx.store.eventsSince(from) : undefined;
    if (!replay) {
      sink.write(expired(rv, ctx.store.oldestResourceVersion));
      sink.end();
      return () => undefined;
    }
    for (const e of replay) {
      if (keyOf(e.kind) !== key) continue;
      const type = eventFor(req.kind, req.filter, e);
      if (type) send(type, e.object);
    }
  }
  const unsubscribe = ctx.store.subscribe((e) => {
    if (keyOf(e.kind) !== key) return;
    const type = eventFor(req.kind, req.filter, e);
    if (type) send(type, e.object);
  });
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
  };
  if (req.allowBookmarks) {
    const t = setInterval(() => bookmark(), options.bookmarkIntervalMs ?? 10_000);
    t.unref();
    timers.push(t);
  }
  if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
    const t = setTimeout(() => {
      stop();
      sink.end();
    }, req.timeoutSeconds * 1000);
    t.unref();
    timers.push(t);
  }
  return stop;
}
