// The events a kmaint function accepts: an EventBridge schedule, a chain from another kmaint function, or a manual call.
import { z } from 'zod';
import { PASS_FUNCTIONS } from '#pass';
import { InvalidEventError, type EventIssue } from './errors.ts';

/** EventBridge "Scheduled Event"; AWS may add fields, so unknown keys are kept. */
const scheduledEventSchema = z.looseObject({
  source: z.literal('aws.events'),
  'detail-type': z.literal('Scheduled Event'),
  id: z.string(),
  time: z.string(),
});

/** Sent by a kmaint function to the next one (InvocationType Event). */
export const chainEventSchema = z.strictObject({
  source: z.literal('kmaint'),
  chainDepth: z.number().int().min(0),
  from: z.enum(PASS_FUNCTIONS).optional(),
});
export type ChainEvent = z.infer<typeof chainEventSchema>;

/** A person or a script: `aws lambda invoke --payload '{"dryRun":true,"maxPasses":1}'`. */
const manualEventSchema = z.strictObject({
  dryRun: z.boolean().optional(),
  maxPasses: z.number().int().min(1).max(1000).optional(),
});

export interface KmaintEvent {
  kind: 'scheduled' | 'chain' | 'manual';
  /** 0 unless started by a chain. */
  chainDepth: number;
  dryRun: boolean;
  maxPasses?: number;
}

export const ACCEPTED_EVENTS = 'an EventBridge scheduled event, {"source":"kmaint","chainDepth":n}, or {"dryRun"?: boolean, "maxPasses"?: 1..1000}';

function issuesOf(error: z.ZodError): EventIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

function parseAs<T>(kind: KmaintEvent['kind'], schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  throw new InvalidEventError(`invalid ${kind} event: ${detail}`, issues, { cause: parsed.error });
}

/** Validates and normalises an invocation event; anything else is an InvalidEventError saying what was expected. */
export function parseKmaintEvent(raw: unknown): KmaintEvent {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidEventError(`invalid event: expected a JSON object (${ACCEPTED_EVENTS}), got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`, [{ path: '', message: 'expected an object' }]);
  }
  const source = (raw as { source?: unknown }).source;
  if (source === 'aws.events') {
    parseAs('scheduled', scheduledEventSchema, raw);
    return { kind: 'scheduled', chainDepth: 0, dryRun: false };
  }
  if (source === 'kmaint') {
    const e = parseAs('chain', chainEventSchema, raw);
    return { kind: 'chain', chainDepth: e.chainDepth, dryRun: false };
  }
  if (source === undefined) {
    const e = parseAs('manual', manualEventSchema, raw);
    return { kind: 'manual', chainDepth: 0, dryRun: e.dryRun ?? false, ...(e.maxPasses !== undefined ? { maxPasses: e.maxPasses } : {}) };
  }
  throw new InvalidEventError(`invalid event: unknown source ${JSON.stringify(source)}; expected ${ACCEPTED_EVENTS}`, [{ path: 'source', message: 'unknown source' }]);
}
