// Table tests for loadLimits: defaults, percent rounding per field, zero limits, and invalid values failing closed.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadLimits } from './load.ts';
import type { ResolvedConfig } from './load.ts';

const NAMESPACE = 'kmaint';

function aConfig(spec?: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'maintenance.nvidia.com/v1alpha1',
    kind: 'MaintenanceOperatorConfig',
    metadata: { name: 'default', namespace: NAMESPACE, resourceVersion: '7' },
    ...(spec === undefined ? {} : { spec }),
  };
}

const DEFAULTS: ResolvedConfig = { maxParallelOperations: 1, maxUnavailable: 'unlimited', maxNodeMaintenanceTimeSeconds: 3600, logLevel: 'info', nodeConditions: true, outOfServiceTaint: { enabled: false, afterNotReadySeconds: 300 }, maintenancePlannedLeadSeconds: 3600 };
const INVALID_LIMITS: ResolvedConfig = { ...DEFAULTS, maxParallelOperations: null, maxUnavailable: null };

describe('loadLimits', () => {
  it('DEFAULT_CONFIG is the upstream defaults', () => {
    expect(DEFAULT_CONFIG).toEqual(DEFAULTS);
  });

  it.each([
    { rule: 'no config object means the defaults', obj: undefined, nodes: 10, config: DEFAULTS },
    { rule: 'a null config object means the defaults', obj: null, nodes: 10, config: DEFAULTS },
    { rule: 'a config without spec means the defaults', obj: aConfig(), nodes: 10, config: DEFAULTS },
    { rule: 'an empty spec means the defaults', obj: aConfig({}), nodes: 10, config: DEFAULTS },
    { rule: 'the default of 1 is absolute, even with no nodes', obj: aConfig({}), nodes: 0, config: DEFAULTS },
    {
      rule: '25% of 10 nodes: parallel rounds up to 3, unavailable down to 2',
      obj: aConfig({ maxParallelOperations: '25%', maxUnavailable: '25%' }),
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 3, maxUnavailable: 2 },
    },
    {
      rule: '5% of 10 nodes: parallel rounds up to 1, unavailable down to 0',
      obj: aConfig({ maxParallelOperations: '5%', maxUnavailable: '5%' }),
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 1, maxUnavailable: 0 },
    },
    {
      rule: '50% of 3 nodes: parallel 2, unavailable 1',
      obj: aConfig({ maxParallelOperations: '50%', maxUnavailable: '50%' }),
      nodes: 3,
      config: { ...DEFAULTS, maxParallelOperations: 2, maxUnavailable: 1 },
    },
    {
      rule: 'absolute values are taken as is',
      obj: aConfig({ maxParallelOperations: 4, maxUnavailable: 2 }),
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 4, maxUnavailable: 2 },
    },
    {
      rule: 'maxParallelOperations 0 admits nothing (0, not invalid)',
      obj: aConfig({ maxParallelOperations: 0 }),
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 0 },
    },
    {
      rule: '"0%" limits are 0',
      obj: aConfig({ maxParallelOperations: '0%', maxUnavailable: '0%' }),
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 0, maxUnavailable: 0 },
    },
    {
      rule: 'maxUnavailable 0 allows no unavailable node',
      obj: aConfig({ maxUnavailable: 0 }),
      nodes: 10,
      config: { ...DEFAULTS, maxUnavailable: 0 },
    },
    {
      rule: 'percentages of an empty cluster are 0',
      obj: aConfig({ maxParallelOperations: '50%', maxUnavailable: '50%' }),
      nodes: 0,
      config: { ...DEFAULTS, maxParallelOperations: 0, maxUnavailable: 0 },
    },
    {
      rule: 'logLevel and maxNodeMaintenanceTimeSeconds are read',
      obj: aConfig({ logLevel: 'debug', maxNodeMaintenanceTimeSeconds: 0 }),
      nodes: 10,
      config: { ...DEFAULTS, logLevel: 'debug', maxNodeMaintenanceTimeSeconds: 0 },
    },
    {
      rule: 'unknown metadata fields are tolerated',
      obj: { ...aConfig({ maxParallelOperations: 2 }), metadata: { name: 'default', managedFields: [], generation: 3 } },
      nodes: 10,
      config: { ...DEFAULTS, maxParallelOperations: 2 },
    },
  ])('$rule', ({ obj, nodes, config }) => {
    expect(loadLimits(obj, nodes)).toEqual({ config, problems: [] });
  });

  it.each([
    {
      rule: 'a non-numeric percentage of maxUnavailable makes it invalid, parallel still resolves',
      spec: { maxParallelOperations: '25%', maxUnavailable: 'abc%' },
      config: { ...DEFAULTS, maxParallelOperations: 3, maxUnavailable: null },
      problems: ['spec.maxUnavailable: "abc%" is not an integer or a percentage'],
    },
    {
      rule: 'a negative maxUnavailable is invalid (upstream would read it as unlimited)',
      spec: { maxUnavailable: -1 },
      config: { ...DEFAULTS, maxUnavailable: null },
      problems: ['spec.maxUnavailable: -1 is negative; use 0 or more'],
    },
    {
      rule: 'a negative maxParallelOperations is invalid',
      spec: { maxParallelOperations: -2 },
      config: { ...DEFAULTS, maxParallelOperations: null },
      problems: ['spec.maxParallelOperations: -2 is negative; use 0 or more'],
    },
    {
      rule: 'a number written as a string without % is invalid',
      spec: { maxParallelOperations: '5' },
      config: { ...DEFAULTS, maxParallelOperations: null },
      problems: ['spec.maxParallelOperations: "5" is a string without a % sign; write 5 or "5%"'],
    },
    {
      rule: 'a negative percentage is invalid',
      spec: { maxParallelOperations: '-5%', maxUnavailable: '-5%' },
      config: { ...DEFAULTS, maxParallelOperations: null, maxUnavailable: null },
      problems: [
        'spec.maxParallelOperations: "-5%" is a negative percentage; use 0% or more',
        'spec.maxUnavailable: "-5%" is a negative percentage; use 0% or more',
      ],
    },
    {
      rule: 'a fractional number fails the schema, so both limits are invalid',
      spec: { maxParallelOperations: 1.5 },
      config: INVALID_LIMITS,
      problems: ['spec.maxParallelOperations: expected an integer or a string such as "10%"'],
    },
    {
      rule: 'a boolean fails the schema',
      spec: { maxUnavailable: true },
      config: INVALID_LIMITS,
      problems: ['spec.maxUnavailable: expected an integer or a string such as "10%"'],
    },
    {
      rule: 'a misspelled key fails the schema (strict)',
      spec: { maxParalelOperations: 2 },
      config: INVALID_LIMITS,
      problems: ['spec: Unrecognized key: "maxParalelOperations"'],
    },
    {
      rule: 'an unknown log level fails the schema',
      spec: { logLevel: 'warn' },
      config: INVALID_LIMITS,
      problems: ['spec.logLevel: Invalid option: expected one of "debug"|"info"|"error"'],
    },
    {
      rule: 'a negative maxNodeMaintenanceTimeSeconds fails the schema',
      spec: { maxNodeMaintenanceTimeSeconds: -1 },
      config: INVALID_LIMITS,
      problems: ['spec.maxNodeMaintenanceTimeSeconds: Too small: expected number to be >=0'],
    },
    {
      rule: 'every schema issue is listed',
      spec: { maxParallelOperations: 1.5, maxUnavailable: false },
      config: INVALID_LIMITS,
      problems: [
        'spec.maxParallelOperations: expected an integer or a string such as "10%"',
        'spec.maxUnavailable: expected an integer or a string such as "10%"',
      ],
    },
  ])('$rule', ({ spec, config, problems }) => {
    expect(loadLimits(aConfig(spec), 10)).toEqual({ config, problems });
  });

  it.each([
    { rule: 'a string', obj: 'default', problems: ['MaintenanceOperatorConfig: Invalid input: expected object, received string'] },
    { rule: 'an object without metadata', obj: { spec: {} }, problems: ['metadata: Invalid input: expected object, received undefined'] },
    { rule: 'a spec that is a list', obj: { ...aConfig(), spec: [] }, problems: ['spec: Invalid input: expected object, received array'] },
  ])('an object that is not a MaintenanceOperatorConfig ($rule) makes both limits invalid', ({ obj, problems }) => {
    expect(loadLimits(obj, 10)).toEqual({ config: INVALID_LIMITS, problems });
  });
});
