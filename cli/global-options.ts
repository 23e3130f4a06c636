// The flags every kmaint command takes, as kubectl spells them, and which command accepts which: the output formats
// it prints and the request filters it applies. Checked once before any command runs, so a flag a command would
// ignore is refused (exit 2, one line) instead of silently doing nothing.
import { Option, type Command } from 'commander';
import { DEFAULT_NAMESPACE } from '../shared/api/index.ts';
import { UsageError } from './errors.ts';
import { parseJsonPath } from './jsonpath.ts';
import { OUTPUT_FORMATS, SUMMARY_FORMATS, TEXT_ONLY, outputFormatFor, type OutputFormat } from './output-format.ts';
import { filterFlagsGiven, requestFilter, type RequestFilter, type RequestFilterFlags } from './request-filter.ts';

/** kmaint's own namespace (the MaintenanceOperatorConfig and the pass leases): the flag and its environment variable. */
export const KMAINT_NAMESPACE_ENV = 'KMAINT_NAMESPACE';

/** The log level when --log-level is not given: the same variable the Lambda functions read (functions/adapter/settings.ts). */
export const KMAINT_LOG_LEVEL_ENV = 'KMAINT_LOG_LEVEL';

export interface RawGlobalFlags extends RequestFilterFlags {
  kubeconfig?: string;
  context?: string;
  kmaintNamespace: string;
  output: string;
  logLevel: string;
}

export interface GlobalFlags extends RawGlobalFlags {
  output: OutputFormat;
  /** The template of -o jsonpath=TEMPLATE. */
  jsonpath?: string;
  filter: RequestFilter;
}

/** What each command prints (-o) and which request filters it applies; a command not listed prints text only. */
const COMMAND_FLAGS: Readonly<Record<string, { output: readonly OutputFormat[]; filters?: ReadonlyArray<keyof RequestFilterFlags> }>> = {
  pass: { output: SUMMARY_FORMATS },
  run: { output: SUMMARY_FORMATS },
  plan: { output: SUMMARY_FORMATS },
  invoke: { output: SUMMARY_FORMATS },
  status: { output: OUTPUT_FORMATS, filters: ['namespace', 'allNamespaces', 'selector', 'node'] },
  // One request: -n names its namespace when the argument is a bare name.
  explain: { output: SUMMARY_FORMATS, filters: ['namespace'] },
  version: { output: SUMMARY_FORMATS },
  leftovers: { output: ['text', 'json', 'yaml'] },
  // The snapshot is a JSON document whatever -o says (text is the default every command accepts).
  snapshot: { output: ['text', 'json'] },
  simulate: { output: SUMMARY_FORMATS },
  demo: { output: TEXT_ONLY },
  sim: { output: TEXT_ONLY },
  completion: { output: TEXT_ONLY },
};

export function addGlobalOptions(program: Command): Command {
  return program
    .addOption(new Option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)'))
    .addOption(new Option('--context <name>', 'kubeconfig context'))
    .addOption(new Option('-n, --namespace <ns>', 'only requests in this namespace (status; explain <name>) (default: all namespaces)'))
    .addOption(new Option('-A, --all-namespaces', 'requests in every namespace (the default)'))
    .addOption(new Option('-l, --selector <selector>', 'only requests whose labels match, e.g. team=a,tier!=gpu (status)'))
    .addOption(new Option('--node <name>', 'only requests for this node (status)'))
    .addOption(new Option('--kmaint-namespace <ns>', `kmaint's own namespace: its MaintenanceOperatorConfig and pass leases (env ${KMAINT_NAMESPACE_ENV})`).default(process.env[KMAINT_NAMESPACE_ENV] || DEFAULT_NAMESPACE))
    .addOption(new Option('-o, --output <format>', `output format: ${OUTPUT_FORMATS.map((f) => (f === 'jsonpath' ? 'jsonpath=<template>' : f)).join(', ')} (what each command prints: docs/cli.md)`).default('text'))
    .addOption(new Option('--log-level <level>', `log level (logs go to stderr; env ${KMAINT_LOG_LEVEL_ENV}, which the chart's CronJobs set)`).choices(['debug', 'info', 'warn', 'error', 'silent']).env(KMAINT_LOG_LEVEL_ENV).default('warn'));
}

/** The global flags checked for `command`: its output format and its filters, or a UsageError (exit 2). */
export function checkGlobalFlags(command: string, raw: RawGlobalFlags): GlobalFlags {
  const allowed = COMMAND_FLAGS[command] ?? { output: TEXT_ONLY };
  const output = outputFormatFor(raw.output, command, allowed.output);
  const takes = new Set(allowed.filters ?? []);
  const refused = filterFlagsGiven(Object.fromEntries(Object.entries(raw).filter(([key]) => !takes.has(key as keyof RequestFilterFlags))));
  if (refused.length > 0) {
    const why = takes.size > 0 ? '' : `: it works on every request; kmaint's own namespace is --kmaint-namespace (env ${KMAINT_NAMESPACE_ENV})`;
    throw new UsageError(`${command} takes no ${refused.join(', ')}${why}`);
  }
  if (output !== 'jsonpath') return { ...raw, output, filter: requestFilter(raw) };
  const jsonpath = raw.output.slice('jsonpath='.length);
  parseJsonPath(jsonpath);
  return { ...raw, output, jsonpath, filter: requestFilter(raw) };
}
