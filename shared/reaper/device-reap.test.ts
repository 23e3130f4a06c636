// The reaper files a device request when spec.reaper.devicesFrom names failing devices (issue 45 point 2): not
// cordoned, no termination, no repair ladder; released once the devices are no longer named; guards count Nodes.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, NodeMaintenance } from '#api';
import { loadReaperConfig } from './config.ts';
import { planReaper, type ReaperPlan } from './plan.ts';
import { providerMap, type InstanceProvider } from './providers.ts';
import { aReaperNode, aReapRequest, instanceIdOf, NOW, reaperConfig } from './test-builders.ts';

const aws: InstanceProvider = { prefix: 'aws', terminate: () => Promise.resolve('terminated') };
const GPU_HEALTH = "conditions[?'GpuUnhealthy'].orValue('False') == 'True'";
const DEVICES = {
  unhealthyForSeconds: 300,
  newNodeGracePeriodSeconds: 300,
  maxNodesUnhealthy: 2,
  maxNodesUnhealthyInSameZone: 1,
  dryRun: false,
  reapPredicate: GPU_HEALTH,
  unhealthyPredicate: GPU_HEALTH,
  // A health agent annotates each failing GPU: gpu-health.example.com/<gpu> = driver/pool/device.
  devicesFrom: "annotations.filter(k, k.startsWith('gpu-health.example.com/')).map(k, annotations[k])",
};

function plan(nodes: V1Node[], maintenances: NodeMaintenance[] = [], reaper: Record<string, unknown> = {}): ReaperPlan {
  return planReaper({ nodes, maintenances, namespace: 'kmaint', providers: providerMap([aws]) }, reaperConfig({ ...DEVICES, ...reaper }), NOW);
}

function gpuNode(name: string, failed: Record<string, string>, more: { zone?: string; providerID?: string | null } = {}): V1Node {
  const annotations = Object.fromEntries(Object.entries(failed).map(([gpu, device]) => [`gpu-health.example.com/${gpu}`, device]));
  return aReaperNode({ name, zone: more.zone ?? 'a', conditions: { GpuUnhealthy: ['True', 600] }, annotations, ...(more.providerID !== undefined ? { providerID: more.providerID } : {}) });
}

const healthy = (name: string, zone: string): V1Node => aReaperNode({ name, zone });

describe('the reaper and failing devices (spec.reaper.devicesFrom)', () => {
  it('files a device request: kmaint.io/devices sorted, not cordoned, kept from garbage collection, no instance named (none needed)', () => {
    const p = plan([gpuNode('g-1', { 'gpu-3': 'gpu.nvidia.com/g-1/gpu-3', 'gpu-1': 'gpu.nvidia.com/g-1/gpu-1' }, { providerID: null }), healthy('h-1', 'b')]);
    expect(p.decisions).toEqual([{ node: 'g-1' }]);
    expect(p.actions).toEqual<Action[]>([
      {
        kind: 'createMaintenance',
        target: { namespace: 'kmaint', name: 'reap-g-1' },
        labels: { 'kmaint.io/reaper': 'true' },
        annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/g-1/gpu-1,gpu.nvidia.com/g-1/gpu-3', 'maintenance.nvidia.com/garbage-collector.ignore': 'true', 'kmaint.io/reaper-force-retry-on-error': 'true' },
        spec: { requestorID: 'reaper.kmaint.io', nodeName: 'g-1', cordon: false, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 310 } },
        reason: 'reap devices gpu.nvidia.com/g-1/gpu-1, gpu.nvidia.com/g-1/gpu-3 of node g-1: matches reapPredicate, named by devicesFrom, within the guards',
      },
      {
        kind: 'emitEvent',
        target: { kind: 'Node', namespace: '', name: 'g-1', uid: 'uid-g-1' },
        type: 'Normal',
        eventReason: 'ReapRequested',
        message: 'device reap requested: kmaint/reap-g-1 taints gpu.nvidia.com/g-1/gpu-1, gpu.nvidia.com/g-1/gpu-3 and drains the pods holding them; the node stays in service, nothing is terminated',
        reason: 'reap requested',
      },
    ]);
  });

  it('no device named: the node request as before (cordon, the instance to terminate)', () => {
    const p = plan([gpuNode('g-1', {}), healthy('h-1', 'b')]);
    expect(p.actions[0]).toMatchObject({ kind: 'createMaintenance', annotations: { 'kmaint.io/reaper-provider-id': `aws:///a/${instanceIdOf('g-1')}`, 'kmaint.io/reaper-force-retry-on-error': 'true' }, spec: { cordon: true } });
    expect((p.actions[0] as Extract<Action, { kind: 'createMaintenance' }>).annotations).not.toHaveProperty('kmaint.io/devices');
  });

  it('a device that cannot be requested holds the Node back with the reason, never a node request instead', () => {
    const p = plan([gpuNode('g-1', { 'gpu-3': 'gpu-3' }), healthy('h-1', 'b')]);
    const why = 'spec.reaper.devicesFrom gave devices that cannot be requested: "gpu-3" is not driver/pool/device';
    expect(p.decisions).toEqual([{ node: 'g-1', skipped: why }]);
    expect(p.actions.map((a) => a.kind)).toEqual(['patchNodeAnnotations', 'emitEvent']);
  });

  it('dry run: says what it would file, writes nothing', () => {
    const p = plan([gpuNode('g-1', { 'gpu-3': 'gpu.nvidia.com/g-1/gpu-3' }), healthy('h-1', 'b')], [], { dryRun: true });
    expect(p.actions).toEqual([
      { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'g-1', uid: 'uid-g-1' }, type: 'Normal', eventReason: 'ReapRequested', message: 'dry run: would request kmaint/reap-g-1 for devices gpu.nvidia.com/g-1/gpu-3; the node stays in service, nothing is terminated', reason: 'reaper decision' },
    ]);
  });

  it('the guards count Nodes, one per Node whatever its number of failing devices', () => {
    const nodes = [gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-0', b: 'gpu.nvidia.com/g-1/gpu-1' }, { zone: 'a' }), gpuNode('g-2', { a: 'gpu.nvidia.com/g-2/gpu-0' }, { zone: 'b' }), gpuNode('g-3', { a: 'gpu.nvidia.com/g-3/gpu-0' }, { zone: 'c' }), healthy('h-1', 'd')];
    const p = plan(nodes);
    expect(p.counts.unhealthy).toBe(3);
    expect(p.decisions.map((d) => d.skipped)).toEqual(Array(3).fill('cluster guard: 3 of 4 nodes are unhealthy, more than maxNodesUnhealthy 2'));
    expect(plan(nodes.slice(1)).decisions).toEqual([{ node: 'g-2' }, { node: 'g-3' }]);
  });

  it('another requestor\'s request on the Node holds a device reap back even with joinExistingRequests', () => {
    const theirs: NodeMaintenance = { ...aReapRequest('g-1', 'Pending'), metadata: { name: 'fw', namespace: 'ops', uid: 'u-fw' }, spec: { requestorID: 'fw.example.com', nodeName: 'g-1' } } as NodeMaintenance;
    const p = plan([gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-0' }), healthy('h-1', 'b')], [theirs], { joinExistingRequests: true });
    expect(p.decisions).toEqual([{ node: 'g-1', skipped: 'already in maintenance: ops/fw by fw.example.com (a device reap joins no request)' }]);
  });

  it('with the repair ladder: a device request, not the ladder\'s; a Node without devices still gets the ladder\'s', () => {
    const repair = { repair: { ladder: [{ remedy: 'reboot' }] } };
    const creates = (p: ReaperPlan): Array<Record<string, string>> => p.actions.flatMap((a) => (a.kind === 'createMaintenance' ? [a.annotations] : []));
    expect(creates(plan([gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-0' }), healthy('h-1', 'b')], [], repair))).toEqual([
      { 'kmaint.io/devices': 'gpu.nvidia.com/g-1/gpu-0', 'maintenance.nvidia.com/garbage-collector.ignore': 'true', 'kmaint.io/reaper-force-retry-on-error': 'true' },
    ]);
    expect(creates(plan([gpuNode('g-1', {}), healthy('h-1', 'b')], [], repair))[0]).toMatchObject({ 'kmaint.io/reboot': 'true' });
  });

  it('a Ready device reap is never terminated; released once devicesFrom names none of its devices or the Node is healthy', () => {
    const reap = aReapRequest('g-1', 'Ready', { namespace: 'kmaint', annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/g-1/gpu-3', 'maintenance.nvidia.com/garbage-collector.ignore': 'true' } });
    const still = plan([gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-3' }), healthy('h-1', 'b')], [reap]);
    expect([still.actions, still.terminations]).toEqual([[], []]);
    const release = (reason: string): Action[] => [{ kind: 'deleteMaintenance', target: { namespace: 'kmaint', name: 'reap-g-1', uid: 'uid-reap-g-1', resourceVersion: '11' }, reason: `release device reap kmaint/reap-g-1 (gpu.nvidia.com/g-1/gpu-3): ${reason}` } as Action];
    const other = plan([gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-5' }), healthy('h-1', 'b')], [reap]);
    expect([other.actions, other.terminations]).toEqual([release('devicesFrom names none of its devices'), []]);
    const recovered = plan([healthy('g-1', 'a'), healthy('h-1', 'b')], [reap]);
    expect([recovered.actions, recovered.terminations]).toEqual([release('the node no longer matches reapPredicate'), []]);
    // Even with skipReaping off and a provider, and with the Node's own instance recorded, nothing is terminated.
    expect(plan([gpuNode('g-1', { a: 'gpu.nvidia.com/g-1/gpu-3' }), healthy('h-1', 'b')], [{ ...reap, metadata: { ...reap.metadata, annotations: { 'kmaint.io/devices': 'gpu.nvidia.com/g-1/gpu-3' } } }]).terminations).toEqual([]);
  });

  it('a devicesFrom that is not a list of strings stops the reaper, naming the field', () => {
    const spec = (devicesFrom: string): unknown => ({ apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: { reaper: { enabled: true, devicesFrom } } });
    expect(loadReaperConfig(spec("name == 'x'"))).toEqual({ kind: 'invalid', problems: ['spec.reaper.devicesFrom: the expression is of type bool, expected list<string>; the reaper is stopped until this is fixed'] });
    expect(loadReaperConfig(spec('[]'))).toMatchObject({ kind: 'enabled' });
  });
});
