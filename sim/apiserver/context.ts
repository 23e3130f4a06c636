// What every request handler of the simulated API server shares: the store, the served kinds, the clock.
import type { KindRegistry } from './kind-registry.ts';
import type { Store } from './store.ts';

/** The server's view of time: milliseconds since the epoch. */
export interface ServerClock {
  now(): number;
}

/** A clock handed in: sim/clock.ts's SimClock (`nowMs()`) or the kubelet's Clock (`now()` in ms). */
export type ClockSource = { nowMs(): number } | { now(): number };

export function serverClock(source: ClockSource | undefined): ServerClock {
  if (!source) return { now: () => Date.now() };
  if ('nowMs' in source) return { now: () => source.nowMs() };
  return { now: () => source.now() };
}

export interface AdmissionOptions {
  /**
   * Add `node.kubernetes.io/not-ready:NoSchedule` to new Nodes, as the TaintNodesByCondition admission plugin
   * does. Only enable it when something plays the node lifecycle controller and removes the taint. @default false
   */
  taintNewNodes: boolean;
  /**
   * A garbage collector runs (sim/controllers/garbage-collector.ts sets this while it does): DELETE adds the `orphan`
   * or `foregroundDeletion` finalizer it removes, as kube-apiserver does with --enable-garbage-collector. @default false
   */
  garbageCollection?: boolean;
}

export interface SimContext {
  readonly store: Store;
  readonly kinds: KindRegistry;
  readonly clock: ServerClock;
  readonly random: () => number;
  readonly admission: AdmissionOptions;
  /** The next ClusterIP from 10.96.0.0/12, as the service IP allocator hands them out. */
  nextServiceIp(): string;
}
