// Maps an HTTP request to the verb it is (as the audit log names it) and answers it from the store.
import { errorMessage } from '../../shared/errors/index.ts';
import { bindPod } from './binding.ts';
import type { SimContext } from './context.ts';
import { deleteCollection, deleteObject, parseDeleteOptions } from './deletion.ts';
import { aggregatedDiscovery, AGGREGATED_CONTENT_TYPE, apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo, wantsAggregated } from './discovery.ts';
import { ApiError, badRequest, fieldErrors, invalid, methodNotAllowed, notFound, resourceNotFound, successStatus } from './errors.ts';
import { evictPod } from './eviction.ts';
import { parseJson, type Json, type JsonObject } from './json-value.ts';
import { apiVersionOf, type KindInfo } from './kinds.ts';
import { listBody, listObjects } from './list.ts';
import { openApiGroupVersion, openApiRoot } from './openapi.ts';
import type { ParsedPath } from './request-path.ts';
import { checkFieldLabels, parseFieldSelector, parseLabels, type ObjectFilter } from './selectors.ts';
import type { StoredObject } from './store.ts';
import { toTable, type IncludeObject } from './table.ts';
import { startWatch, type WatchSink } from './watch.ts';
import { createObject, patchObject, updateObject, type FieldValidation, type WriteResult } from './writes.ts';

export interface ApiRequest {
  method: string;
  url: URL;
  accept: string | undefined;
  contentType: string | undefined;
  body: string;
  /** host:port the client used, for /api's serverAddressByClientCIDRs. */
  host: string;
}

export interface RequestInfo {
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export type Reply =
  | { type: 'body'; code: number; pieces: string[]; contentType: string; headers?: Record<string, string | string[]> }
  | { type: 'watch'; contentType: string; start: (sink: WatchSink) => () => void };

const JSON_TYPE = 'application/json';

function isWatch(query: URLSearchParams): boolean {
  const w = query.get('watch');
  return w === 'true' || w === '1';
}

/** The audit-log view of a request: verb, resource (with subresource), namespace, name. */
export function describeRequest(method: string, parsed: ParsedPath, query: URLSearchParams): RequestInfo {
  if (parsed.type !== 'resource') return { verb: method.toLowerCase(), resource: '' };
  const info: RequestInfo = { verb: 'get', resource: parsed.subresource ? `${parsed.resource}/${parsed.subresource}` : parsed.resource };
  if (parsed.subresource) info.subresource = parsed.subresource;
  if (parsed.namespace !== undefined) info.namespace = parsed.namespace;
  else if (parsed.resource === 'namespaces' && parsed.name) info.namespace = parsed.name;
  if (parsed.name !== undefined) info.name = parsed.name;
  switch (method) {
    case 'GET':
      info.verb = parsed.legacyWatch || isWatch(query) ? 'watch' : parsed.name ? 'get' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = parsed.name ? 'delete' : 'deletecollection';
      break;
    default:
      info.verb = method.toLowerCase();
  }
  return info;
}

function json(code: number, value: unknown, contentType = JSON_TYPE): Reply {
  return { type: 'body', code, pieces: [JSON.stringify(value)], contentType };
}

function text(code: number, body: string): Reply {
  return { type: 'body', code, pieces: [body], contentType: JSON_TYPE };
}

export function discoveryReply(ctx: SimContext, req: ApiRequest, parsed: ParsedPath): Reply {
  const kinds = ctx.kinds.all();
  switch (parsed.type) {
    case 'root':
      return json(200, { paths: ['/api', '/api/v1', '/apis', ...new Set(kinds.filter((k) => k.group).map((k) => `/apis/${k.group}/${k.version}`)), '/healthz', '/livez', '/readyz', '/version'] });
    case 'version':
      return json(200, versionInfo());
    case 'openapi': {
      if (parsed.path === 'v3') return json(200, openApiRoot(kinds));
      const doc = parsed.path.startsWith('v3/') ? openApiGroupVersion(kinds, parsed.path.slice(3)) : undefined;
      if (!doc) throw resourceNotFound();
      return json(200, doc);
    }
    case 'health':
      return { type: 'body', code: 200, pieces: ['ok'], contentType: 'text/plain; charset=utf-8' };
    case 'api':
      return wantsAggregated(req.accept) ? json(200, aggregatedDiscovery(kinds, true), AGGREGATED_CONTENT_TYPE) : json(200, apiVersions(req.host));
    case 'apis':
      return wantsAggregated(req.accept) ? json(200, aggregatedDiscovery(kinds, false), AGGREGATED_CONTENT_TYPE) : json(200, apiGroupList(kinds));
    case 'group': {
      const g = apiGroup(kinds, parsed.group);
      if (!g) throw resourceNotFound();
      return json(200, g);
    }
    case 'groupVersion': {
      const list = apiResourceList(kinds, parsed.group, parsed.version);
      if (!list) throw resourceNotFound();
      return json(200, list);
    }
    default:
      throw resourceNotFound();
  }
}

function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((p) => p.includes('as=Table') && p.includes('g=meta.k8s.io'));
}

function filterFrom(kind: KindInfo, namespace: string | undefined, query: URLSearchParams): ObjectFilter {
  const fields = parseFieldSelector(query.get('fieldSelector'));
  checkFieldLabels(kind, fields);
  return { namespace: kind.namespaced ? namespace : undefined, labels: parseLabels(query.get('labelSelector')), fields };
}

function tableOptions(ctx: SimContext, query: URLSearchParams, listMeta: { resourceVersion: string; continue?: string; remainingItemCount?: number }) {
  const include = query.get('includeObject');
  const includeObject: IncludeObject = include === 'Object' || include === 'None' ? include : 'Metadata';
  return { now: ctx.clock.now(), includeObject, noHeaders: false, listMeta };
}

function objectReply(ctx: SimContext, kind: KindInfo, req: ApiRequest, code: number, jsonText: string): Reply {
  if (!wantsTable(req.accept)) return text(code, jsonText);
  const obj = JSON.parse(jsonText) as JsonObject;
  const rv = String((obj['metadata'] as JsonObject | undefined)?.['resourceVersion'] ?? '');
  return json(code, toTable(kind, [obj], tableOptions(ctx, req.url.searchParams, { resourceVersion: rv })));
}

function writeReply(ctx: SimContext, kind: KindInfo, req: ApiRequest, code: number, result: WriteResult): Reply {
  const reply = objectReply(ctx, kind, req, code, result.stored?.json ?? JSON.stringify(result.object));
  // One Warning header per text, as the API server sends them (299 = miscellaneous persistent warning).
  if (reply.type === 'body' && result.warnings) reply.headers = { ...reply.headers, Warning: result.warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
  return reply;
}

const FIELD_VALIDATION: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/** The fieldValidation query parameter of a create, update or patch; absent means Warn, as on the API server. */
function fieldValidation(method: string, query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  const found = FIELD_VALIDATION.find((f) => f === v);
  if (!found) {
    const options = method === 'POST' ? 'CreateOptions' : method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
    throw invalid(options, 'meta.k8s.io', '', [fieldErrors.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])]);
  }
  return found;
}

function body(req: ApiRequest): Json | undefined {
  try {
    return parseJson(req.body);
  } catch (err) {
    throw badRequest(`the request body is not valid JSON: ${errorMessage(err)}`);
  }
}

function listReply(ctx: SimContext, kind: KindInfo, req: ApiRequest, namespace: string | undefined): Reply {
  const query = req.url.searchParams;
  const filter = filterFrom(kind, namespace, query);
  const limit = query.get('limit');
  const cont = query.get('continue');
  const page = listObjects(ctx, kind, { filter, ...(limit ? { limit: Number(limit) } : {}), ...(cont ? { continueToken: cont } : {}) });
  if (!wantsTable(req.accept)) return { type: 'body', code: 200, pieces: listBody(kind, page), contentType: JSON_TYPE };
  const objects = page.items.map((o) => JSON.parse(o.json) as JsonObject);
  const listMeta = {
    resourceVersion: String(page.resourceVersion),
    ...(page.continueToken ? { continue: page.continueToken } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
  return json(200, toTable(kind, objects, tableOptions(ctx, query, listMeta)));
}

function watchReply(ctx: SimContext, kind: KindInfo, req: ApiRequest, namespace: string | undefined, nameFromPath: string | undefined): Reply {
  const query = req.url.searchParams;
  const filter = filterFrom(kind, namespace, query);
  const byName = nameFromPath !== undefined ? { ...filter, fields: [...filter.fields, { field: 'metadata.name', negate: false, value: nameFromPath }] } : filter;
  const table = wantsTable(req.accept);
  const render = (o: StoredObject, first: boolean): string => {
    if (!table) return o.json;
    const t = toTable(kind, [JSON.parse(o.json) as JsonObject], tableOptions(ctx, query, { resourceVersion: String(o.resourceVersion) }));
    if (!first) delete t['columnDefinitions'];
    return JSON.stringify(t);
  };
  const timeout = query.get('timeoutSeconds');
  return {
    type: 'watch',
    contentType: JSON_TYPE,
    start: (sink) =>
      startWatch(
        ctx,
        {
          kind,
          filter: byName,
          resourceVersion: query.get('resourceVersion') ?? undefined,
          sendInitialEvents: query.get('sendInitialEvents') === 'true',
          allowBookmarks: query.get('allowWatchBookmarks') === 'true',
          timeoutSeconds: timeout !== null ? Number(timeout) : undefined,
          render,
        },
        sink,
      ),
  };
}

function dryRun(query: URLSearchParams): boolean {
  return query.getAll('dryRun').includes('All');
}

/** Answers a resource request; ApiErrors thrown here become Status replies. */
export function resourceReply(ctx: SimContext, req: ApiRequest, parsed: Extract<ParsedPath, { type: 'resource' }>): Reply {
  const kind = ctx.kinds.lookup(parsed.group, parsed.version, parsed.resource);
  if (!kind || (!kind.namespaced && parsed.namespace !== undefined)) throw resourceNotFound();
  const query = req.url.searchParams;
  const ns = kind.namespaced ? parsed.namespace : undefined;
  const nsOrEmpty = ns ?? '';
  const { name, subresource } = parsed;
  const sub = subresource ?? '';
  if (sub && !kind.subresources.some((s) => s.name === sub)) throw resourceNotFound();
  if (parsed.legacyWatch || (req.method === 'GET' && isWatch(query))) {
    if (req.method !== 'GET') throw methodNotAllowed();
    return watchReply(ctx, kind, req, ns, name);
  }
  if (kind.namespaced && name !== undefined && ns === undefined) throw resourceNotFound();
  // Namespaced objects are created through their namespace's path only.
  if (kind.namespaced && ns === undefined && req.method === 'POST') throw methodNotAllowed();
  const opts = { dryRun: dryRun(query), ...(['POST', 'PUT', 'PATCH'].includes(req.method) ? { fieldValidation: fieldValidation(req.method, query) } : {}) };
  switch (req.method) {
    case 'GET': {
      if (!name) return listReply(ctx, kind, req, ns);
      if (sub && sub !== 'status') throw methodNotAllowed();
      const stored = ctx.store.get(kind, nsOrEmpty, name);
      if (!stored) throw notFound({ group: kind.group, resource: kind.resource }, name);
      return objectReply(ctx, kind, req, 200, stored.json);
    }
    case 'POST': {
      if (!name) return writeReply(ctx, kind, req, 201, createObject(ctx, kind, nsOrEmpty, body(req), opts));
      if (sub === 'eviction') {
        evictPod(ctx, nsOrEmpty, name, body(req));
        return json(201, successStatus(201));
      }
      if (sub === 'binding') {
        bindPod(ctx, nsOrEmpty, name, body(req));
        return json(201, successStatus(201));
      }
      throw methodNotAllowed();
    }
    case 'PUT':
      if (!name || (sub && sub !== 'status')) throw methodNotAllowed();
      return writeReply(ctx, kind, req, 200, updateObject(ctx, kind, nsOrEmpty, name, body(req), sub === 'status' ? 'status' : '', opts));
    case 'PATCH':
      if (!name || (sub && sub !== 'status')) throw methodNotAllowed();
      return writeReply(ctx, kind, req, 200, patchObject(ctx, kind, nsOrEmpty, name, req.contentType ?? '', body(req), sub === 'status' ? 'status' : '', opts));
    case 'DELETE': {
      if (sub) throw methodNotAllowed();
      const options = { ...parseDeleteOptions(body(req), query), ...(opts.dryRun ? { dryRun: true } : {}) };
      if (!name) {
        const items = deleteCollection(ctx, kind, filterFrom(kind, ns, query), options);
        return json(200, { kind: kind.listKind, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(ctx.store.resourceVersion) }, items });
      }
      const result = deleteObject(ctx, kind, nsOrEmpty, name, options);
      if (result.deleted && !kind.returnsDeletedObject) {
        return json(200, successStatus(undefined, { name, ...(kind.group ? { group: kind.group } : {}), kind: kind.resource, uid: String((result.object['metadata'] as JsonObject | undefined)?.['uid'] ?? '') }));
      }
      return objectReply(ctx, kind, req, 200, JSON.stringify(result.object));
    }
    default:
      throw methodNotAllowed();
  }
}

export function errorReply(err: ApiError): Reply {
  const headers: Record<string, string> = {};
  const retry = err.status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) headers['Retry-After'] = String(retry);
  return { type: 'body', code: err.code, pieces: [JSON.stringify(err.status)], contentType: JSON_TYPE, headers };
}
