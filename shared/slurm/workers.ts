// Which Slurm nodes serve a Kubernetes node under maintenance: its Slurm worker pods (pod mode, as Slinky's NodeSet
// pods, in spec.slurm.workerNamespaces when set) or the node itself (node mode).
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { matchesLabels } from '../selectors/index.ts';
import type { SlurmSettings } from './settings.ts';

export interface SlurmWorker {
  /** The Slurm node name. */
  slurmNode: string;
  /** `pod ns/name` or `node name`, for messages. */
  source: string;
  /** The worker pod (pod mode): its labels say Slinky, its conditions carry Slurm state in the token-free mode. */
  pod?: V1Pod;
}

export type WorkersResult = { ok: true; workers: SlurmWorker[] } | { ok: false; error: string };

function nameOf(obj: { metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> } }, hostname: string | undefined, s: SlurmSettings): string | undefined {
  switch (s.nameFrom) {
    case 'hostname':
      return hostname ?? obj.metadata?.name;
    case 'name':
      return obj.metadata?.name;
    case 'label':
      return obj.metadata?.labels?.[s.nameKey ?? ''];
    case 'annotation':
      return obj.metadata?.annotations?.[s.nameKey ?? ''];
  }
}

/** Slurm nodes of `node`, sorted by name; a worker without a name source is an error (never skipped silently). */
export function slurmWorkersOf(node: V1Node, pods: readonly V1Pod[], s: SlurmSettings): WorkersResult {
  const out = new Map<string, SlurmWorker>();
  if (s.mode === 'node') {
    const name = nameOf(node, undefined, s);
    if (!name) return { ok: false, error: `node ${node.metadata?.name ?? ''} has no ${s.nameFrom} ${s.nameKey ?? ''} naming its Slurm node`.replace(/ {2}/g, ' ') };
    out.set(name, { slurmNode: name, source: `node ${node.metadata?.name ?? ''}` });
  } else {
    for (const pod of pods) {
      if (!s.podSelector || !matchesLabels(s.podSelector, pod.metadata?.labels)) continue;
      // Issue 31: a worker names the Slurm node kmaint drains, so only pods where tenants cannot create them count.
      if (s.workerNamespaces !== undefined && !s.workerNamespaces.includes(pod.metadata?.namespace ?? '')) continue;
      // A pod that has finished runs no slurmd any more.
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
      const name = nameOf(pod, pod.spec?.hostname, s);
      if (!name) return { ok: false, error: `Slurm worker pod ${key} has no ${s.nameFrom} ${s.nameKey ?? ''} naming its Slurm node`.replace(/ {2}/g, ' ') };
      if (!out.has(name)) out.set(name, { slurmNode: name, source: `pod ${key}`, pod });
    }
  }
  return { ok: true, workers: [...out.values()].sort((a, b) => (a.slurmNode < b.slurmNode ? -1 : a.slurmNode > b.slurmNode ? 1 : 0)) };
}
