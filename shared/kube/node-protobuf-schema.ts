// The protobuf messages of a node LIST that kmaint reads, as protobufjs reflection types. Field numbers are wire facts
// from k8s.io/api and k8s.io/apimachinery v0.35 generated.proto (node-protobuf-schema.test.ts checks each one against
// those files). Only what lean-nodes.ts keeps is declared: protobufjs skips every other field without materialising
// it, so a Node's images, capacity, addresses and nodeInfo — most of its bytes — cost a length skip, not objects.
// Built from a table rather than .proto text: no parser in the bundle, no .proto file to ship or fetch.
import protobuf from 'protobufjs/light.js';

/** The upstream package of each message, by the prefix of its name here. */
export const PROTO_PACKAGES = {
  core: 'k8s.io.api.core.v1',
  meta: 'k8s.io.apimachinery.pkg.apis.meta.v1',
  runtime: 'k8s.io.apimachinery.pkg.runtime',
} as const;

/** One field as protobufjs's JSON descriptor has it; `type` names a scalar or another message of NODE_LIST_MESSAGES. */
export interface FieldDecl {
  id: number;
  type: string;
  rule?: 'repeated';
  /** A map field: `map<keyType, type>`. */
  keyType?: 'string';
}

/** Each message: its upstream package and the fields declared (by JSON name, which is also the .proto name). */
export const NODE_LIST_MESSAGES: Record<string, { package: keyof typeof PROTO_PACKAGES; fields: Record<string, FieldDecl> }> = {
  // After the 4-byte magic `k8s\0`: typeMeta names the kind, raw holds the object's own bytes.
  Unknown: { package: 'runtime', fields: { typeMeta: { id: 1, type: 'TypeMeta' }, raw: { id: 2, type: 'bytes' }, contentEncoding: { id: 3, type: 'string' }, contentType: { id: 4, type: 'string' } } },
  TypeMeta: { package: 'runtime', fields: { apiVersion: { id: 1, type: 'string' }, kind: { id: 2, type: 'string' } } },
  NodeList: { package: 'core', fields: { metadata: { id: 1, type: 'ListMeta' }, items: { id: 2, type: 'Node', rule: 'repeated' } } },
  ListMeta: { package: 'meta', fields: { selfLink: { id: 1, type: 'string' }, resourceVersion: { id: 2, type: 'string' }, continue: { id: 3, type: 'string' }, remainingItemCount: { id: 4, type: 'int64' } } },
  Node: { package: 'core', fields: { metadata: { id: 1, type: 'ObjectMeta' }, spec: { id: 2, type: 'NodeSpec' }, status: { id: 3, type: 'NodeStatus' } } },
  // Every field lean-nodes.ts keeps of metadata, which is all of it but managedFields (only their owners of a cordon).
  ObjectMeta: {
    package: 'meta',
    fields: {
      name: { id: 1, type: 'string' },
      generateName: { id: 2, type: 'string' },
      namespace: { id: 3, type: 'string' },
      selfLink: { id: 4, type: 'string' },
      uid: { id: 5, type: 'string' },
      resourceVersion: { id: 6, type: 'string' },
      generation: { id: 7, type: 'int64' },
      creationTimestamp: { id: 8, type: 'Time' },
      deletionTimestamp: { id: 9, type: 'Time' },
      deletionGracePeriodSeconds: { id: 10, type: 'int64' },
      labels: { id: 11, type: 'string', keyType: 'string' },
      annotations: { id: 12, type: 'string', keyType: 'string' },
      ownerReferences: { id: 13, type: 'OwnerReference', rule: 'repeated' },
      finalizers: { id: 14, type: 'string', rule: 'repeated' },
      managedFields: { id: 17, type: 'ManagedFieldsEntry', rule: 'repeated' },
    },
  },
  OwnerReference: {
    package: 'meta',
    fields: { apiVersion: { id: 5, type: 'string' }, kind: { id: 1, type: 'string' }, name: { id: 3, type: 'string' }, uid: { id: 4, type: 'string' }, controller: { id: 6, type: 'bool' }, blockOwnerDeletion: { id: 7, type: 'bool' } },
  },
  // Of an entry only what unschedulable-owner.ts keeps; fieldsV1 is the JSON of the field set, as bytes.
  ManagedFieldsEntry: { package: 'meta', fields: { manager: { id: 1, type: 'string' }, operation: { id: 2, type: 'string' }, fieldsV1: { id: 7, type: 'FieldsV1' } } },
  FieldsV1: { package: 'meta', fields: { Raw: { id: 1, type: 'bytes' } } },
  // metav1.Time: seconds only; the API server drops nanos (time_proto.go), as its JSON does.
  Time: { package: 'meta', fields: { seconds: { id: 1, type: 'int64' } } },
  // The whole spec, which lean-nodes.ts keeps as the JSON has it.
  NodeSpec: {
    package: 'core',
    fields: {
      podCIDR: { id: 1, type: 'string' },
      podCIDRs: { id: 7, type: 'string', rule: 'repeated' },
      providerID: { id: 3, type: 'string' },
      unschedulable: { id: 4, type: 'bool' },
      taints: { id: 5, type: 'Taint', rule: 'repeated' },
      configSource: { id: 6, type: 'NodeConfigSource' },
      externalID: { id: 2, type: 'string' },
    },
  },
  Taint: { package: 'core', fields: { key: { id: 1, type: 'string' }, value: { id: 2, type: 'string' }, effect: { id: 3, type: 'string' }, timeAdded: { id: 4, type: 'Time' } } },
  NodeConfigSource: { package: 'core', fields: { configMap: { id: 2, type: 'ConfigMapNodeConfigSource' } } },
  ConfigMapNodeConfigSource: {
    package: 'core',
    fields: { namespace: { id: 1, type: 'string' }, name: { id: 2, type: 'string' }, uid: { id: 3, type: 'string' }, resourceVersion: { id: 4, type: 'string' }, kubeletConfigKey: { id: 5, type: 'string' } },
  },
  // Of the status only the conditions, and of nodeInfo only the boot ID (the reboot step, issue 43).
  NodeStatus: { package: 'core', fields: { conditions: { id: 4, type: 'NodeCondition', rule: 'repeated' }, nodeInfo: { id: 7, type: 'NodeSystemInfo' } } },
  NodeSystemInfo: { package: 'core', fields: { bootID: { id: 3, type: 'string' } } },
  NodeCondition: {
    package: 'core',
    fields: {
      type: { id: 1, type: 'string' },
      status: { id: 2, type: 'string' },
      lastHeartbeatTime: { id: 3, type: 'Time' },
      lastTransitionTime: { id: 4, type: 'Time' },
      reason: { id: 5, type: 'string' },
      message: { id: 6, type: 'string' },
    },
  },
  // An error answer (403, 410 Expired, 429) comes in the encoding asked for: what failureOf reads of it.
  Status: { package: 'meta', fields: { status: { id: 2, type: 'string' }, message: { id: 3, type: 'string' }, reason: { id: 4, type: 'string' }, code: { id: 6, type: 'int32' } } },
};

/** The protobufjs types of NODE_LIST_MESSAGES, resolved once (reflection; protobufjs generates each decoder on first use). */
export function nodeListRoot(): protobuf.Root {
  const nested = Object.fromEntries(Object.entries(NODE_LIST_MESSAGES).map(([name, m]) => [name, { edition: 'proto2', fields: m.fields }]));
  // A NodeList read only as far as its metadata (field 1): the items (field 2) are skipped, not decoded. Ours, not
  // upstream's: the continue token of a page before its Nodes are decoded (lean-nodes.ts).
  nested['NodeListHead'] = { edition: 'proto2', fields: { metadata: { id: 1, type: 'ListMeta' } } };
  const root = protobuf.Root.fromJSON({ nested });
  root.resolveAll();
  return root;
}
