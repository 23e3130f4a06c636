// spec.reaper loading: off unless enabled, node-reaper's defaults, and every problem naming its field (fail closed).
import { describe, expect, it } from 'vitest';
import { DEFAULT_REAP_PREDICATE, DEFAULT_UNHEALTHY_PREDICATE } from '#api';
import { loadReaperConfig } from './config.ts';

const config = (spec: Record<string, unknown> | undefined) => ({ metadata: { name: 'default', namespace: 'kmaint' }, ...(spec ? { spec } : {}) });

describe('loadReaperConfig', () => {
  it.each<[string, unknown]>([
    ['no config object', undefined],
    ['a config without spec', config(undefined)],
    ['a spec without reaper', config({ maxParallelOperations: 2 })],
    ['reaper: {} (enabled defaults to false)', config({ reaper: {} })],
    ['enabled: false even with bad predicates', config({ reaper: { enabled: false, reapPredicate: 'nonsense(' } })],
    ['a config failing its schema elsewhere, reaper not enabled', config({ maxParallelOperations: [] })],
  ])('is disabled: %s', (_rule, obj) => {
    expect(loadReaperConfig(obj)).toEqual({ kind: 'disabled' });
  });

  it('fills node-reaper\'s defaults (dryRun on) and the reap drainSpec', () => {
    const loaded = loadReaperConfig(config({ reaper: { enabled: true } }));
    if (loaded.kind !== 'enabled') throw new Error(loaded.kind);
    const { reapPredicate, unhealthyPredicate, ...rest } = loaded.config;
    expect([reapPredicate.source, unhealthyPredicate.source]).toEqual([DEFAULT_REAP_PREDICATE, DEFAULT_UNHEALTHY_PREDICATE]);
    expect(rest).toEqual({
      dryRun: true,
      unhealthyForSeconds: 300,
      maxNodesUnhealthy: 1,
      maxNodesUnhealthyInSameZone: 1,
      newNodeGracePeriodSeconds: 300,
      drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 310 },
      forceRetryOnError: true,
      skipReaping: false,
      joinExistingRequests: false,
      provider: 'providerID',
      zoneLabel: 'topology.kubernetes.io/zone',
    });
  });

  it('takes a drainSpec as written, its timeout from drainTimeoutSeconds, the zone label from the config', () => {
    const loaded = loadReaperConfig(config({ zoneLabel: 'example.com/rack', reaper: { enabled: true, drainSpec: { podSelector: 'app!=db', timeoutSeconds: 5 }, drainTimeoutSeconds: 60 } }));
    if (loaded.kind !== 'enabled') throw new Error(loaded.kind);
    expect([loaded.config.drainSpec, loaded.config.zoneLabel]).toEqual([{ podSelector: 'app!=db', force: false, deleteEmptyDir: false, timeoutSeconds: 60 }, 'example.com/rack']);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a reapPredicate that does not parse', { reapPredicate: "conditions.Ready == 'False' &&" }, ['spec.reaper.reapPredicate: Unexpected token: EOF; the reaper is stopped until this is fixed']],
    [
      'matches in the unhealthyPredicate',
      { unhealthyPredicate: "name.matches('(a+)+$')" },
      ['spec.reaper.unhealthyPredicate: matches() runs on the JavaScript regex engine, which user patterns can stall (ReDoS); use re2Matches() (RE2) instead (at column 1); the reaper is stopped until this is fixed'],
    ],
    [
      'both predicates and a limit wrong at once',
      { reapPredicate: 'ageSeconds', unhealthyPredicate: 'Cordoned', maxNodesUnhealthyInSameZone: '1' },
      [
        'spec.reaper.reapPredicate: the expression is of type int, expected bool; the reaper is stopped until this is fixed',
        'spec.reaper.unhealthyPredicate: Unknown variable: Cordoned; the reaper is stopped until this is fixed',
        'spec.reaper.maxNodesUnhealthyInSameZone: "1" is a string without a % sign; write 1 or "1%"; the reaper is stopped until this is fixed',
      ],
    ],
    ['a negative percentage', { maxNodesUnhealthy: '-5%' }, ['spec.reaper.maxNodesUnhealthy: "-5%" is a negative percentage; use 0% or more; the reaper is stopped until this is fixed']],
  ])('is invalid: %s', (_rule, reaper, problems) => {
    expect(loadReaperConfig(config({ reaper: { enabled: true, ...reaper } }))).toEqual({ kind: 'invalid', problems });
  });

  it('is invalid when enabled in a config that fails its schema', () => {
    expect(loadReaperConfig(config({ reaper: { enabled: true, unhealthyForSeconds: -1 } }))).toEqual({
      kind: 'invalid',
      problems: ['spec.reaper: the config does not pass its schema; the reaper is stopped until this is fixed'],
    });
  });
});
