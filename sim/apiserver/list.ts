// LIST: objects in key order, filtered, paged with limit/continue, pods of one node read from the node index;
// list bodies are assembled from the stored JSON text without parsing it.
import { errorMessage } from '../../shared/errors/index.ts';
import type { SimContext } from './context.ts';
import { badRequest } from './errors.ts';
import { apiVersionOf, type KindInfo } from './kinds.ts';
import { matchesFilter, nodeNameEquality, type ObjectFilter } from './selectors.ts';
import { lowerBound, type StoredObject } from './store.ts';

export interface ListQuery {
  filter: ObjectFilter;
  limit?: number;
  continueToken?: string;
}

export interface ListPage {
  items: StoredObject[];
  resourceVersion: number;
  continueToken?: string;
  /** Only when nothing but a namespace narrows the list, as the real server reports it. */
  remainingItemCount?: number;
}

interface ContinueState {
  v: string;
  rv: number;
  start: string;
}

function encodeContinue(state: ContinueState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function decodeContinue(token: string): ContinueState {
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err) {
    throw badRequest(`invalid continue token: continue key is not valid: ${errorMessage(err)}`);
  }
  const s = state as Partial<ContinueState> | null;
  if (!s || typeof s.start !== 'string' || typeof s.rv !== 'number' || s.v !== 'meta.k8s.io/v1') throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return s as ContinueState;
}

/**
 * Candidate keys in order, every one an object: one node's pods from the node index, the objects with a label a
 * selector requires from the label index, one namespace's keys from the namespace index, or everything.
 */
function candidateKeys(ctx: SimContext, kind: KindInfo, filter: ObjectFilter, from: string): { keys: readonly string[]; start: number } {
  const c = ctx.store.collection(kind);
  const node = nodeNameEquality(filter);
  if (node !== undefined && c.byNode) {
    const keys = [...(c.byNode.get(node) ?? [])].sort();
    let start = 0;
    while (start < keys.length && (keys[start] as string) < from) start++;
    return { keys, start };
  }
  const label = labelEquality(filter);
  if (label !== undefined) {
    // Every match carries the label: its index holds them all (and some the other terms drop).
    const keys = [...c.keysWithLabel(label.key, label.value)].sort();
    return { keys, start: lowerBound(keys, from) };
  }
  const keys = filter.namespace !== undefined && kind.namespaced ? c.keysInNamespace(filter.namespace) : c.keysInOrder();
  return { keys, start: lowerBound(keys, from) };
}

/** A label the selector requires to have one value (`k=v`, `k==v`, `k in (v)`): the first such, if any. */
function labelEquality(filter: ObjectFilter): { key: string; value: string } | undefined {
  for (const r of filter.labels.requirements) {
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return { key: r.key, value: r.values[0] as string };
  }
  return undefined;
}

export function listObjects(ctx: SimContext, kind: KindInfo, query: ListQuery): ListPage {
  const c = ctx.store.collection(kind);
  const state = query.continueToken ? decodeContinue(query.continueToken) : undefined;
  const resourceVersion = state?.rv ?? ctx.store.resourceVersion;
  const { keys, start } = candidateKeys(ctx, kind, query.filter, state?.start ?? '');
  const limit = query.limit !== undefined && query.limit > 0 ? query.limit : Infinity;
  const unfiltered = query.filter.labels.requirements.length === 0 && query.filter.fields.length === 0;
  const items: StoredObject[] = [];
  let i = start;
  for (; i < keys.length; i++) {
    const o = c.objects.get(keys[i] as string);
    if (!o || !matchesFilter(kind, query.filter, o)) continue;
    if (items.length === limit) break;
    items.push(o);
  }
  const page: ListPage = { items, resourceVersion };
  if (i < keys.length && items.length === limit) {
    const last = items[items.length - 1] as StoredObject;
    page.continueToken = encodeContinue({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: `${last.key}\u0000` });
    // Every candidate key is an object: count the rest by position.
    if (unfiltered) page.remainingItemCount = keys.length - i;
  }
  return page;
}

/** The list body as text pieces (a 150,000-pod list is written piecewise, never as one string). */
export function listBody(kind: KindInfo, page: ListPage): string[] {
  const metaParts = [`"resourceVersion":"${page.resourceVersion}"`];
  if (page.continueToken) metaParts.push(`"continue":"${page.continueToken}"`);
  if (page.remainingItemCount !== undefined) metaParts.push(`"remainingItemCount":${page.remainingItemCount}`);
  const head = kind.custom
    ? `{"apiVersion":"${apiVersionOf(kind)}","items":[`
    : `{"kind":"${kind.listKind}","apiVersion":"${apiVersionOf(kind)}","metadata":{${metaParts.join(',')}},"items":[`;
  // Custom resource lists are unstructured: keys in Go map order, and `continue` always present.
  const customMeta = [`"continue":"${page.continueToken ?? ''}"`];
  if (page.remainingItemCount !== undefined) customMeta.push(`"remainingItemCount":${page.remainingItemCount}`);
  customMeta.push(`"resourceVersion":"${page.resourceVersion}"`);
  const tail = kind.custom ? `],"kind":"${kind.listKind}","metadata":{${customMeta.join(',')}}}` : ']}';
  const pieces: string[] = [head];
  const chunk: string[] = [];
  for (let i = 0; i < page.items.length; i++) {
    chunk.push((page.items[i] as StoredObject).json);
    if (chunk.length === 500) {
      pieces.push((i >= 500 ? ',' : '') + chunk.join(','));
      chunk.length = 0;
    }
  }
  if (chunk.length > 0) pieces.push((page.items.length > chunk.length ? ',' : '') + chunk.join(','));
  pieces.push(tail);
  return pieces;
}
