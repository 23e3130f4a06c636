// `kmaint simulate`: flags parsed once, the snapshot and config loaded and checked, sim/whatif's simulate() run,
// its report rendered (text, or one JSON object with -o json, one YAML document with -o yaml).
import { errorMessage } from '../../shared/errors/index.ts';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { maintenanceOperatorConfigSpecSchema, type MaintenanceOperatorConfigSpec } from '../../shared/api/index.ts';
import { profileSnapshot, readSnapshotFile, simulate, SnapshotError, WhatIfError } from '../../sim/whatif/index.ts';
import { parseDuration } from '../duration.ts';
import { isDocumentFormat, renderDocuments } from '../output-format.ts';
import { UsageError } from '../errors.ts';
import { summaryRows, writeReport } from '../report-file.ts';
import type { WhatIfGlobals } from './globals.ts';
import { renderReport } from './render.ts';

const flagsSchema = z
  .object({
    from: z.string().min(1).optional(),
    profile: z.enum(['small', 'demo', 'large']).optional(),
    seed: z.coerce.number({ error: '--seed must be a number' }).int('--seed must be a whole number').min(0, '--seed must be at least 0'),
    config: z.string().min(1).optional(),
    allNodes: z.boolean().optional(),
    nodes: z.string().optional(),
    devices: z.string().min(1, '--devices needs driver/pool/device entries').optional(),
    hold: z.string(),
    podStart: z.string(),
    passTime: z.string(),
    top: z.coerce.number({ error: '--top must be a number' }).int('--top must be a whole number').min(0, '--top must be at least 0'),
    poolLabel: z.string().min(1),
    maxSimulated: z.string(),
    transport: z.enum(['local', 'http']),
    report: z.string().min(1, '--report needs a file name').optional(),
  })
  .strict()
  .refine((f) => (f.from === undefined) !== (f.profile === undefined), { message: 'give exactly one of --from <snapshot> or --profile <name>' })
  // Device requests (issue 45) may come alone or beside node requests; the nodes are chosen one way at most.
  .refine((f) => (f.allNodes === true) !== (f.nodes !== undefined) || (f.devices !== undefined && f.allNodes !== true), {
    message: 'give exactly one of --all-nodes or --nodes <selector>, or --devices <driver/pool/device,...>',
  });

function issueLine(error: z.ZodError): string {
  return error.issues.map((i) => i.message).join('; ');
}

/** A MaintenanceOperatorConfig file: the whole object (kind MaintenanceOperatorConfig) or just its spec. */
export function readConfigFile(path: string): MaintenanceOperatorConfigSpec {
  let value: unknown;
  try {
    value = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${path}: ${errorMessage(err).split('\n')[0]}`, { cause: err });
  }
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const whole = object !== undefined && (object['kind'] === 'MaintenanceOperatorConfig' || 'apiVersion' in object || 'spec' in object);
  const spec = whole ? (object['spec'] ?? {}) : (value ?? {});
  const parsed = maintenanceOperatorConfigSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    throw new UsageError(`--config ${path}: spec${where ? `.${where}` : ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Exit 0 when every request was released; 1 when the maintenance could not finish (the report says why). */
export async function simulateCommand(raw: Record<string, unknown>, globals: WhatIfGlobals): Promise<number> {
  const parsed = flagsSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(issueLine(parsed.error));
  const f = parsed.data;
  const config = f.config !== undefined ? readConfigFile(f.config) : undefined;
  const holdMs = parseDuration(f.hold);
  const podStartMs = parseDuration(f.podStart);
  const passMs = parseDuration(f.passTime);
  const maxSimMs = parseDuration(f.maxSimulated);
  const from = f.from;
  const profile = f.profile;
  const report = await simulate({
    // A function: simulate() reads it first thing and drops it once loaded (a large snapshot is ~100 MB).
    snapshot: from !== undefined ? () => readSnapshotOrFail(from) : () => profileSnapshot({ profile: profile ?? 'small', seed: f.seed }),
    ...(config ? { config } : {}),
    ...(f.nodes !== undefined ? { nodes: { selector: f.nodes } } : f.allNodes === true ? { nodes: { all: true as const } } : {}),
    ...(f.devices !== undefined ? { devices: f.devices.split(',').map((d) => d.trim()) } : {}),
    holdMs,
    podStartMs,
    passMs,
    maxSimMs,
    topBudgets: f.top,
    poolLabel: f.poolLabel,
    transport: f.transport,
  }).catch((err: unknown) => {
    if (err instanceof WhatIfError) throw new UsageError(err.message, { cause: err });
    throw err;
  });
  // The timeline is the HTML report's data: one span per node and phase, too much for a JSON line at 10,000 nodes.
  const { timeline, ...findings } = report;
  const text = renderReport(report);
  const format = globals.output;
  process.stdout.write(isDocumentFormat(format) ? renderDocuments([findings], format) : text);
  if (f.report !== undefined) {
    const [headline = '', ...rest] = text.trimEnd().split('\n');
    writeReport(f.report, { title: 'kmaint simulate: timeline', subtitle: headline, timeline, summary: summaryRows(rest) });
    if (!isDocumentFormat(format)) process.stdout.write(`report written to ${f.report}\n`);
  }
  return report.outcome === 'done' ? 0 : 1;
}

function readSnapshotOrFail(path: string): ReturnType<typeof readSnapshotFile> {
  try {
    return readSnapshotFile(path);
  } catch (err) {
    if (err instanceof SnapshotError) throw new UsageError(err.message, { cause: err });
    throw err;
  }
}
