// Every field node-protobuf-schema.ts declares, checked against the upstream generated.proto files in the Go module
// cache (the testbed's build fetches k8s.io/api and k8s.io/apimachinery v0.35.4): number, type, repeated or map.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { NODE_LIST_MESSAGES, PROTO_PACKAGES } from './node-protobuf-schema.ts';

const VERSION = 'v0.35.4';

function goModCache(): string | undefined {
  try {
    return execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const cache = goModCache();
const FILES = cache === undefined ? [] : [`k8s.io/api@${VERSION}/core/v1/generated.proto`, `k8s.io/apimachinery@${VERSION}/pkg/apis/meta/v1/generated.proto`, `k8s.io/apimachinery@${VERSION}/pkg/runtime/generated.proto`].map((f) => join(cache, f));
const present = FILES.length > 0 && FILES.every((f) => existsSync(f));
if (!present) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[node-protobuf-schema] NOT RUN: needs k8s.io/api and k8s.io/apimachinery ${VERSION} generated.proto in the Go module cache (go env GOMODCACHE; \`npm run testbed:build\` fetches them); counted as skipped\n`);
}

describe.skipIf(!present)(`node-protobuf-schema: field numbers against k8s.io generated.proto ${VERSION}`, () => {
  const upstream = new protobuf.Root();
  for (const f of FILES) protobuf.parse(readFileSync(f, 'utf8'), upstream, { keepCase: true });
  const declared = Object.entries(NODE_LIST_MESSAGES).flatMap(([message, m]) => Object.entries(m.fields).map(([field, d]) => ({ message, pkg: PROTO_PACKAGES[m.package], field, d })));

  it.each(declared)('$message.$field', ({ message, pkg, field, d }) => {
    const type = upstream.lookupType(`${pkg}.${message}`);
    const f = type.fields[field];
    expect(f, `${pkg}.${message} has no field ${field}`).toBeDefined();
    if (f === undefined) return;
    const lastSegment = (t: string): string => t.split('.').pop() ?? t;
    const keyType = f instanceof protobuf.MapField ? f.keyType : undefined;
    expect({ id: f.id, type: lastSegment(f.type), repeated: f.repeated && keyType === undefined, keyType }).toEqual({ id: d.id, type: d.type, repeated: d.rule === 'repeated', keyType: d.keyType });
  });
});
