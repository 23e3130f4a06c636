// Pure patch semantics: merge patch, JSON patch, strategic merge patch (as the simulated kubelet, kubectl and
// kmaint send them), the printer-column JSONPath subset, and kubectl's age rendering.
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import type { Json, JsonObject } from './json-value.ts';
import { findAll } from './jsonpath.ts';
import { jsonPatch, mergePatch } from './patch.ts';
import { strategicMergePatch } from './strategic-merge.ts';
import { humanDuration } from './table.ts';

describe('merge patch (RFC 7386)', () => {
  it.each<[string, Json, Json, Json]>([
    ['sets and overwrites fields', { a: 1, b: { c: 2 } }, { b: { d: 3 }, e: 4 }, { a: 1, b: { c: 2, d: 3 }, e: 4 }],
    ['null removes a field', { spec: { unschedulable: true, x: 1 } }, { spec: { unschedulable: null } }, { spec: { x: 1 } }],
    ['lists are replaced whole', { l: [1, 2, 3] }, { l: [4] }, { l: [4] }],
    ['a non-object patch replaces the target', { a: 1 }, [1], [1]],
  ])('%s', (_rule, target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });
});

describe('JSON patch (RFC 6902)', () => {
  const doc: JsonObject = { metadata: { resourceVersion: '5' }, status: { l: ['a', 'b'] } };
  it.each<[string, Json, Json]>([
    ['replace then add, as kmaint writes status', [{ op: 'replace', path: '/metadata/resourceVersion', value: '7' }, { op: 'add', path: '/status', value: { x: 1 } }], { metadata: { resourceVersion: '7' }, status: { x: 1 } }],
    ['add inserts into a list, `-` appends', [{ op: 'add', path: '/status/l/0', value: 'z' }, { op: 'add', path: '/status/l/-', value: 'y' }], { metadata: { resourceVersion: '5' }, status: { l: ['z', 'a', 'b', 'y'] } }],
    ['remove, test, copy and move', [{ op: 'test', path: '/status/l/1', value: 'b' }, { op: 'copy', from: '/status/l', path: '/c' }, { op: 'move', from: '/c', path: '/d' }, { op: 'remove', path: '/status/l/0' }], { metadata: { resourceVersion: '5' }, status: { l: ['b'] }, d: ['a', 'b'] }],
    ['~1 and ~0 escape / and ~ in keys', [{ op: 'add', path: '/metadata/a~1b~0c', value: 1 }], { metadata: { resourceVersion: '5', 'a/b~c': 1 }, status: { l: ['a', 'b'] } }],
    ['replace of a missing object key adds it, as the API server allows', [{ op: 'replace', path: '/metadata/x', value: 1 }], { metadata: { resourceVersion: '5', x: 1 }, status: { l: ['a', 'b'] } }],
  ])('%s', (_rule, ops, expected) => {
    expect(jsonPatch(doc, ops)).toEqual(expected);
    expect(doc).toEqual({ metadata: { resourceVersion: '5' }, status: { l: ['a', 'b'] } });
  });

  it.each<[string, Json]>([
    ['a failed test', [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }]],
    ['a missing parent', [{ op: 'add', path: '/a/b', value: 1 }]],
    ['an index out of range', [{ op: 'replace', path: '/status/l/5', value: 1 }]],
    ['an unknown op', [{ op: 'frobnicate', path: '/a' }]],
  ])('%s is a 422', (_rule, ops) => {
    expect(() => jsonPatch(doc, ops)).toThrow(ApiError);
    try {
      jsonPatch(doc, ops);
    } catch (err) {
      expect((err as ApiError).code).toBe(422);
    }
  });
});

describe('strategic merge patch', () => {
  it.each<[string, JsonObject, JsonObject, JsonObject]>([
    [
      'conditions merge by type, keeping other writers’ conditions',
      { status: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'False', reason: 'x' }] } },
      { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }] } },
      { status: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True', reason: 'x' }, { type: 'Initialized', status: 'True' }] } },
    ],
    [
      'containerStatuses have no patch strategy and are replaced whole, as on the real server',
      { status: { containerStatuses: [{ name: 'a', ready: false }, { name: 'b', ready: false }] } },
      { status: { containerStatuses: [{ name: 'a', ready: true }] } },
      { status: { containerStatuses: [{ name: 'a', ready: true }] } },
    ],
    [
      'finalizers merge as a set; $deleteFromPrimitiveList removes',
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { finalizers: ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
      { metadata: { finalizers: ['a', 'c'] } },
    ],
    [
      '$patch: delete removes a list element by key; $setElementOrder is ignored',
      { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }] } },
      { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', $patch: 'delete' }] } },
      { spec: { containers: [{ name: 'a', image: '1' }] } },
    ],
    [
      'null deletes a field and $patch: replace replaces a map',
      { spec: { unschedulable: true, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { unschedulable: null, strategy: { $patch: 'replace', type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    [
      'service ports merge by port, container ports by containerPort',
      { spec: { ports: [{ port: 80, name: 'http' }] } },
      { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } },
      { spec: { ports: [{ port: 80, name: 'http', targetPort: 8080 }, { port: 443 }] } },
    ],
    [
      'taints have no patch strategy and are replaced whole',
      { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } },
      { spec: { taints: [{ key: 'b', effect: 'NoSchedule' }] } },
      { spec: { taints: [{ key: 'b', effect: 'NoSchedule' }] } },
    ],
  ])('%s', (_rule, target, patch, expected) => {
    expect(strategicMergePatch(target, patch)).toEqual(expected);
  });
});

describe('printer-column JSONPath', () => {
  const nm: Json = { spec: { nodeName: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Draining' }, { type: 'RequestorFailed', status: 'False' }] }, l: [1, 2] };
  it.each<[string, Json[]]>([
    ['.spec.nodeName', ['n1']],
    [".status.conditions[?(@.type=='Ready')].reason", ['Draining']],
    ['.status.conditions[?(@.type=="RequestorFailed")].status', ['False']],
    [".status.conditions[?(@.type=='Failed')].status", []],
    ['.l[1]', [2]],
    ['.l[-1]', [2]],
    ['.status.conditions[*].type', ['Ready', 'RequestorFailed']],
    ['.missing.field', []],
  ])('%s finds %j', (path, expected) => {
    expect(findAll(nm, path)).toEqual(expected);
  });
});

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  it.each([
    [-5000, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [3 * 3600_000, '3h'],
    [3 * 3600_000 + 5 * 60_000, '3h5m'],
    [8 * 3600_000, '8h'],
    [49 * 3600_000, '2d1h'],
    [8 * 86_400_000, '8d'],
    [800 * 86_400_000, '2y70d'],
    [9 * 365 * 86_400_000, '9y'],
  ])('%i ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
