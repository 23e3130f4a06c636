import { readFileSync } from 'node:fs';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Action, MaintenanceOperatorConfig } from '../api/index.ts';
import { acceptsUpstreamSchema, CRDS_IN_FORCE, foreignBecause, judgeCrd, planForeignCrdEvent, type CrdRead } from './crd-schema.ts';

const CRD = 'maintenanceoperatorconfigs.maintenance.nvidia.com';
const kmaints = (): V1CustomResourceDefinition => parse(readFileSync(`crds/${CRD}.yaml`, 'utf8')) as V1CustomResourceDefinition;
/** kmaint's extensions of the config's spec (../shared/reference/in-cluster-notes.md §1.7), in the CRD's order. */
const EXTENSIONS = ['pools', 'maxUnavailablePerZone', 'zoneLabel', 'windows', 'nodeHandshake', 'reaper', 'slurm', 'draResourceNames', 'nodeConditions', 'outOfServiceTaint'];

/** kmaint's CRD with `drop` applied to its v1alpha1 schema's spec and status properties. */
function edited(opts: { annotation: boolean; dropSpec?: string[]; dropConditions?: boolean }): V1CustomResourceDefinition {
  const crd = kmaints();
  if (!opts.annotation) delete crd.metadata?.annotations?.['kmaint.io/crd-schema'];
  const props = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties ?? {};
  for (const f of opts.dropSpec ?? []) delete props['spec']?.properties?.[f];
  if (opts.dropConditions === true) delete props['status']?.properties?.['conditions'];
  return crd;
}
/** The upstream operator's shape: no annotation, none of kmaint's spec fields, a status without conditions. */
const upstream = (): V1CustomResourceDefinition => edited({ annotation: false, dropSpec: EXTENSIONS, dropConditions: true });

const config = (annotations?: Record<string, string>): MaintenanceOperatorConfig => ({
  metadata: { name: 'default', namespace: 'kmaint', uid: 'uid-config', ...(annotations ? { annotations } : {}) },
  spec: {},
});

const FIX =
  "kubectl apply -f crds/ (after any chart that installs the upstream operator's CRDs, such as the NVIDIA network operator's maintenance-operator sub-chart, " +
  'or disable that sub-chart\'s CRDs), or annotate the config kmaint.io/accept-upstream-schema=true to run on the upstream schema';
const refusal = (why: string): string =>
  `kmaint's CRDs are not in force: CustomResourceDefinition ${CRD} ${why}; the API server prunes the config's fields that schema lacks, so no new maintenance is admitted until: ${FIX}`;
const UPSTREAM_WHY =
  'has no kmaint.io/crd-schema annotation and its schema lacks spec.pools, spec.maxUnavailablePerZone, spec.zoneLabel, spec.windows, spec.nodeHandshake, ' +
  'spec.reaper, spec.slurm, spec.draResourceNames, spec.nodeConditions, spec.outOfServiceTaint, status.conditions';

describe('foreignBecause: what tells kmaint\'s config CRD from another', () => {
  it.each<[string, V1CustomResourceDefinition | undefined, string | undefined]>([
    ["kmaint's own CRD (crds/) is kmaint's", kmaints(), undefined],
    ["the upstream operator's shape lacks the annotation and every kmaint field", upstream(), UPSTREAM_WHY],
    ['the annotation kept but the schema replaced (server-side apply by another manager)', edited({ annotation: true, dropSpec: ['pools', 'windows'] }), 'its schema lacks spec.pools, spec.windows'],
    ['the schema kept but the annotation gone', edited({ annotation: false }), 'has no kmaint.io/crd-schema annotation'],
    ['an older CRD lacking one field kmaint now reads', edited({ annotation: true, dropSpec: ['outOfServiceTaint'] }), 'its schema lacks spec.outOfServiceTaint'],
    ['no CRD at all', undefined, 'is not installed'],
  ])('%s', (_rule, crd, why) => {
    expect(foreignBecause(crd)).toBe(why);
  });
});

describe('judgeCrd: fails closed unless the config acknowledges the upstream schema', () => {
  const upstreamRead: CrdRead = { kind: 'read', crd: upstream() };
  it.each<[string, CrdRead, MaintenanceOperatorConfig | undefined, Omit<ReturnType<typeof judgeCrd>, 'kind'> & { kind: string }]>([
    ['in force: nothing refused, nothing to report', { kind: 'read', crd: kmaints() }, config(), { kind: 'in-force', reportable: [], configWritable: true, line: CRDS_IN_FORCE }],
    ['upstream schema: refused; the config is not written (a write would make the pruning permanent)', upstreamRead, config(), { kind: 'refused', refusal: refusal(UPSTREAM_WHY), reportable: [], configWritable: false, line: refusal(UPSTREAM_WHY) }],
    [
      'annotation missing on a schema with every kmaint field: refused and reported on the Valid condition',
      { kind: 'read', crd: edited({ annotation: false }) },
      config(),
      { kind: 'refused', refusal: refusal('has no kmaint.io/crd-schema annotation'), reportable: [refusal('has no kmaint.io/crd-schema annotation')], configWritable: true, line: refusal('has no kmaint.io/crd-schema annotation') },
    ],
    [
      'no config CRD: no stored config could have lost fields, so the defaults apply as before',
      { kind: 'read', crd: undefined },
      config(),
      { kind: 'absent', reportable: [], configWritable: true, line: `CustomResourceDefinition ${CRD} is not installed: no config is stored, kmaint's defaults apply` },
    ],
    ['no config object: refused the same', upstreamRead, undefined, { kind: 'refused', refusal: refusal(UPSTREAM_WHY), reportable: [], configWritable: false, line: refusal(UPSTREAM_WHY) }],
    [
      'acknowledged with kmaint.io/accept-upstream-schema=true: admits, and says so',
      upstreamRead,
      config({ 'kmaint.io/accept-upstream-schema': 'true' }),
      { kind: 'acknowledged', reportable: [], configWritable: false, line: `admitting on the upstream schema (kmaint.io/accept-upstream-schema=true on the config): ${refusal(UPSTREAM_WHY)}` },
    ],
    ['an acknowledgement other than "true" is none', upstreamRead, config({ 'kmaint.io/accept-upstream-schema': 'yes' }), { kind: 'refused', refusal: refusal(UPSTREAM_WHY), reportable: [], configWritable: false, line: refusal(UPSTREAM_WHY) }],
    [
      'unreadable (RBAC refused): refused, naming the rule it needs',
      { kind: 'unreadable', message: 'reading CustomResourceDefinition x: 403 forbidden' },
      config(),
      {
        kind: 'refused',
        refusal: `cannot tell whether kmaint's CRDs are in force (reading CustomResourceDefinition x: 403 forbidden; kmaint's ClusterRole needs get on customresourcedefinitions ${CRD}): no new maintenance is admitted until it can be read, or annotate the config kmaint.io/accept-upstream-schema=true`,
        reportable: [],
        configWritable: false,
        line: `cannot tell whether kmaint's CRDs are in force (reading CustomResourceDefinition x: 403 forbidden; kmaint's ClusterRole needs get on customresourcedefinitions ${CRD}): no new maintenance is admitted until it can be read, or annotate the config kmaint.io/accept-upstream-schema=true`,
      },
    ],
  ])('%s', (_rule, read, cfg, standing) => {
    expect(judgeCrd(read, acceptsUpstreamSchema(cfg))).toEqual(standing);
  });

  it('the refusal fits in one Event message (1,024 characters)', () => {
    expect(refusal(UPSTREAM_WHY).length).toBeLessThanOrEqual(1024);
  });
});

describe('planForeignCrdEvent: one ForeignCRDs warning when a pass newly refuses requests', () => {
  const standing = judgeCrd({ kind: 'read', crd: upstream() }, acceptsUpstreamSchema(config()));
  const message = `waiting: ${refusal(UPSTREAM_WHY)}`;
  const write = (msg: string, name = 'nm-1'): Action => ({
    kind: 'writeStatus',
    target: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: '1' },
    status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message: msg, lastTransitionTime: '2026-01-15T12:00:00Z' }] },
    reason: `new request, ${msg}`,
  });
  // The scheduling plan's keys of the requests waiting because admission is closed: the event is decided from them, not the text.
  const closed = ['default/nm-1', 'default/nm-2'];

  it.each<[string, Action[], MaintenanceOperatorConfig | undefined, number]>([
    ['a request newly refused: one event', [write(message)], config(), 1],
    ['two requests newly refused: still one event', [write(message), write(message, 'nm-2')], config(), 1],
    ['nothing newly refused (the messages already say it): none', [], config(), 0],
    ['a write of a request waiting on something else: none', [write('waiting: maxParallelOperations 1 reached (1 in progress)', 'nm-3')], config(), 0],
    ['no config object to put it on: none', [write(message)], undefined, 0],
  ])('%s', (_rule, actions, cfg, events) => {
    expect(planForeignCrdEvent(cfg, standing, actions, closed).length).toBe(events);
  });

  it('the event names the CRD and the fix, on the config, as a Warning ForeignCRDs', () => {
    expect(planForeignCrdEvent(config(), standing, [write(message), write(message, 'nm-2')], closed)).toEqual([
      {
        kind: 'emitEvent',
        target: { kind: 'MaintenanceOperatorConfig', namespace: 'kmaint', name: 'default', uid: 'uid-config' },
        type: 'Warning',
        eventReason: 'ForeignCRDs',
        message: refusal(UPSTREAM_WHY),
        reason: "2 requests refused: kmaint's CRDs are not in force",
      },
    ]);
  });

  it('acknowledged: no event', () => {
    const acknowledged = judgeCrd({ kind: 'read', crd: upstream() }, acceptsUpstreamSchema(config({ 'kmaint.io/accept-upstream-schema': 'true' })));
    expect(planForeignCrdEvent(config(), acknowledged, [write(message)], closed)).toEqual([]);
  });
});
