// Fixtures for reaper tests: Nodes with conditions, zones, providerIDs and ages; reaper configs from a spec.
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { DEFAULT_ZONE_LABEL, type NodeMaintenance, rfc3339Seconds } from '#api';
import { loadReaperConfig, type ReaperConfig } from './config.ts';

/** The fixed clock of reaper tests. */
export const NOW = new Date('2026-01-01T12:00:00Z');

export function secondsBefore(seconds: number, from: Date = NOW): string {
  return rfc3339Seconds(from.getTime() - seconds * 1000);
}

export interface ReaperNodeOptions {
  name: string;
  /** Ready condition status. @default 'True' */
  ready?: 'True' | 'False' | 'Unknown' | 'absent';
  /** Seconds since Ready last changed. @default 3600 */
  readyForSeconds?: number;
  /** Other conditions: type -> [status, seconds since its transition]. */
  conditions?: Record<string, [string, number]>;
  /** Seconds since creation. @default 86400 */
  ageSeconds?: number;
  zone?: string;
  cordoned?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** @default aws:///<zone or eu-west-1a>/i-<hex of the name> */
  providerID?: string | null;
}

/** A Node id from its name: `i-` + 17 hex digits, stable per name. */
export function instanceIdOf(name: string): string {
  const hex = Buffer.from(name).toString('hex').padEnd(17, '0').slice(0, 17);
  return `i-${hex}`;
}

export function aReaperNode(opts: ReaperNodeOptions): V1Node {
  const conditions: V1NodeCondition[] = [];
  if (opts.ready !== 'absent') {
    conditions.push({ type: 'Ready', status: opts.ready ?? 'True', lastTransitionTime: secondsBefore(opts.readyForSeconds ?? 3600) as unknown as Date });
  }
  for (const [type, [status, seconds]] of Object.entries(opts.conditions ?? {})) {
    conditions.push({ type, status, lastTransitionTime: secondsBefore(seconds) as unknown as Date });
  }
  const zone = opts.zone;
  const labels = { ...(zone !== undefined ? { [DEFAULT_ZONE_LABEL]: zone } : {}), ...opts.labels };
  const providerID = opts.providerID === undefined ? `aws:///${zone ?? 'eu-west-1a'}/${instanceIdOf(opts.name)}` : opts.providerID;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: opts.name,
      uid: `uid-${opts.name}`,
      resourceVersion: '7',
      creationTimestamp: new Date(NOW.getTime() - (opts.ageSeconds ?? 86_400) * 1000),
      labels,
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: { ...(providerID !== null ? { providerID } : {}), ...(opts.cordoned ? { unschedulable: true } : {}) },
    status: { conditions },
  };
}

/** The resolved config of `spec.reaper` (enabled unless said otherwise); throws on a spec that does not load. */
export function reaperConfig(reaper: Record<string, unknown>, spec: Record<string, unknown> = {}): ReaperConfig {
  const loaded = loadReaperConfig({ metadata: { name: 'default', namespace: 'kmaint' }, spec: { ...spec, reaper: { enabled: true, dryRun: false, ...reaper } } });
  if (loaded.kind !== 'enabled') throw new Error(`reaper config did not load: ${JSON.stringify(loaded)}`);
  return loaded.config;
}

/** A NodeMaintenance in `phase` (Ready condition reason) for `node`. */
export function aRequest(name: string, node: string, requestorID: string, phase: string, more: Partial<NodeMaintenance['metadata']> = {}): NodeMaintenance {
  return {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'NodeMaintenance',
    metadata: { name, namespace: 'kmaint', uid: `uid-${name}`, resourceVersion: '11', ...more },
    spec: { requestorID, nodeName: node },
    ...(phase !== ''
      ? { status: { conditions: [{ type: 'Ready', status: phase === 'Ready' ? 'True' : 'False', reason: phase, message: '', lastTransitionTime: secondsBefore(60) }] } }
      : {}),
  } as NodeMaintenance;
}

/** The reaper's own reap request for `node`: in kmaint's namespace, named reap-<node>, labelled and of its requestor. */
export function aReapRequest(node: string, phase: string, more: Partial<NodeMaintenance['metadata']> = {}): NodeMaintenance {
  return aRequest(`reap-${node}`, node, 'reaper.kmaint.io', phase, { labels: { 'kmaint.io/reaper': 'true' }, ...more });
}
