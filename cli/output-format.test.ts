// -o: which formats exist, which a command prints, and JSON lines and YAML documents written the same way everywhere.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { exitCodeOf } from './errors.ts';
import { SUMMARY_FORMATS, outputFormatFor, renderDocuments } from './output-format.ts';

describe('outputFormatFor', () => {
  it.each(['text', 'wide', 'json', 'yaml'])('pass prints -o %s', (format) => {
    expect(outputFormatFor(format, 'pass', SUMMARY_FORMATS)).toBe(format);
  });

  it.each([
    ['xml', 'unknown output format "xml": expected one of text, wide, json, yaml, name, jsonpath=<template>'],
    ['JSON', 'unknown output format "JSON": expected one of text, wide, json, yaml, name, jsonpath=<template>'],
    ['name', 'pass prints text, wide, json, yaml, not -o name'],
  ])('-o %s is a usage error (exit 2): %s', (format, message) => {
    let err: unknown;
    try {
      outputFormatFor(format, 'pass', SUMMARY_FORMATS);
    } catch (e) {
      err = e;
    }
    expect([(err as Error).message, exitCodeOf(err)]).toEqual([message, 2]);
  });
});

describe('renderDocuments', () => {
  const objects = [{ request: 'ops/a', drain: null, pods: ['web/x'] }, { request: 'ops/b', drain: { left: 1 }, pods: [] }];

  it('json: one object per line', () => {
    expect(renderDocuments(objects, 'json')).toBe('{"request":"ops/a","drain":null,"pods":["web/x"]}\n{"request":"ops/b","drain":{"left":1},"pods":[]}\n');
  });

  it('yaml: one document per object, each opened by ---, so that writes one after another stay one stream', () => {
    const text = renderDocuments(objects, 'yaml');
    expect(text).toBe('---\nrequest: ops/a\ndrain: null\npods:\n  - web/x\n---\nrequest: ops/b\ndrain:\n  left: 1\npods: []\n');
    expect(parseAllDocuments(text + text).map((d) => d.toJS() as unknown)).toEqual([...objects, ...objects]);
  });

  it('nothing to write: no output in either format', () => {
    expect([renderDocuments([], 'json'), renderDocuments([], 'yaml')]).toEqual(['', '']);
  });
});
