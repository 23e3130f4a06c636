// Which encoding a node LIST (full or by name) asks the API server for. Protobuf by default: the API server serializes
// a node LIST as protobuf for about 0.4x the CPU of JSON (docs/large-clusters.md, "Page size, compression and
// protobuf"), and its CPU is what every client of the cluster shares. The answer
// is decoded by its Content-Type, so a server that answers JSON anyway (the embedded sim, an aggregated server) works.
// Only node LISTs: the other kinds are small, or custom resources, which the API server serves only as JSON.
import { setHeaderOptions } from '@kubernetes/client-node';
import { KubeConfigError } from './kubeconfig.ts';
import { PROTOBUF_MEDIA_TYPE } from './node-protobuf.ts';

/** "protobuf" or "json"; unset is protobuf. */
export const NODE_LIST_ENCODING_ENV = 'KMAINT_NODE_LIST_ENCODING';

export type NodeListEncoding = 'protobuf' | 'json';

/** The Accept of a node LIST asking for protobuf: JSON stays acceptable for servers that have no protobuf. */
export const NODE_LIST_ACCEPT_PROTOBUF = `${PROTOBUF_MEDIA_TYPE}, application/json`;

/** The value of KMAINT_NODE_LIST_ENCODING in `env`; anything but protobuf/json (or unset/empty) is refused, not guessed. */
export function nodeListEncodingFrom(env: Readonly<Record<string, string | undefined>>): NodeListEncoding {
  const raw = env[NODE_LIST_ENCODING_ENV]?.trim().toLowerCase() ?? '';
  if (raw === '' || raw === 'protobuf') return 'protobuf';
  if (raw === 'json') return 'json';
  throw new KubeConfigError(`${NODE_LIST_ENCODING_ENV} must be "protobuf" or "json", got "${env[NODE_LIST_ENCODING_ENV] ?? ''}"`);
}

type RequestOptions = ReturnType<typeof setHeaderOptions>;

/** A node LIST's request options: every LIST's (`listOptions`: Accept-Encoding), with the Accept of `encoding`. */
export function nodeListOptions(listOptions: RequestOptions, encoding: NodeListEncoding): RequestOptions {
  // JSON: client-node's own Accept ("application/json, */*;q=0.8"), as before protobuf was asked.
  return encoding === 'protobuf' ? setHeaderOptions('Accept', NODE_LIST_ACCEPT_PROTOBUF, listOptions) : listOptions;
}
