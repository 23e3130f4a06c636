// Keeps the pod runner fed with the cluster's bound pods: paged LIST polling, or LIST then WATCH.
import type { V1Pod } from '@kubernetes/client-node';
import { pause, type Clock } from './clock.ts';
import type { KubeletApi } from './kubelet-api.ts';
import type { SimLogger } from './logger.ts';

export interface PodSink {
  /** A full listing starts: pods not upserted before `endResync` are gone. */
  beginResync(): void;
  endResync(): void;
  upsert(pod: V1Pod): void;
  remove(uid: string): void;
}

export type PodSyncMode = 'poll' | 'watch';

export interface PodFeedOptions {
  mode: PodSyncMode;
  pollIntervalMs: number;
  pageSize: number;
  /** Server-side watch timeout; below client-node's 30 s inactivity timeout, so quiet watches end cleanly. */
  watchTimeoutSeconds?: number;
}

const MAX_BACKOFF_MS = 5000;

export class PodFeed {
  private readonly abort = new AbortController();
  private watchController: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly api: KubeletApi,
    private readonly clock: Clock,
    private readonly sink: PodSink,
    private readonly options: PodFeedOptions,
    private readonly log: SimLogger,
  ) {}

  /** Lists once (so callers know the current pods are handled), then keeps syncing in the background. */
  async start(): Promise<void> {
    const resourceVersion = await this.listAll();
    this.loop = this.options.mode === 'watch' ? this.watchLoop(resourceVersion) : this.pollLoop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.watchController?.abort();
    await this.loop;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Every page of bound pods into the sink; returns the list's resource version. */
  private async listAll(): Promise<string> {
    this.sink.beginResync();
    let token: string | undefined;
    let resourceVersion: string;
    do {
      const page = await this.api.listBoundPods(this.options.pageSize, token);
      for (const pod of page.items) this.sink.upsert(pod);
      resourceVersion = page.resourceVersion;
      token = page.continueToken;
    } while (token && !this.stopped);
    if (!this.stopped) this.sink.endResync();
    return resourceVersion;
  }

  private async pollLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      await pause(this.clock, failures > 0 ? backoff(failures) : this.options.pollIntervalMs, this.abort.signal);
      if (this.stopped) return;
      try {
        await this.listAll();
        failures = 0;
      } catch (err) {
        failures++;
        this.log.warn({ err, failures }, 'simulated kubelet: listing pods failed, retrying');
      }
    }
  }

  private async watchLoop(initialVersion: string): Promise<void> {
    let resourceVersion = initialVersion;
    let failures = 0;
    while (!this.stopped) {
      const result = await this.watchOnce(resourceVersion);
      if (this.stopped) return;
      if (result.expired) {
        try {
          this.log.debug({ resourceVersion }, 'simulated kubelet: watch expired, listing again');
          resourceVersion = await this.listAll();
          failures = 0;
        } catch (err) {
          failures++;
          this.log.warn({ err, failures }, 'simulated kubelet: listing pods failed, retrying');
          await pause(this.clock, backoff(failures), this.abort.signal);
        }
        continue;
      }
      resourceVersion = result.resourceVersion;
      if (result.error && !result.sawEvents) {
        failures++;
        this.log.warn({ err: result.error, failures }, 'simulated kubelet: pod watch failed, retrying');
        await pause(this.clock, backoff(failures), this.abort.signal);
      } else {
        failures = 0;
      }
    }
  }

  private watchOnce(resourceVersion: string): Promise<{ resourceVersion: string; expired: boolean; sawEvents: boolean; error?: unknown }> {
    return new Promise((resolve) => {
      let latest = resourceVersion;
      let expired = false;
      let sawEvents = false;
      const onEvent = (type: string, object: unknown) => {
        sawEvents = true;
        const obj = object as { metadata?: { resourceVersion?: string; uid?: string }; code?: number };
        switch (type) {
          case 'ADDED':
          case 'MODIFIED':
            this.sink.upsert(object as V1Pod);
            break;
          case 'DELETED':
            if (obj.metadata?.uid) this.sink.remove(obj.metadata.uid);
            break;
          case 'BOOKMARK':
            break;
          case 'ERROR':
            // A Status object; 410 Gone means our resource version was compacted away.
            if (obj.code === 410) expired = true;
            this.watchController?.abort();
            return;
        }
        if (obj.metadata?.resourceVersion) latest = obj.metadata.resourceVersion;
      };
      const signal = this.abort.signal;
      const onDone = (error: unknown) => {
        signal.removeEventListener('abort', onStop);
        const status = (error as { statusCode?: number } | null)?.statusCode;
        resolve({ resourceVersion: latest, expired: expired || status === 410, sawEvents, ...(error && !expired ? { error } : {}) });
      };
      // stop() must not wait for a watch still connecting: client-node hands out its AbortController only once connected.
      const onStop = () => onDone(null);
      signal.addEventListener('abort', onStop, { once: true });
      const timeout = this.options.watchTimeoutSeconds ?? 25;
      this.api.watchBoundPods(resourceVersion, timeout, onEvent, onDone).then(
        (controller) => {
          this.watchController = controller;
          if (this.stopped) controller.abort();
        },
        (error: unknown) => onDone(error),
      );
    });
  }
}

function backoff(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(failures, 5));
}
