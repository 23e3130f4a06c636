// What a pass knows about Slurm: the settings and one read of every Slurm node, or why it could not read them.
import type { SlurmNodeInfo, SlurmProblem } from './client.ts';
import type { SlurmSettings } from './settings.ts';

export type SlurmView =
  | { kind: 'ok'; nodes: ReadonlyMap<string, SlurmNodeInfo> }
  | { kind: 'problem'; problem: SlurmProblem }
  /** Token-free mode: each worker's Slurm node is read from its pod's SlurmNodeState* conditions (Slinky's). */
  | { kind: 'pod-conditions' };

/** Given to the drainer and cleanup planners when spec.slurm is enabled (valid or not). */
export type SlurmContext = { kind: 'on'; settings: SlurmSettings; view: SlurmView } | { kind: 'invalid'; problem: string };

/** A write to Slurm a planner asks for; applied by the pass after the Kubernetes writes. */
export type SlurmWrite =
  | { kind: 'slurmDrain'; node: string; reason: string; maintenance: { namespace: string; name: string }; why: string }
  | { kind: 'slurmUndrain'; node: string; maintenance: { namespace: string; name: string }; why: string };

/** One line for dry runs and logs. */
export function describeSlurmWrite(w: SlurmWrite): string {
  return w.kind === 'slurmDrain'
    ? `slurm drain ${w.node} reason "${w.reason}" for ${w.maintenance.namespace}/${w.maintenance.name}: ${w.why}`
    : `slurm undrain ${w.node} for ${w.maintenance.namespace}/${w.maintenance.name}: ${w.why}`;
}
