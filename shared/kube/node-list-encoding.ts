// Which encoding a node LIST (full or by name) asks the API server for. Protobuf by default: at 10,000 nodes the API
// server spent 0.6 s of CPU on kmaint's node LIST in protobuf against 1.6 s in JSON, for 0.15 s more of kmaint's CPU
// and 55 MiB less of its peak RSS (docs/large-clusters.md, "Page size, compression and protobuf"); the API server's
// CPU is what every client of the cluster shares. The answer is decoded by its Content-Type, so a server that
// answers JSON anyway (the embedded sim, an aggregated server) works. Only node LISTs: custom resources have no
// protobuf encoding, and the pod LISTs would need a decoder of their own.
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
