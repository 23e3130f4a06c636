// Scenario control files (JSON or YAML): timed faults for the simulated kubelet. Parsing only.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { LABEL_APP_NAME } from './sim-keys.ts';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Seconds as a number, or a string like `500ms`, `30s`, `2m`, `1h`; parsed to milliseconds. */
export const durationSchema = z.union([
  z.number().nonnegative().transform((seconds) => Math.round(seconds * 1000)),
  z.string().regex(DURATION, 'a duration like 500ms, 30s, 2m or 1h').transform((text) => {
    const [, amount, unit] = DURATION.exec(text) as unknown as [string, string, keyof typeof UNIT_MS];
    return Math.round(Number(amount) * UNIT_MS[unit]);
  }),
]);

export interface PodSelectorSpec {
  namespace?: string;
  name?: string;
  matchLabels?: Record<string, string>;
}

const selectorObjectSchema = z
  .object({
    namespace: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    matchLabels: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .refine((s) => s.name !== undefined || s.matchLabels !== undefined || s.namespace !== undefined, 'an empty pod selector would match every pod');

/**
 * Which pods an action targets: `namespace/name` for one pod, `key=value[,key=value]` for a label
 * selector across namespaces, or `{ namespace?, name?, matchLabels? }`.
 */
export const podSelectorSchema = z.union([
  z.string().min(1).transform((text, ctx): PodSelectorSpec => {
    if (text.includes('=')) {
      const matchLabels: Record<string, string> = {};
      for (const term of text.split(',')) {
        const [key, value, extra] = term.split('=').map((s) => s.trim());
        if (!key || value === undefined || extra !== undefined) {
          ctx.addIssue({ code: 'custom', message: `label selector term "${term}" is not key=value` });
          return z.NEVER;
        }
        matchLabels[key] = value;
      }
      return { matchLabels };
    }
    const parts = text.split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      ctx.addIssue({ code: 'custom', message: `pod reference "${text}" is not namespace/name` });
      return z.NEVER;
    }
    return { namespace: parts[0], name: parts[1] };
  }),
  selectorObjectSchema,
]);

/** `namespace/name` of a generated workload: its pods carry `app.kubernetes.io/name: <name>`. */
const workloadSchema = z
  .string()
  .regex(/^[^/]+\/[^/]+$/, 'a workload reference is namespace/name')
  .transform((ref): PodSelectorSpec => {
    const [namespace, name] = ref.split('/') as [string, string];
    return { namespace, matchLabels: { [LABEL_APP_NAME]: name } };
  });

const node = z.string().min(1);
const at = durationSchema.default(0);

const conditionSchema = z
  .object({
    type: z.string().min(1),
    status: z.enum(['True', 'False', 'Unknown']),
    reason: z.string().min(1),
    message: z.string().optional(),
  })
  .strict();

export const scenarioActionSchema = z.discriminatedUnion('action', [
  z.object({ at, action: z.literal('makeNotReady'), node, stopHeartbeats: z.boolean().default(true) }).strict(),
  z.object({ at, action: z.literal('makeReady'), node }).strict(),
  z.object({ at, action: z.literal('addCondition'), node, condition: conditionSchema }).strict(),
  z.object({ at, action: z.literal('stopHeartbeats'), node, freezePods: z.boolean().default(true) }).strict(),
  z.object({ at, action: z.literal('resumeHeartbeats'), node }).strict(),
  z.object({ at, action: z.literal('slowTermination'), pods: podSelectorSchema, seconds: z.number().nonnegative() }).strict(),
  z
    .object({ at, action: z.literal('neverReady'), pods: podSelectorSchema.optional(), workload: workloadSchema.optional() })
    .strict()
    .refine((a) => (a.pods === undefined) !== (a.workload === undefined), 'neverReady takes exactly one of pods, workload')
    .transform(({ workload, pods, ...rest }) => ({ ...rest, pods: (pods ?? workload) as PodSelectorSpec })),
  z.object({ at, action: z.literal('deleteNode'), node }).strict(),
]);

export const scenarioSchema = z
  .object({
    name: z.string().optional(),
    actions: z.array(scenarioActionSchema),
  })
  .strict()
  .transform((s) => ({ ...s, actions: [...s.actions].sort((a, b) => a.at - b.at) }));

/** A parsed scenario: actions sorted by `at`, which is milliseconds from the scenario's start. */
export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioAction = Scenario['actions'][number];

/** Parses a scenario file's text; YAML is a superset of JSON, so both go through the YAML parser. */
export function parseScenario(text: string): Scenario {
  return scenarioSchema.parse(parseYaml(text));
}
