// Pods made from a workload's template, and the template hash that names ReplicaSets and revisions.
import type { V1ObjectMeta, V1OwnerReference, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';

/** The alphabet of rand.SafeEncodeString: no vowels, no look-alike digits, so names never spell words. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted and undefined dropped: equal templates give equal text. */
export function stableJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * controller.ComputeHash's shape: FNV-1a 32 of the template (and the collision count), its decimal digits
 * mapped through the safe alphabet ("7685886477"-like hashes of 10 characters from 4-9, b, c, d, f).
 */
export function templateHash(template: V1PodTemplateSpec | undefined, collisionCount = 0): string {
  const text = `${stableJson(template ?? {})}${collisionCount > 0 ? `#${collisionCount}` : ''}`;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return [...String(hash >>> 0)].map((d) => SAFE_ALPHABET[d.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

export interface PodFromTemplate {
  namespace: string;
  /** Exact name (StatefulSet), or a generateName prefix the applier completes. */
  name?: string;
  generateName?: string;
  owner: V1OwnerReference;
  extraLabels?: Record<string, string>;
}

/** A pod as a workload controller creates it: the template's labels, annotations and spec, owned by the controller. */
export function podFromTemplate(template: V1PodTemplateSpec | undefined, opts: PodFromTemplate): V1Pod {
  const spec = structuredClone(template?.spec ?? { containers: [] });
  const metadata: V1ObjectMeta = {
    namespace: opts.namespace,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.generateName !== undefined ? { generateName: opts.generateName } : {}),
    labels: { ...template?.metadata?.labels, ...opts.extraLabels },
    ...(template?.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
    ownerReferences: [opts.owner],
  };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}
