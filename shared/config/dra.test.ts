// spec.draResourceNames: absent means the default table; set replaces it; an unusable value falls back and says why.
import { describe, expect, it } from 'vitest';
import { loadDraResourceNames } from './dra.ts';

const config = (spec: Record<string, unknown> | undefined): unknown => ({ apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, ...(spec ? { spec } : {}) });

describe('loadDraResourceNames', () => {
  it.each<[string, unknown, Array<[string, string[]]>, string | undefined]>([
    ['no config: gpu.nvidia.com -> nvidia.com/gpu', undefined, [['gpu.nvidia.com', ['nvidia.com/gpu']]], undefined],
    ['a config without spec: the default', config(undefined), [['gpu.nvidia.com', ['nvidia.com/gpu']]], undefined],
    ['field absent: the default', config({ maxParallelOperations: 2 }), [['gpu.nvidia.com', ['nvidia.com/gpu']]], undefined],
    ['an empty list turns the mapping off', config({ draResourceNames: [] }), [], undefined],
    [
      'a table replaces the default, in its order',
      config({ draResourceNames: [{ driver: 'gpu.example.com', resourceNames: ['example.com/gpu'] }, { driver: 'gpu.nvidia.com', resourceNames: ['nvidia.com/gpu', 'nvidia.com/mig'] }] }),
      [
        ['gpu.example.com', ['example.com/gpu']],
        ['gpu.nvidia.com', ['nvidia.com/gpu', 'nvidia.com/mig']],
      ],
      undefined,
    ],
    [
      'a driver twice: the default, and why',
      config({ draResourceNames: [{ driver: 'a', resourceNames: [] }, { driver: 'a', resourceNames: [] }] }),
      [['gpu.nvidia.com', ['nvidia.com/gpu']]],
      'spec.draResourceNames: duplicate drivers are not allowed (list-type map, key driver); the default table applies',
    ],
  ])('%s', (_rule, input, table, problem) => {
    const loaded = loadDraResourceNames(input);
    expect({ table: [...loaded.names], problem: loaded.problem }).toEqual({ table, problem });
  });
});
