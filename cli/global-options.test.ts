// Which command takes which -o format and which request filters; a flag a command would ignore is refused (exit 2).
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './errors.ts';
import { checkGlobalFlags, type RawGlobalFlags } from './global-options.ts';

const DEFAULTS: RawGlobalFlags = { kmaintNamespace: 'kmaint', output: 'text', logLevel: 'warn' };

function refusal(command: string, flags: Partial<RawGlobalFlags>): [string, number] {
  try {
    checkGlobalFlags(command, { ...DEFAULTS, ...flags });
  } catch (err) {
    return [(err as Error).message, exitCodeOf(err)];
  }
  return ['accepted', 0];
}

describe('checkGlobalFlags', () => {
  it('status takes every filter and every format', () => {
    expect(checkGlobalFlags('status', { ...DEFAULTS, namespace: 'team-a', node: 'n1', selector: 'a=b', output: 'name' })).toEqual({
      ...DEFAULTS,
      namespace: 'team-a',
      node: 'n1',
      selector: 'a=b',
      output: 'name',
      filter: { namespace: 'team-a', node: 'n1', selector: { requirements: [{ key: 'a', operator: '=', values: ['b'] }] } },
    });
  });

  it.each<[string, string, Partial<RawGlobalFlags>, string]>([
    ['a pass works on every request: -n is refused and points to --kmaint-namespace', 'pass', { namespace: 'kmaint' }, "pass takes no -n/--namespace: it works on every request; kmaint's own namespace is --kmaint-namespace (env KMAINT_NAMESPACE)"],
    ['run, the same for -A and -l together', 'run', { allNamespaces: true, selector: 'a=b' }, "run takes no -A/--all-namespaces, -l/--selector: it works on every request; kmaint's own namespace is --kmaint-namespace (env KMAINT_NAMESPACE)"],
    ['plan', 'plan', { node: 'n1' }, "plan takes no --node: it works on every request; kmaint's own namespace is --kmaint-namespace (env KMAINT_NAMESPACE)"],
    ['explain names one request: -n only', 'explain', { selector: 'a=b' }, 'explain takes no -l/--selector'],
    ['status: -n and -A exclude each other', 'status', { namespace: 'a', allNamespaces: true }, '-n/--namespace and -A/--all-namespaces exclude each other'],
    ['status prints every format, but not an unknown one', 'status', { output: 'table' }, 'unknown output format "table": expected one of text, wide, json, yaml, name, jsonpath=<template>'],
    ['the demo prints text only', 'demo', { output: 'json' }, 'demo prints text, not -o json'],
    ['a snapshot is JSON', 'snapshot', { output: 'yaml' }, 'snapshot prints text, json, not -o yaml'],
    ['explain has no -o name', 'explain', { output: 'name' }, 'explain prints text, wide, json, yaml, not -o name'],
    ['version prints yaml', 'version', { output: 'yaml' }, 'accepted'],
  ])('%s', (_rule, command, flags, message) => {
    expect(refusal(command, flags)).toEqual([message, message === 'accepted' ? 0 : 2]);
  });
});
