// `-o/--output`: the formats kmaint prints, which command prints which, and JSON/YAML documents written the same way
// by every command. The format never depends on whether stdout is a terminal: a script names the one it parses.
import { stringify } from 'yaml';
import { UsageError } from './errors.ts';

/** `jsonpath` is given as `-o jsonpath=TEMPLATE` (cli/jsonpath.ts). */
export const OUTPUT_FORMATS = ['text', 'wide', 'json', 'yaml', 'name', 'jsonpath'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The formats of a command that prints summaries or a report: wide is the same as text there. */
export const SUMMARY_FORMATS: readonly OutputFormat[] = ['text', 'wide', 'json', 'yaml'];
/** Commands whose output is for people (a live demo, a completion script): text only. */
export const TEXT_ONLY: readonly OutputFormat[] = ['text'];

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** The format a command prints, or a UsageError (exit 2) naming what it prints instead. */
export function outputFormatFor(value: string, command: string, supported: readonly OutputFormat[]): OutputFormat {
  if (value.startsWith('jsonpath=')) value = 'jsonpath';
  else if (value === 'jsonpath') throw new UsageError('-o jsonpath needs a template: -o jsonpath=\'{.items[*].metadata.name}\'');
  if (!isOutputFormat(value)) throw new UsageError(`unknown output format "${value}": expected one of ${OUTPUT_FORMATS.map((f) => (f === 'jsonpath' ? 'jsonpath=<template>' : f)).join(', ')}`);
  if (!supported.includes(value)) throw new UsageError(`${command} prints ${supported.join(', ')}, not -o ${value}`);
  return value;
}

/** Machine-readable formats: JSON lines (one object per line) or a YAML stream (one document per object). */
export type DocumentFormat = 'json' | 'yaml';

export const isDocumentFormat = (format: OutputFormat): format is DocumentFormat => format === 'json' || format === 'yaml';

/**
 * Each object as one JSON line, or as one YAML document, each opened by `---` so that documents written one call
 * after another (status --watch) still make one valid YAML stream.
 */
export function renderDocuments(objects: readonly unknown[], format: DocumentFormat): string {
  if (format === 'json') return objects.map((o) => `${JSON.stringify(o)}\n`).join('');
  return objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join('');
}
