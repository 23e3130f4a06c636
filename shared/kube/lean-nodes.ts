// LIST nodes without client-node's typed deserialisation: a scheduler pass over 5,000 nodes reads ~34 MB of
// JSON, and ObjectSerializer copied every field of it (managedFields, images, addresses) into new objects that
// kmaint never reads. Nodes come back with what kmaint uses — metadata without managedFields, the whole spec,
// status.conditions — with the date fields it keeps turned into Dates, as V1Node declares them.
import { ApiException, HttpInfo, type ResponseContext, type V1Node, type V1NodeCondition, type V1NodeList } from '@kubernetes/client-node';
import { CoreV1ApiResponseProcessor } from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import { withDeferredItems } from './deferred-items.ts';
import { listMetadataFromHead } from './list-head.ts';
import { bootInfo, decodeNodeListHeadProtobuf, decodeNodeListProtobuf, decodeStatusProtobuf, PROTOBUF_MEDIA_TYPE } from './node-protobuf.ts';
import { StringPool } from './string-pool.ts';
import { unschedulableOwnersMeta } from './unschedulable-owner.ts';

interface RawCondition extends Omit<V1NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'> {
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

interface RawNode {
  metadata?: Record<string, unknown> & { creationTimestamp?: string; deletionTimestamp?: string; managedFields?: unknown };
  spec?: V1Node['spec'];
  status?: { conditions?: RawCondition[]; nodeInfo?: { bootID?: string } };
}

function pooled(rec: unknown, pool: StringPool | undefined): Record<string, string> | undefined {
  if (rec === undefined || rec === null || typeof rec !== 'object') return undefined;
  return pool ? pool.internValues(rec as Record<string, string>) : (rec as Record<string, string>);
}

/**
 * The part of a Node kmaint reads, typed as V1Node; with `pool`, label and annotation values, the conditions' words and
 * every Date (creation, deletion, the conditions' times) are the pool's copies, shared with the page's other nodes
 * (string-pool.ts). Exported for its unit test.
 */
export function leanNode(raw: RawNode, pool?: StringPool): V1Node {
  const { managedFields, creationTimestamp, deletionTimestamp, labels, annotations, ...metadata } = raw.metadata ?? {};
  const word = (s: string): string => (pool === undefined ? s : pool.intern(s));
  const date = (s: string): Date => (pool === undefined ? new Date(s) : pool.instant(s));
  const pooledLabels = pooled(labels, pool);
  const pooledAnnotations = pooled(annotations, pool);
  const node: V1Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      ...metadata,
      ...unschedulableOwnersMeta(managedFields),
      ...(pooledLabels !== undefined ? { labels: pooledLabels } : {}),
      ...(pooledAnnotations !== undefined ? { annotations: pooledAnnotations } : {}),
      ...(creationTimestamp !== undefined ? { creationTimestamp: date(creationTimestamp) } : {}),
      ...(deletionTimestamp !== undefined ? { deletionTimestamp: date(deletionTimestamp) } : {}),
    },
  };
  if (raw.spec !== undefined) node.spec = raw.spec;
  const conditions = raw.status?.conditions;
  if (conditions !== undefined) {
    node.status = {
      conditions: conditions.map(({ lastHeartbeatTime, lastTransitionTime, type, status, reason, message, ...rest }) => ({
        ...rest,
        type: word(type),
        status: word(status),
        ...(reason !== undefined ? { reason: word(reason) } : {}),
        ...(message !== undefined ? { message: word(message) } : {}),
        ...(lastHeartbeatTime !== undefined ? { lastHeartbeatTime: date(lastHeartbeatTime) } : {}),
        ...(lastTransitionTime !== undefined ? { lastTransitionTime: date(lastTransitionTime) } : {}),
      })),
    };
  }
  const bootID = raw.status?.nodeInfo?.bootID;
  if (bootID) node.status = { ...node.status, nodeInfo: bootInfo(bootID) };
  return node;
}

/** The body's bytes. Read from its stream: client-node's fetch body has no working binary() (undici has no resp.buffer()). */
async function bodyBytes(response: ResponseContext): Promise<Buffer> {
  const stream = response.body.stream();
  if (stream === null) return Buffer.from(await response.body.binary());
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A node LIST answered in protobuf (node-list-encoding.ts asks for it): the same lean Nodes, or its error as JSON's would read. */
async function protobufNodeList(response: ResponseContext): Promise<HttpInfo<V1NodeList>> {
  const body = await bodyBytes(response);
  if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
    const status = decodeStatusProtobuf(body);
    throw new ApiException(response.httpStatusCode, status.message ?? 'LIST nodes failed', status, response.headers);
  }
  // As for JSON below: the continue token first (the Nodes skipped), the Nodes when first read.
  const metadata = decodeNodeListHeadProtobuf(body);
  const list = withDeferredItems<V1NodeList>({ apiVersion: 'v1', kind: 'NodeList', metadata }, () => decodeNodeListProtobuf(body, new StringPool()).items);
  return new HttpInfo(response.httpStatusCode, response.headers, response.body, list);
}

/** client-node's CoreV1 response processor with LIST nodes answered by `leanNode`; everything else unchanged. */
export class LeanNodeListProcessor extends CoreV1ApiResponseProcessor {
  override async listNodeWithHttpInfo(response: ResponseContext): Promise<HttpInfo<V1NodeList>> {
    if (response.headers['content-type']?.startsWith(PROTOBUF_MEDIA_TYPE)) return protobufNodeList(response);
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) return super.listNodeWithHttpInfo(response);
    const text = await response.body.text();
    // The continue token from the head, the nodes when first read: the client asks for the next page in between.
    const head = listMetadataFromHead(text) as V1NodeList['metadata'];
    const list = head === undefined ? leanNodeList(text, response) : withDeferredItems<V1NodeList>({ apiVersion: 'v1', kind: 'NodeList', metadata: head }, () => leanNodeList(text, response, head).items);
    return new HttpInfo(response.httpStatusCode, response.headers, response.body, list);
  }
}

/** A JSON NodeList answer decoded; with `head`, the metadata read from its head, which the whole text must agree with. */
function leanNodeList(text: string, response: ResponseContext, head?: V1NodeList['metadata']): V1NodeList {
  const raw = JSON.parse(text) as { metadata?: V1NodeList['metadata'] & { continue?: string }; items?: RawNode[] };
  if (!Array.isArray(raw.items)) throw new ApiException(response.httpStatusCode, 'LIST nodes: the response has no items', raw, response.headers);
  // A second `metadata` key after the first (JSON.parse keeps the last): the next page was asked with a token this page does not carry.
  const said = head as (V1NodeList['metadata'] & { continue?: string }) | undefined;
  if (said !== undefined && (raw.metadata?.continue !== said.continue || raw.metadata?.resourceVersion !== said.resourceVersion)) {
    throw new ApiException(response.httpStatusCode, 'LIST nodes: the metadata at the head of the response is not its metadata', raw.metadata, response.headers);
  }
  // One pool a page: the copies a page shares go with it, so a long-running process holds no table between LISTs.
  const pool = new StringPool();
  return { apiVersion: 'v1', kind: 'NodeList', items: raw.items.map((n) => leanNode(n, pool)), ...(raw.metadata ? { metadata: raw.metadata } : {}) };
}
