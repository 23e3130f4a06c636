// Issue 41: the MaintenanceOperatorConfig is parsed in one place. shared/pass/config.ts loadConfig calls every
// section parser and returns one typed value; nothing else in shared/, cli/ or functions/ reads the stored object:
// no section parser called elsewhere, no `.rawConfig` read, no `.spec` of the value's `object`, no GET of the config
// outside the reads that hand it to loadConfig.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG_MODULE = 'shared/pass/config.ts';

/**
 * Each feature's loader of its slice of the config, called only by loadConfig (and inside the file defining it, where
 * one section parser builds on another). A new section parser is a name here.
 */
export const SECTION_PARSERS = [
  // With the admission rules (loadAdmissionRules, which only it calls).
  'loadLimits',
  'loadDraResourceNames',
  'loadHandshakeConfig',
  'loadSriovHandshakeConfig',
  'sriovProtocolOf',
  'loadReaperConfig',
  'loadCloudEventsConfig',
  'cloudEventsSwitchOf',
  'loadSlurmSettings',
  'slurmConfigProblems',
  'slurmConfigNotes',
  'nodeReadSettings',
  'upstreamOperatorNamespaceOf',
  'acceptsUpstreamSchema',
  'reaperProblems',
  'cloudEventsOn',
  'reaperModeOf',
  'loadBlockerSettings',
  'loadRebootSettings',
  'loadRebootSentinel',
  'loadValidationSettings',
  'loadReleaseDelaySeconds',
] as const;

/** Where each other way of reaching the stored object is allowed, beside the config module. */
const RULES: ReadonlyArray<{ what: string; pattern: RegExp; allowed: readonly string[] }> = [
  // The snapshot carries the object from its read to loadConfig (withNodes copies it to the snapshot).
  { what: 'reads .rawConfig', pattern: /\.rawConfig\b/g, allowed: ['shared/pass/snapshot.ts'] },
  // The value's object is for its own status and events (metadata, status); its spec is the value's sections.
  { what: "reads the config object's spec", pattern: /\.object\??\.spec\b/g, allowed: [] },
  // The reads that hand the object to loadConfig: the snapshot, the disabled reaper's start, `kmaint status`.
  { what: 'GETs the config', pattern: /\bgetConfig\(/g, allowed: ['shared/kube/client.ts', 'shared/pass/snapshot.ts', 'shared/pass/reaper-pass.ts', 'cli/status.ts', 'cli/leftovers-command.ts', 'cli/explain-node.ts'] },
  // Once per pass (run-pass.ts for the scheduler and reaper, node-read.ts for the drainer and cleanup) and per command.
  { what: 'calls loadConfig', pattern: /\bloadConfig\(/g, allowed: ['shared/pass/run-pass.ts', 'shared/pass/read-named-nodes.ts', 'cli/explain.ts', 'cli/status.ts', 'cli/leftovers-command.ts', 'cli/explain-node.ts'] },
];

export interface SourceFile {
  /** Repository-relative, with `/`. */
  file: string;
  text: string;
}

/** Every way `sources` read the config other than through loadConfig's value, one line each. Pure. */
export function configReadViolations(sources: readonly SourceFile[]): string[] {
  const definedIn = new Map<string, string>();
  for (const { file, text } of sources) {
    for (const name of SECTION_PARSERS) if (new RegExp(`export (?:async )?(?:function|const) ${name}\\b`).test(text)) definedIn.set(name, file);
  }
  const out: string[] = [];
  for (const { file, text } of sources) {
    if (file === CONFIG_MODULE) continue;
    for (const name of SECTION_PARSERS) {
      if (definedIn.get(name) === file) continue;
      if (new RegExp(`\\b${name}\\(`).test(text)) out.push(`${file} calls the section parser ${name}: take it from loadConfig's value (${CONFIG_MODULE})`);
    }
    for (const rule of RULES) if (!rule.allowed.includes(file) && text.match(rule.pattern)) out.push(`${file} ${rule.what}: take it from loadConfig's value (${CONFIG_MODULE})`);
  }
  return out;
}

function productionSources(): SourceFile[] {
  return ['shared', 'cli', 'functions']
    .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(ROOT, dir, f)))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith(`${sep}test-builders.ts`) && !f.split(sep).includes('node_modules'))
    .map((f) => ({ file: relative(ROOT, f).split(sep).join('/'), text: readFileSync(f, 'utf8') }));
}

describe('the config is read in one place (shared/pass/config.ts)', () => {
  it('the checker names each kind of read outside the config module', () => {
    const sources: SourceFile[] = [
      { file: 'shared/slurm/settings.ts', text: 'export function loadSlurmSettings(c) {}\nexport function slurmConfigProblems(c) { return loadSlurmSettings(c); }' },
      { file: CONFIG_MODULE, text: 'loadSlurmSettings(object); x.rawConfig; loadConfig(' },
      { file: 'shared/pass/passes.ts', text: 'const s = loadSlurmSettings(base.rawConfig);\nconfig.object?.spec;' },
      { file: 'cli/explain.ts', text: 'client.getConfig(ns); loadConfig({ rawConfig }, 1, ns);' },
    ];
    expect(configReadViolations(sources)).toEqual([
      "shared/pass/passes.ts calls the section parser loadSlurmSettings: take it from loadConfig's value (shared/pass/config.ts)",
      "shared/pass/passes.ts reads .rawConfig: take it from loadConfig's value (shared/pass/config.ts)",
      "shared/pass/passes.ts reads the config object's spec: take it from loadConfig's value (shared/pass/config.ts)",
      "cli/explain.ts GETs the config: take it from loadConfig's value (shared/pass/config.ts)",
    ]);
  });

  it('every section parser is defined somewhere (a renamed one must be renamed here too)', () => {
    const texts = productionSources().map((s) => s.text).join('\n');
    expect(SECTION_PARSERS.filter((name) => !new RegExp(`export (?:async )?(?:function|const) ${name}\\b`).test(texts))).toEqual([]);
  });

  it('nothing in shared/, cli/ or functions/ but the config module reads the stored config', () => {
    expect(configReadViolations(productionSources())).toEqual([]);
  });
});
