// Parses Kubernetes API paths: discovery paths, and /api/v1|/apis/{g}/{v} [/watch] [/namespaces/{ns}] /{resource}
// [/{name} [/{subresource}]].

export type ParsedPath =
  | { type: 'root' }
  | { type: 'version' }
  | { type: 'health' }
  | { type: 'openapi'; path: string }
  | { type: 'api' }
  | { type: 'apis' }
  | { type: 'group'; group: string }
  | { type: 'groupVersion'; group: string; version: string }
  | {
      type: 'resource';
      group: string;
      version: string;
      resource: string;
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
      /** The deprecated /watch/ prefix form. */
      legacyWatch: boolean;
    }
  | { type: 'unknown' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parsePath(pathname: string): ParsedPath {
  let segs: string[];
  try {
    segs = pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
  } catch {
    return { type: 'unknown' };
  }
  const [head] = segs;
  if (head === undefined) return { type: 'root' };
  if (head === 'version' && segs.length === 1) return { type: 'version' };
  if (head === 'healthz' || head === 'livez' || head === 'readyz') return { type: 'health' };
  if (head === 'openapi') return { type: 'openapi', path: segs.slice(1).join('/') };
  let group: string;
  let version: string;
  let rest: string[];
  if (head === 'api') {
    if (segs.length === 1) return { type: 'api' };
    if (segs[1] !== 'v1') return { type: 'unknown' };
    group = '';
    version = 'v1';
    rest = segs.slice(2);
  } else if (head === 'apis') {
    if (segs.length === 1) return { type: 'apis' };
    group = segs[1] as string;
    if (segs.length === 2) return { type: 'group', group };
    version = segs[2] as string;
    rest = segs.slice(3);
  } else {
    return { type: 'unknown' };
  }
  if (rest.length === 0) return { type: 'groupVersion', group, version };
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2] as string))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return { type: 'unknown' };
  return { type: 'resource', group, version, resource: rest[0] as string, namespace, name: rest[1], subresource: rest[2], legacyWatch };
}
