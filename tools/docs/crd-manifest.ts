// A CustomResourceDefinition manifest as the reference generator reads it: strict schemas, so a schema keyword the
// generator does not render (a new validation, say) stops it instead of vanishing from the docs.
import { parse } from 'yaml';
import { z } from 'zod';

/** One node of an OpenAPI v3 structural schema, with the keywords kmaint's CRDs use. */
export interface SchemaNode {
  type?: string | undefined;
  description?: string | undefined;
  properties?: Record<string, SchemaNode> | undefined;
  items?: SchemaNode | undefined;
  additionalProperties?: SchemaNode | undefined;
  required?: string[] | undefined;
  enum?: unknown[] | undefined;
  default?: unknown;
  example?: unknown;
  format?: string | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  minLength?: number | undefined;
  maxLength?: number | undefined;
  minItems?: number | undefined;
  maxItems?: number | undefined;
  pattern?: string | undefined;
  anyOf?: SchemaNode[] | undefined;
  'x-kubernetes-int-or-string'?: boolean | undefined;
  'x-kubernetes-validations'?: { rule: string; message?: string | undefined }[] | undefined;
  'x-kubernetes-list-type'?: string | undefined;
  'x-kubernetes-list-map-keys'?: string[] | undefined;
}

const schemaNode: z.ZodType<SchemaNode> = z.lazy(() =>
  z.strictObject({
    type: z.string().optional(),
    description: z.string().optional(),
    properties: z.record(z.string(), schemaNode).optional(),
    items: schemaNode.optional(),
    additionalProperties: schemaNode.optional(),
    required: z.array(z.string()).optional(),
    enum: z.array(z.unknown()).optional(),
    default: z.unknown().optional(),
    example: z.unknown().optional(),
    format: z.string().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    minItems: z.number().optional(),
    maxItems: z.number().optional(),
    pattern: z.string().optional(),
    anyOf: z.array(schemaNode).optional(),
    'x-kubernetes-int-or-string': z.boolean().optional(),
    'x-kubernetes-validations': z.array(z.strictObject({ rule: z.string(), message: z.string().optional() })).optional(),
    'x-kubernetes-list-type': z.string().optional(),
    'x-kubernetes-list-map-keys': z.array(z.string()).optional(),
  }),
);

const crdManifest = z.object({
  kind: z.literal('CustomResourceDefinition'),
  spec: z.object({
    group: z.string(),
    names: z.object({ kind: z.string(), plural: z.string(), shortNames: z.array(z.string()).optional() }),
    scope: z.enum(['Namespaced', 'Cluster']),
    versions: z
      .array(
        z.object({
          name: z.string(),
          additionalPrinterColumns: z.array(z.object({ name: z.string(), jsonPath: z.string() })).optional(),
          schema: z.object({ openAPIV3Schema: schemaNode }),
        }),
      )
      // One version today; a second would need a page layout per version, so it is refused until someone writes it.
      .length(1),
  }),
});
export type CrdManifest = z.infer<typeof crdManifest>;

/** The manifest in `yaml`, or an error naming `source` and what does not fit. */
export function parseCrd(yaml: string, source: string): CrdManifest {
  const result = crdManifest.safeParse(parse(yaml));
  if (!result.success) {
    throw new Error(`reading ${source}: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, { cause: result.error });
  }
  return result.data;
}
