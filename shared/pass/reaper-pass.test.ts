// The reaper pass with spec.cloudEvents: when it runs, which config problems it reports, and which providerIDs it asks
// each provider for (a fake provider at the cloud boundary records the calls).
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action, MaintenanceOperatorConfig } from '../api/index.ts';
import { cloudEventsOn, loadConfig, reaperModeOf, reaperProblems } from './config.ts';
import type { KubeClient } from '../kube/index.ts';
import { providerMap, type InstanceProvider } from '../reaper/index.ts';
import { aRequest } from '../reaper/test-builders.ts';
import { planPass } from './passes.ts';
import { planReaperPass, readScheduledEvents } from './reaper-pass.ts';
import type { BaseSnapshot } from './snapshot.ts';

const meta = { name: 'default', namespace: 'kmaint', uid: 'uid-config' };
const config = (spec: Record<string, unknown>): MaintenanceOperatorConfig => ({ metadata: meta, spec }) as MaintenanceOperatorConfig;

describe('reaperModeOf and cloudEventsOn', () => {
  it.each<[string, Record<string, unknown>, string, boolean]>([
    ['nothing on: the pass is skipped', {}, 'disabled', false],
    ['the reaper in dryRun: events only', { reaper: { enabled: true } }, 'dry-run', false],
    ['cloud events on, the reaper off: a leased pass (it writes requests)', { cloudEvents: { enabled: true } }, 'active', true],
    ['cloud events on, the reaper in dryRun: a leased pass; the reaper itself still only says', { reaper: { enabled: true }, cloudEvents: { enabled: true } }, 'active', true],
    ['cloud events invalid: active, so that the problem is reported', { cloudEvents: { enabled: true, codes: ['reboot'] } }, 'active', true],
  ])('%s', (_rule, spec, mode, on) => {
    expect([reaperModeOf(config(spec)), cloudEventsOn(config(spec))]).toEqual([mode, on]);
  });

  it('an invalid spec.cloudEvents is one problem naming its field', () => {
    expect(reaperProblems(config({ cloudEvents: { enabled: true, codes: ['reboot'] } }))).toEqual(['spec.cloudEvents: the config does not pass its schema; cloud scheduled events are not read until this is fixed']);
  });
});

function node(name: string, providerID?: string): V1Node {
  return { metadata: { name, uid: `uid-${name}`, resourceVersion: '3' }, spec: providerID ? { providerID } : {} };
}

/** The pass's one parse of `snapshot`'s config. */
const parsed = (snapshot: BaseSnapshot) => loadConfig(snapshot, snapshot.nodeList.length, 'kmaint');

function base(spec: Record<string, unknown>, nodes: V1Node[]): BaseSnapshot {
  return { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), nodeList: nodes, maintenances: [], malformed: [], rawConfig: config(spec) };
}

describe('readScheduledEvents', () => {
  const asked: Array<[string[], string[]]> = [];
  const fake: InstanceProvider = {
    prefix: 'aws',
    terminate: () => Promise.reject(new Error('not in this test')),
    scheduledEvents: (ids, codes) => {
      asked.push([[...ids], [...codes]]);
      return Promise.resolve({ events: new Map(ids.map((id) => [id, [{ id: 'instance-event-1', code: 'instance-stop', description: 'The instance is running on degraded hardware', notBefore: new Date('2026-01-02T00:00:00Z'), state: 'active' as const }]])), unread: new Map() });
    },
  };
  const providers = providerMap([fake, { prefix: 'gce', terminate: () => Promise.reject(new Error('not in this test')) }]);
  const nodes = [node('a', 'aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1'), node('b', 'gce://proj/zone/vm-b'), node('c'), node('d', 'aws:///eu-west-1b/i-0ddddddddddddddd4')];

  it('cloud events off: no call, no events', async () => {
    asked.length = 0;
    expect(await readScheduledEvents(base({}, nodes), parsed(base({}, nodes)), providers)).toEqual({ providers });
    expect(asked).toEqual([]);
  });

  it('on: each provider that reads events is asked for its providerIDs and the configured codes; other Nodes are not read', async () => {
    asked.length = 0;
    const on = base({ cloudEvents: { enabled: true, codes: ['instance-stop'] } }, nodes);
    const reads = await readScheduledEvents(on, parsed(on), providers);
    expect(asked).toEqual([[['aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1', 'aws:///eu-west-1b/i-0ddddddddddddddd4'], ['instance-stop']]]);
    expect([...(reads.events?.events.keys() ?? [])]).toEqual(['aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1', 'aws:///eu-west-1b/i-0ddddddddddddddd4']);
    // The plan files a request for each, and counts them as new work.
    const enabled = base({ cloudEvents: { enabled: true } }, nodes);
    const plan = planReaperPass(enabled, parsed(enabled), 'kmaint', reads, new Date('2026-01-01T00:00:00Z'));
    expect([plan.requested, plan.terminations, plan.actions.filter((a) => a.kind === 'createMaintenance').map((a) => (a.kind === 'createMaintenance' ? a.target.name : ''))]).toEqual([2, [], ['cloud-event-a', 'cloud-event-d']]);
  });
});

// Issue 30 point 6: turning cloud events off must not orphan their requests (GC-ignore keeps their Nodes cordoned).
// The scheduler ends them: the reaper pass is skipped, reading nothing, while the reaper and cloud events are off.
describe('the scheduler deletes kmaint\'s own cloud event requests once spec.cloudEvents is off', () => {
  const NOW = new Date('2026-01-01T12:00:00Z');
  const nodes = [node('a', 'aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1'), node('b', 'aws:///eu-west-1a/i-0bbbbbbbbbbbbbbb2')];
  const own = aRequest('cloud-event-a', 'a', 'cloud-events.kmaint.io', 'Ready', { labels: { 'kmaint.io/cloud-event': 'true' }, annotations: { 'maintenance.nvidia.com/garbage-collector.ignore': 'true' } });
  const copy = aRequest('cloud-event-b', 'b', 'cloud-events.kmaint.io', 'Ready', { namespace: 'tenant', labels: { 'kmaint.io/cloud-event': 'true' } });
  const deleted: Action[] = [
    { kind: 'deleteMaintenance', target: { namespace: 'kmaint', name: 'cloud-event-a', uid: 'uid-cloud-event-a', resourceVersion: '11' }, reason: 'cloud event request for node a: spec.cloudEvents is off, so its scheduled events are no longer read' },
    { kind: 'emitEvent', target: { kind: 'Node', namespace: '', name: 'a', uid: 'uid-a' }, type: 'Normal', eventReason: 'CloudEventGone', message: 'deleted kmaint/cloud-event-a: spec.cloudEvents is off, so its scheduled events are no longer read', reason: 'cloud events off' },
  ];

  async function schedulerWrites(cfg: MaintenanceOperatorConfig | undefined): Promise<Action[]> {
    const maintenances = [own, copy];
    const snapshot: BaseSnapshot = { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), nodeList: nodes, maintenances, malformed: [], rawConfig: cfg };
    // With Slurm and SR-IOV off the scheduler reads nothing beyond the snapshot: no client is called.
    const opts = { client: undefined as unknown as KubeClient, namespace: 'kmaint', now: () => NOW };
    const input = { config: parsed(snapshot), maintenances: new Map(maintenances.map((nm) => [`${nm.metadata.namespace ?? ''}/${nm.metadata.name}`, nm])), namespace: 'kmaint', now: NOW };
    const plan = await planPass('scheduler', opts, snapshot, input);
    return plan.actions.filter((a) => a.kind === 'deleteMaintenance' || (a.kind === 'emitEvent' && a.eventReason === 'CloudEventGone'));
  }

  it.each<[string, MaintenanceOperatorConfig | undefined, Action[]]>([
    ['no spec.cloudEvents: off, ours deleted (a copy in a tenant namespace is not ours)', config({}), deleted],
    ['enabled false: off', config({ cloudEvents: { enabled: false } }), deleted],
    ['no config object (every feature at its default): off', undefined, deleted],
    ['on: the reaper pass keeps them', config({ cloudEvents: { enabled: true } }), []],
    ['on but invalid (reported on the config): fail closed, kept', config({ cloudEvents: { enabled: true, codes: ['reboot'] } }), []],
    ['a config that does not pass its schema says nothing of the switch: fail closed, kept', config({ maxParallelOperations: true }), []],
  ])('%s', async (_rule, cfg, expected) => {
    expect(await schedulerWrites(cfg)).toEqual(expected);
  });
});
