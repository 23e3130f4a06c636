// Just enough OpenAPI v3 for kubectl create/apply: per group-version documents whose PATCH operations carry
// x-kubernetes-group-version-kind and the fieldValidation parameter, so kubectl relies on server-side
// validation instead of downloading schemas. No schemas are served.
import type { JsonObject } from './json-value.ts';
import { apiVersionOf, type KindInfo } from './kinds.ts';

function gvPath(k: Pick<KindInfo, 'group' | 'version'>): string {
  return k.group ? `apis/${k.group}/${k.version}` : 'api/v1';
}

/** GET /openapi/v3: one entry per served group-version. */
export function openApiRoot(kinds: readonly KindInfo[]): JsonObject {
  const paths: JsonObject = {};
  for (const k of kinds) paths[gvPath(k)] = { serverRelativeURL: `/openapi/v3/${gvPath(k)}?hash=kmaint-sim` };
  return { paths };
}

const FIELD_VALIDATION = { name: 'fieldValidation', in: 'query', description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.', schema: { type: 'string', uniqueItems: true } };

/** GET /openapi/v3/api/v1 or /openapi/v3/apis/{group}/{version}; undefined when nothing is served there. */
export function openApiGroupVersion(kinds: readonly KindInfo[], path: string): JsonObject | undefined {
  const served = kinds.filter((k) => gvPath(k) === path);
  if (served.length === 0) return undefined;
  const paths: JsonObject = {};
  for (const k of served) {
    const base = `/${gvPath(k)}${k.namespaced ? '/namespaces/{namespace}' : ''}/${k.resource}`;
    const gvk = { group: k.group, version: k.version, kind: k.kind };
    const op = (action: string): JsonObject => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, parameters: [FIELD_VALIDATION], responses: {} });
    paths[base] = { post: op('post') };
    paths[`${base}/{name}`] = { put: op('put'), patch: op('patch') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.35.4' },
    paths,
    components: { schemas: {} },
    'x-kmaint-sim': { groupVersion: apiVersionOf(served[0] as KindInfo) },
  };
}
