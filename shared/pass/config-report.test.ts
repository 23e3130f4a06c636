// Table tests for planConfigReport: the Valid condition (global and scoped problems) and the PoolsOverlap condition,
// each written only when it changes, with a Warning event when it turns bad.
import { describe, expect, it } from 'vitest';
import type { Action, Condition, MaintenanceOperatorConfig } from '../api/index.ts';
import { describeOverlaps, planConfigReport } from './config-report.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const EARLIER = '2025-12-01T00:00:00Z';

function aConfig(conditions?: Condition[]): MaintenanceOperatorConfig {
  return {
    metadata: { name: 'default', namespace: 'kmaint', uid: 'uid-cfg', resourceVersion: '5', generation: 2 },
    spec: {},
    ...(conditions ? { status: { conditions } } : {}),
  };
}

const condition = (type: string, status: 'True' | 'False', reason: string, message: string, at = EARLIER): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
  observedGeneration: 2,
});

const target = { namespace: 'kmaint', name: 'default', resourceVersion: '5' };
const warning = (eventReason: string, message: string, reason: string): Action => ({
  kind: 'emitEvent',
  target: { kind: 'MaintenanceOperatorConfig', namespace: 'kmaint', name: 'default', uid: 'uid-cfg' },
  type: 'Warning',
  eventReason,
  message,
  reason,
});

const OVERLAP_MESSAGE = '2 nodes are selected by more than one pool and belong to the first listed: n1 (gpu, all), n2 (gpu, all)';
const overlaps = [
  { node: 'n1', pools: ['gpu', 'all'] },
  { node: 'n2', pools: ['gpu', 'all'] },
];

describe('planConfigReport', () => {
  it.each<{ rule: string; config: MaintenanceOperatorConfig | undefined; problems: string[]; scoped?: string[]; notes?: string[]; overlaps?: typeof overlaps; actions: Action[] }>([
    { rule: 'no config object: nothing to write to', config: undefined, problems: ['p'], actions: [] },
    { rule: 'a valid config never reported on: nothing', config: aConfig(), problems: [], scoped: [], overlaps: [], actions: [] },
    {
      rule: 'global problems: Valid False with the upstream-era text, and an InvalidConfig event',
      config: aConfig(),
      problems: ['spec.maxUnavailable: "abc%" is not an integer or a percentage'],
      actions: [
        {
          kind: 'writeConfigStatus',
          target,
          conditions: [condition('Valid', 'False', 'InvalidValue', 'spec.maxUnavailable: "abc%" is not an integer or a percentage; no new maintenance is admitted until this is fixed', '2026-01-01T00:00:00Z')],
          reason: 'spec.maxUnavailable: "abc%" is not an integer or a percentage; no new maintenance is admitted until this is fixed',
        },
        warning('InvalidConfig', 'spec.maxUnavailable: "abc%" is not an integer or a percentage; no new maintenance is admitted until this is fixed', 'invalid configuration'),
      ],
    },
    {
      rule: 'a scoped problem names its scope; the rest of the cluster is not said to stop',
      config: aConfig([condition('Valid', 'True', 'Valid', 'configuration is valid')]),
      problems: [],
      scoped: ['spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)'],
      actions: [
        {
          kind: 'writeConfigStatus',
          target,
          conditions: [condition('Valid', 'False', 'InvalidValue', 'spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)', '2026-01-01T00:00:00Z')],
          reason: 'spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)',
        },
        warning('InvalidConfig', 'spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)', 'invalid configuration'),
      ],
    },
    {
      rule: 'a note (an unset spec.slurm.workerNamespaces) is said on Valid, which stays True: no InvalidConfig event',
      config: aConfig(),
      problems: [],
      scoped: [],
      notes: ['n'],
      actions: [{ kind: 'writeConfigStatus', target, conditions: [condition('Valid', 'True', 'Valid', 'configuration is valid; note: n', '2026-01-01T00:00:00Z')], reason: 'configuration is valid; note: n' }],
    },
    {
      rule: 'the note again writes nothing',
      config: aConfig([condition('Valid', 'True', 'Valid', 'configuration is valid; note: n')]),
      problems: [],
      notes: ['n'],
      actions: [],
    },
    {
      rule: 'the note gone: Valid says plainly valid, keeping its transition time',
      config: aConfig([condition('Valid', 'True', 'Valid', 'configuration is valid; note: n')]),
      problems: [],
      notes: [],
      actions: [{ kind: 'writeConfigStatus', target, conditions: [condition('Valid', 'True', 'Valid', 'configuration is valid')], reason: 'configuration is valid' }],
    },
    {
      rule: 'a note follows the problems when the config is invalid',
      config: aConfig([condition('Valid', 'False', 'InvalidValue', 'g; no new maintenance is admitted until this is fixed')]),
      problems: ['g'],
      notes: ['n'],
      actions: [
        {
          kind: 'writeConfigStatus',
          target,
          conditions: [condition('Valid', 'False', 'InvalidValue', 'g; no new maintenance is admitted until this is fixed; note: n')],
          reason: 'g; no new maintenance is admitted until this is fixed; note: n',
        },
        warning('InvalidConfig', 'g; no new maintenance is admitted until this is fixed; note: n', 'invalid configuration'),
      ],
    },
    {
      rule: 'unchanged problems write nothing',
      config: aConfig([condition('Valid', 'False', 'InvalidValue', 'g; no new maintenance is admitted until this is fixed; s (pool gpu admits nothing until this is fixed)')]),
      problems: ['g'],
      scoped: ['s (pool gpu admits nothing until this is fixed)'],
      actions: [],
    },
    {
      rule: 'nodes in several pools: PoolsOverlap True naming them, and a PoolsOverlap event; Valid is not touched',
      config: aConfig(),
      problems: [],
      scoped: [],
      overlaps,
      actions: [
        { kind: 'writeConfigStatus', target, conditions: [condition('PoolsOverlap', 'True', 'NodesInSeveralPools', OVERLAP_MESSAGE, '2026-01-01T00:00:00Z')], reason: OVERLAP_MESSAGE },
        warning('PoolsOverlap', OVERLAP_MESSAGE, 'nodes in several pools'),
      ],
    },
    {
      rule: 'the same overlap again writes nothing',
      config: aConfig([condition('PoolsOverlap', 'True', 'NodesInSeveralPools', OVERLAP_MESSAGE)]),
      problems: [],
      overlaps,
      actions: [],
    },
    {
      rule: 'overlap gone: PoolsOverlap False, no event, other conditions kept in place',
      config: aConfig([condition('PoolsOverlap', 'True', 'NodesInSeveralPools', OVERLAP_MESSAGE), condition('Valid', 'True', 'Valid', 'configuration is valid')]),
      problems: [],
      overlaps: [],
      actions: [
        {
          kind: 'writeConfigStatus',
          target,
          conditions: [condition('Valid', 'True', 'Valid', 'configuration is valid'), condition('PoolsOverlap', 'False', 'Disjoint', 'every node is selected by at most one pool', '2026-01-01T00:00:00Z')],
          reason: 'every node is selected by at most one pool',
        },
      ],
    },
    {
      rule: 'overlaps not computed (undefined) leave an existing PoolsOverlap condition alone',
      config: aConfig([condition('PoolsOverlap', 'True', 'NodesInSeveralPools', OVERLAP_MESSAGE)]),
      problems: [],
      actions: [],
    },
    {
      rule: 'both change: one status write, one event each',
      config: aConfig(),
      problems: ['g'],
      overlaps: [{ node: 'n1', pools: ['a', 'b'] }],
      actions: [
        {
          kind: 'writeConfigStatus',
          target,
          conditions: [
            condition('Valid', 'False', 'InvalidValue', 'g; no new maintenance is admitted until this is fixed', '2026-01-01T00:00:00Z'),
            condition('PoolsOverlap', 'True', 'NodesInSeveralPools', '1 node is selected by more than one pool and belongs to the first listed: n1 (a, b)', '2026-01-01T00:00:00Z'),
          ],
          reason: 'g; no new maintenance is admitted until this is fixed; 1 node is selected by more than one pool and belongs to the first listed: n1 (a, b)',
        },
        warning('InvalidConfig', 'g; no new maintenance is admitted until this is fixed', 'invalid configuration'),
        warning('PoolsOverlap', '1 node is selected by more than one pool and belongs to the first listed: n1 (a, b)', 'nodes in several pools'),
      ],
    },
  ])('$rule', ({ config, problems, scoped, notes, overlaps: o, actions }) => {
    expect(planConfigReport(config, problems, NOW, { ...(scoped ? { scopedProblems: scoped } : {}), ...(notes ? { notes } : {}), ...(o ? { poolOverlaps: o } : {}) })).toEqual(actions);
  });

  it('names at most 20 nodes and counts the rest', () => {
    const many = Array.from({ length: 23 }, (_, i) => ({ node: `n${String(i + 1).padStart(2, '0')}`, pools: ['a', 'b'] }));
    expect(describeOverlaps(many)).toBe(`${many.slice(0, 20).map((o) => `${o.node} (a, b)`).join(', ')} and 3 more`);
  });
});
