// Requests that bypassed the CRD's validation are set apart with every problem named, and reported once where a write
// can land (an event each pass where none can).
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import type { V1Node } from '@kubernetes/client-node';
import { MALFORMED_VERDICTS_KEPT, malformedMessage, planMalformedReleases, planMalformedReports, setApartMalformed } from './malformed.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const meta = (name: string): NodeMaintenance['metadata'] => ({ name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7' });
const good = { metadata: meta('good'), spec: { requestorID: 'a.example.com', nodeName: 'n1' } } as NodeMaintenance;
const bypassed = (name: string, rest: Record<string, unknown>): NodeMaintenance => ({ metadata: meta(name), ...rest }) as unknown as NodeMaintenance;

describe('setApartMalformed', () => {
  it.each<[string, NodeMaintenance, string]>([
    ['no spec', bypassed('a', {}), 'spec: Invalid input: expected object, received undefined'],
    ['nodeName a number', bypassed('b', { spec: { requestorID: 'a.example.com', nodeName: 42 } }), 'spec.nodeName: Invalid input: expected string, received number'],
    ['drainSpec a string, cordon a string', bypassed('c', { spec: { requestorID: 'a.example.com', nodeName: 'n1', cordon: 'yes', drainSpec: 'all' } }), 'spec.cordon: Invalid input: expected boolean, received string; spec.drainSpec: Invalid input: expected object, received string'],
    ['requestorID missing', bypassed('d', { spec: { nodeName: 'n1' } }), 'spec.requestorID: Invalid input: expected string, received undefined'],
    // Issue 40: what kmaint's CRD refuses at create is refused by kmaint too, as the upstream CRD may be installed instead.
    ['nodeName not a Node name (it would end a field selector term)', bypassed('f', { spec: { requestorID: 'a.example.com', nodeName: 'a,b' } }), "spec.nodeName: not a Node name (a DNS-1123 subdomain: lower-case letters, digits, '-' and '.')"],
    ['nodeName longer than a Node name', bypassed('g', { spec: { requestorID: 'a.example.com', nodeName: 'x'.repeat(254) } }), 'spec.nodeName: Too big: expected string to have <=253 characters'],
    ['65 additionalRequestors', bypassed('h', { spec: { requestorID: 'a.example.com', nodeName: 'n1', additionalRequestors: Array.from({ length: 65 }, (_, i) => `r${i}`) } }), 'spec.additionalRequestors: Too big: expected array to have <=64 items'],
    ['an additional requestor longer than a requestorID', bypassed('i', { spec: { requestorID: 'a.example.com', nodeName: 'n1', additionalRequestors: ['y'.repeat(64)] } }), 'spec.additionalRequestors[0]: Too big: expected string to have <=63 characters'],
    ['podSelectors of 4097 characters', bypassed('j', { spec: { requestorID: 'a.example.com', nodeName: 'n1', waitForPodCompletion: { podSelector: 'a'.repeat(4097) }, drainSpec: { podSelector: 'a'.repeat(4097) } } }), 'spec.waitForPodCompletion.podSelector: Too big: expected string to have <=4096 characters; spec.drainSpec.podSelector: Too big: expected string to have <=4096 characters'],
    ['33 podEvictionFilters', bypassed('k', { spec: { requestorID: 'a.example.com', nodeName: 'n1', drainSpec: { podEvictionFilters: Array.from({ length: 33 }, () => ({})) } } }), 'spec.drainSpec.podEvictionFilters: Too big: expected array to have <=32 items'],
    ['a filter regex of 1025 characters', bypassed('l', { spec: { requestorID: 'a.example.com', nodeName: 'n1', drainSpec: { podEvictionFilters: [{ byResourceNameRegex: 'r'.repeat(1025) }] } } }), 'spec.drainSpec.podEvictionFilters[0].byResourceNameRegex: Too big: expected string to have <=1024 characters'],
    ['conditions not a list', bypassed('e', { spec: { requestorID: 'a.example.com', nodeName: 'n1' }, status: { conditions: 'Ready' } }), 'status.conditions: Invalid input: expected array, received string'],
  ])('%s is set apart naming the field', (_name, nm, problem) => {
    expect(setApartMalformed([good, nm])).toEqual({ valid: [good], malformed: [{ nm, problem }] });
  });

  it('one version of an object (uid and resourceVersion) is validated once; a new version, or one without them, again', () => {
    const v1 = { metadata: { ...meta('cached'), resourceVersion: '100' }, spec: { nodeName: 'n1' } } as unknown as NodeMaintenance;
    const problem = 'spec.requestorID: Invalid input: expected string, received undefined';
    expect(setApartMalformed([v1]).malformed).toEqual([{ nm: v1, problem }]);
    // The API server never changes an object without a new resourceVersion: the same version keeps its verdict.
    const sameVersion = { ...v1, spec: { requestorID: 'a.example.com', nodeName: 'n1' } } as NodeMaintenance;
    expect(setApartMalformed([sameVersion]).malformed).toEqual([{ nm: sameVersion, problem }]);
    const v2 = { ...sameVersion, metadata: { ...sameVersion.metadata, resourceVersion: '101' } } as NodeMaintenance;
    expect(setApartMalformed([v2])).toEqual({ valid: [v2], malformed: [] });
    const unversioned = { metadata: { name: 'x', namespace: 'ns' }, spec: { nodeName: 'n1' } } as unknown as NodeMaintenance;
    expect(setApartMalformed([unversioned]).malformed).toEqual([{ nm: unversioned, problem }]);
    const fixed = { ...unversioned, spec: { requestorID: 'a.example.com', nodeName: 'n1' } } as NodeMaintenance;
    expect(setApartMalformed([fixed])).toEqual({ valid: [fixed], malformed: [] });
  });

  it(`keeps at most ${MALFORMED_VERDICTS_KEPT} verdicts, the oldest going first`, () => {
    const first = { metadata: { ...meta('oldest'), resourceVersion: '1' }, spec: { nodeName: 'n1' } } as unknown as NodeMaintenance;
    expect(setApartMalformed([first]).malformed).toHaveLength(1);
    const others = Array.from({ length: MALFORMED_VERDICTS_KEPT }, (_, i) => ({ metadata: { ...meta(`filler-${i}`), resourceVersion: '1' }, spec: { requestorID: 'a.example.com', nodeName: 'n1' } }) as NodeMaintenance);
    expect(setApartMalformed(others).valid).toHaveLength(MALFORMED_VERDICTS_KEPT);
    // Its verdict was dropped, so the same version is validated again (here with a body that passes, to show it).
    const again = { ...first, spec: { requestorID: 'a.example.com', nodeName: 'n1' } } as NodeMaintenance;
    expect(setApartMalformed([again])).toEqual({ valid: [again], malformed: [] });
  });
});

describe('planMalformedReports', () => {
  it('a writable object gets a Warning event and the Ready condition once; the next pass writes nothing', () => {
    const nm = bypassed('a', {});
    const { actions, repeated } = planMalformedReports(setApartMalformed([nm]).malformed, NOW);
    const message = malformedMessage('spec: Invalid input: expected object, received undefined');
    expect(repeated).toBe(0);
    expect(actions).toEqual([
      { kind: 'emitEvent', target: { kind: 'NodeMaintenance', namespace: 'ns', name: 'a', uid: 'uid-a' }, type: 'Warning', eventReason: 'InvalidNodeMaintenance', message, reason: 'invalid NodeMaintenance' },
      {
        kind: 'writeStatus',
        target: { namespace: 'ns', name: 'a', uid: 'uid-a', resourceVersion: '7' },
        status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Pending', message, lastTransitionTime: '2026-11-22T12:00:00Z' }] },
        reason: 'invalid NodeMaintenance',
      },
    ]);
    const written = { ...nm, status: (actions[1] as { status: unknown }).status } as NodeMaintenance;
    expect(planMalformedReports(setApartMalformed([written]).malformed, NOW)).toEqual({ actions: [], repeated: 0 });
  });

  it('an object whose nodeName or requestorID has the wrong type (every write refused) gets the event each pass, counted as repeated', () => {
    const nm = bypassed('b', { spec: { requestorID: 7, nodeName: 'n1' } });
    const { actions, repeated } = planMalformedReports(setApartMalformed([nm]).malformed, NOW);
    expect(actions.map((a) => a.kind)).toEqual(['emitEvent']);
    expect(repeated).toBe(1);
  });

  it('an object being deleted is left to its deletion', () => {
    const nm = bypassed('c', { metadata: { ...meta('c'), deletionTimestamp: '2026-11-22T11:00:00Z' } });
    expect(planMalformedReports(setApartMalformed([nm]).malformed, NOW)).toEqual({ actions: [], repeated: 0 });
  });
});

describe('planMalformedReleases', () => {
  const node = (name: string, unschedulable: boolean, holder?: string): V1Node => ({
    metadata: { name, resourceVersion: `rv-${name}`, annotations: holder ? { 'kmaint.io/cordoned-by': holder, 'kmaint.io/cordon-reason': 'x' } : {} },
    spec: { unschedulable },
  });
  const deleting = (name: string, finalizers: string[]): NodeMaintenance => bypassed(name, { metadata: { ...meta(name), deletionTimestamp: '2026-11-22T11:59:00Z', finalizers } });
  const ref = (name: string) => ({ namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: '7' });

  it('a deleted malformed request holding the finalizer: its recorded cordon is undone (record dropped in the same patch), then the finalizer goes', () => {
    const a = deleting('a', ['maintenance.nvidia.com/finalizer']);
    const nodes = [node('n1', true, 'kmaint/ns/a'), node('n2', true, 'kmaint/ns/other'), node('n3', false, 'kmaint/ns/a'), node('n4', true)];
    expect(planMalformedReleases(setApartMalformed([a]).malformed, nodes)).toEqual({
      released: 1,
      actions: [
        { kind: 'uncordonNode', node: { name: 'n1', resourceVersion: 'rv-n1' }, maintenance: ref('a'), annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null }, reason: "invalid ns/a deleted; kmaint's cordon record names it" },
        { kind: 'patchNodeAnnotations', node: { name: 'n3', resourceVersion: 'rv-n3' }, annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null }, maintenance: ref('a'), reason: 'invalid ns/a deleted; drop its cordon record' },
        { kind: 'patchMaintenanceMeta', target: ref('a'), removeFinalizer: true, reason: 'invalid ns/a deleted' },
      ],
    });
  });

  it('a cordon another field manager set after kmaint\'s (managedFields; kmaint wrote the record): kept, only the record goes', () => {
    const a = deleting('a', ['maintenance.nvidia.com/finalizer']);
    const recordOwner = { manager: 'kmaint', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kmaint.io/cordoned-by': {} } } } };
    const cordonOwner = (manager: string) => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } });
    const withOwners = (n: V1Node, cordon: string): V1Node => ({ ...n, metadata: { ...n.metadata, managedFields: [recordOwner, cordonOwner(cordon)] } });
    const nodes = [withOwners(node('n1', true, 'kmaint/ns/a'), 'kubectl'), withOwners(node('n2', true, 'kmaint/ns/a'), 'kmaint')];
    expect(planMalformedReleases(setApartMalformed([a]).malformed, nodes)).toEqual({
      released: 1,
      actions: [
        { kind: 'patchNodeAnnotations', node: { name: 'n1', resourceVersion: 'rv-n1' }, annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null }, maintenance: ref('a'), reason: 'invalid ns/a deleted; drop its cordon record; the cordon was set by kubectl, not kmaint: kept' },
        { kind: 'uncordonNode', node: { name: 'n2', resourceVersion: 'rv-n2' }, maintenance: ref('a'), annotations: { 'kmaint.io/cordoned-by': null, 'kmaint.io/cordon-reason': null }, reason: "invalid ns/a deleted; kmaint's cordon record names it" },
        { kind: 'patchMaintenanceMeta', target: ref('a'), removeFinalizer: true, reason: 'invalid ns/a deleted' },
      ],
    });
  });

  it('nothing for one not being deleted, or without kmaint\'s finalizer', () => {
    const live = bypassed('b', {});
    const foreign = deleting('c', ['example.com/other']);
    expect(planMalformedReleases(setApartMalformed([live, foreign]).malformed, [node('n1', true, 'kmaint/ns/b')])).toEqual({ released: 0, actions: [] });
  });
});

