// Instance providers: what terminates the machine behind a Node, chosen by the prefix of its spec.providerID.
// Unknown prefixes are reported, never guessed.
import type { ScheduledEventsRead } from './scheduled-events.ts';

/** One cloud's way of terminating the instance behind a providerID. */
export interface InstanceProvider {
  /** The spec.providerID prefix it serves (the text before the first colon), e.g. `aws`. */
  readonly prefix: string;
  /** Terminates the instance; resolves with one line saying what was done, rejects with what failed. */
  terminate(providerID: string, signal?: AbortSignal): Promise<string>;
  /**
   * Reboots the instance (spec.reboot.method ec2, sent by the drainer); resolves with one line saying what was done,
   * rejects with what failed. Absent: this cloud's instances are not rebooted by kmaint.
   */
  reboot?(providerID: string, signal?: AbortSignal): Promise<string>;
  /**
   * Moves the instance's scheduled event `eventId` to start at `notBefore` (spec.cloudEvents.moveIntoWindows); resolves
   * with one line saying what was done, rejects with what failed. Absent: this cloud's events are not moved.
   */
  moveEvent?(providerID: string, eventId: string, notBefore: Date, signal?: AbortSignal): Promise<string>;
  /**
   * The scheduled events (of `codes`) of the instances behind `providerIDs`, for spec.cloudEvents. Every providerID
   * given is in the result's `events` or its `unread`; it never rejects. Absent: this cloud's events are not read.
   */
  scheduledEvents?(providerIDs: readonly string[], codes: readonly string[], signal?: AbortSignal): Promise<ScheduledEventsRead>;
}

/** Providers by prefix. */
export type InstanceProviders = ReadonlyMap<string, InstanceProvider>;

export type ProviderChoice = { ok: true; provider: InstanceProvider } | { ok: false; problem: string };

/** `aws` of `aws:///eu-west-1a/i-0abc`; '' when there is no colon. */
export function providerPrefix(providerID: string): string {
  const colon = providerID.indexOf(':');
  return colon <= 0 ? '' : providerID.slice(0, colon);
}

/** The provider serving `providerID`, or a problem naming the prefix and the prefixes kmaint knows. */
export function chooseProvider(providerID: string, providers: InstanceProviders): ProviderChoice {
  if (providerID === '') return { ok: false, problem: 'the Node has no spec.providerID, so no instance can be terminated' };
  const prefix = providerPrefix(providerID);
  const provider = providers.get(prefix);
  if (provider) return { ok: true, provider };
  const known = [...providers.keys()].sort().join(', ') || 'none';
  return { ok: false, problem: `no provider for providerID prefix ${JSON.stringify(prefix)} of ${JSON.stringify(providerID)} (known: ${known})` };
}

/** Providers by prefix, from a list. */
export function providerMap(list: readonly InstanceProvider[]): InstanceProviders {
  return new Map(list.map((p) => [p.prefix, p]));
}
