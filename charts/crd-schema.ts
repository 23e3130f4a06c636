// The digest each kmaint CRD carries as annotation kmaint.io/crd-schema: the chart compares it with the cluster's copy
// (templates/_helpers.tpl, kmaint.checkCrds) because Helm never updates CRDs it finds in place.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

export const CRD_SCHEMA_ANNOTATION = 'kmaint.io/crd-schema';

/** Object keys sorted at every level, so the digest does not depend on how the YAML is laid out. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** sha256 of the CRD's `spec` as canonical JSON, first 16 hex digits. */
export function crdSchemaDigest(crdYaml: string): string {
  const doc = parse(crdYaml) as { spec?: unknown };
  return createHash('sha256').update(JSON.stringify(canonical(doc.spec))).digest('hex').slice(0, 16);
}

/** The file with its annotation set to the digest of its spec (the line below `metadata:`). */
export function withDigest(crdYaml: string): string {
  const line = `    ${CRD_SCHEMA_ANNOTATION}: "${crdSchemaDigest(crdYaml)}"`;
  if (crdYaml.includes(`${CRD_SCHEMA_ANNOTATION}:`)) return crdYaml.replace(new RegExp(`^ {4}${CRD_SCHEMA_ANNOTATION.replace(/[.]/g, '\\.')}: .*$`, 'm'), line);
  return crdYaml.replace(/^metadata:\n/m, `metadata:\n  annotations:\n    # Digest of spec below; after changing it run: npx tsx charts/crd-schema.ts crds/*.yaml\n${line}\n`);
}

// `npx tsx charts/crd-schema.ts crds/x.yaml ...`: rewrites each file's annotation (then copy crds/ to charts/kmaint/crds/).
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) writeFileSync(file, withDigest(readFileSync(file, 'utf8')));
}
