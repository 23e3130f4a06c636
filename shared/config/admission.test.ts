// Table tests for the admission extensions in loadLimits: what is kept, what fails the whole config, what fails one scope.
import { describe, expect, it } from 'vitest';
import { loadLimits } from './load.ts';

function aConfig(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: 'kmaint' }, spec };
}

const gpu = { name: 'gpu', nodeSelector: { matchLabels: { 'kmaint.io/pool': 'gpu' } } };

describe('loadLimits: admission extensions', () => {
  it('a spec without any extension has no admission rules (upstream scheduling)', () => {
    expect(loadLimits(aConfig({ maxParallelOperations: 2 }), 10).config.admission).toBeUndefined();
  });

  it('keeps pools in order with their limits as written, the default zone label, and compiled windows', () => {
    const { config, problems } = loadLimits(
      aConfig({
        maxParallelOperations: 4,
        pools: [
          { ...gpu, maxUnavailable: 1, windows: [{ schedule: '0 2 * * SAT', duration: '4h', timeZone: 'Europe/Berlin' }] },
          { name: 'cpu', nodeSelector: { matchExpressions: [{ key: 'kmaint.io/pool', operator: 'In', values: ['general'] }] }, maxParallelOperations: '50%', maxUnavailable: '25%' },
        ],
        maxUnavailablePerZone: '50%',
        windows: [{ schedule: '0/30 22 * * *', duration: '2h' }],
      }),
      10,
    );
    expect(problems).toEqual([]);
    expect(config.maxParallelOperations).toBe(4);
    const admission = config.admission;
    if (admission === undefined) throw new Error('no admission rules');
    expect(admission.pools.map((p) => [p.name, p.maxParallelOperations, p.maxUnavailable, p.windows?.kind, p.problem])).toEqual([
      ['gpu', undefined, 1, 'valid', undefined],
      ['cpu', '50%', '25%', undefined, undefined],
    ]);
    expect(admission.pools[1]?.selector).toEqual({ requirements: [{ key: 'kmaint.io/pool', operator: 'in', values: ['general'] }] });
    expect([admission.zoneLabel, admission.maxUnavailablePerZone, admission.windows?.kind, admission.scopedProblems]).toEqual([
      'topology.kubernetes.io/zone',
      '50%',
      'valid',
      [],
    ]);
  });

  it.each([
    { rule: 'only a zone label', spec: { zoneLabel: 'example.com/rack' }, zoneLabel: 'example.com/rack' },
    { rule: 'an empty window list (always open)', spec: { windows: [] }, zoneLabel: 'topology.kubernetes.io/zone' },
    { rule: 'an empty pool list', spec: { pools: [] }, zoneLabel: 'topology.kubernetes.io/zone' },
  ])('$rule still yields rules that restrict nothing', ({ spec, zoneLabel }) => {
    const { config, problems } = loadLimits(aConfig(spec), 10);
    expect(problems).toEqual([]);
    expect(config.admission).toEqual({ pools: [], zoneLabel, gangReserveAfterSeconds: 600, gangIncompleteAdmitAfterSeconds: 3600, scopedProblems: [] });
    expect([config.maxParallelOperations, config.maxUnavailable]).toEqual([1, 'unlimited']);
  });

  // Membership or the zone limit unknown: every node is affected, so nothing is admitted anywhere (fail closed).
  it.each([
    {
      rule: 'a pool selector with an invalid label key',
      spec: { pools: [{ name: 'bad', nodeSelector: { matchLabels: { 'bad key': 'x' } } }] },
      problems: [
        'spec.pools[0].nodeSelector: invalid label selector: matchLabels["bad key"]: invalid label key "bad key": name part "bad key" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')',
      ],
    },
    {
      rule: 'In without values',
      spec: { pools: [gpu, { name: 'cpu', nodeSelector: { matchExpressions: [{ key: 'kmaint.io/pool', operator: 'In' }] } }] },
      problems: ['spec.pools[1].nodeSelector: invalid label selector: matchExpressions[0]: key "kmaint.io/pool": operator in needs at least one value'],
    },
    {
      rule: 'an invalid zone label',
      spec: { maxUnavailablePerZone: 1, zoneLabel: '-zone' },
      problems: [
        'spec.zoneLabel: invalid label key "-zone": name part "-zone" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')',
      ],
    },
    { rule: 'an unresolvable zone limit', spec: { maxUnavailablePerZone: 'half' }, problems: ['spec.maxUnavailablePerZone: "half" is not an integer or a percentage'] },
    { rule: 'a negative zone limit', spec: { maxUnavailablePerZone: -1 }, problems: ['spec.maxUnavailablePerZone: -1 is negative; use 0 or more'] },
  ])('$rule makes both cluster limits invalid', ({ spec, problems }) => {
    const loaded = loadLimits(aConfig(spec), 10);
    expect(loaded.problems).toEqual(problems);
    expect([loaded.config.maxParallelOperations, loaded.config.maxUnavailable]).toEqual([null, null]);
  });

  // One scope admits nothing; the rest of the cluster goes on.
  it.each([
    {
      rule: 'a pool limit that cannot be resolved closes that pool',
      spec: { pools: [{ ...gpu, maxUnavailable: 'abc%' }] },
      pool: 'spec.pools[0].maxUnavailable: "abc%" is not an integer or a percentage',
      scoped: ['spec.pools[0].maxUnavailable: "abc%" is not an integer or a percentage (pool gpu admits nothing until this is fixed)'],
    },
    {
      rule: 'an invalid pool window closes that pool',
      spec: { pools: [{ ...gpu, windows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Mars/Olympus' }] }] },
      pool: undefined,
      scoped: ['spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)'],
    },
    {
      rule: 'an invalid cluster window closes the cluster',
      spec: { windows: [{ schedule: '0 2 * * 8', duration: '1h' }] },
      pool: undefined,
      scoped: ['spec.windows[0].schedule: "0 2 * * 8" is not a valid cron expression (CronPattern: Invalid value for dayOfWeek: 8) (the cluster admits nothing until this is fixed)'],
    },
  ])('$rule', ({ spec, pool, scoped }) => {
    const loaded = loadLimits(aConfig(spec), 10);
    expect(loaded.problems).toEqual([]);
    expect([loaded.config.maxParallelOperations, loaded.config.maxUnavailable]).toEqual([1, 'unlimited']);
    expect(loaded.config.admission?.scopedProblems).toEqual(scoped);
    expect(loaded.config.admission?.pools[0]?.problem).toBe(pool);
  });

  it.each([
    { rule: 'duplicate pool names', spec: { pools: [gpu, gpu] }, problem: 'spec.pools: duplicate pool names are not allowed (list-type map, key name)' },
    { rule: 'a pool without a selector', spec: { pools: [{ name: 'gpu' }] }, problem: 'spec.pools[0].nodeSelector: Invalid input: expected object, received undefined' },
    { rule: 'an upper-case pool name', spec: { pools: [{ ...gpu, name: 'GPU' }] }, problem: 'spec.pools[0].name: Invalid string: must match pattern /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/' },
    { rule: 'a Gt operator (node selectors only)', spec: { pools: [{ name: 'gpu', nodeSelector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] } }] }, problem: 'spec.pools[0].nodeSelector.matchExpressions[0].operator: Invalid option: expected one of "In"|"NotIn"|"Exists"|"DoesNotExist"' },
    { rule: 'a duration in seconds', spec: { windows: [{ schedule: '0 2 * * *', duration: '3600s' }] }, problem: 'spec.windows[0].duration: Invalid string: must match pattern /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/' },
    { rule: 'an unknown window key', spec: { windows: [{ schedule: '0 2 * * *', duration: '1h', tz: 'UTC' }] }, problem: 'spec.windows[0]: Unrecognized key: "tz"' },
  ])('the schema refuses $rule, so both limits are invalid', ({ spec, problem }) => {
    const loaded = loadLimits(aConfig(spec), 10);
    expect(loaded.problems).toEqual([problem]);
    expect([loaded.config.maxParallelOperations, loaded.config.maxUnavailable]).toEqual([null, null]);
  });
});
