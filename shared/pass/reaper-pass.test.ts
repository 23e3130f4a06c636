// The reaper pass with spec.cloudEvents: when it runs, which config problems it reports, and which providerIDs it asks
// each provider for (a fake provider at the cloud boundary records the calls).
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { MaintenanceOperatorConfig } from '../api/index.ts';
import { providerMap, type InstanceProvider } from '../reaper/index.ts';
import { cloudEventsOn, planReaperPass, readScheduledEvents, reaperModeOf, reaperProblems } from './reaper-pass.ts';
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

function base(spec: Record<string, unknown>, nodes: V1Node[]): BaseSnapshot {
  return { nodes: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])), nodeList: nodes, maintenances: [], malformed: [], config: config(spec) };
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
    expect(await readScheduledEvents(base({}, nodes), providers)).toEqual({ providers });
    expect(asked).toEqual([]);
  });

  it('on: each provider that reads events is asked for its providerIDs and the configured codes; other Nodes are not read', async () => {
    asked.length = 0;
    const reads = await readScheduledEvents(base({ cloudEvents: { enabled: true, codes: ['instance-stop'] } }, nodes), providers);
    expect(asked).toEqual([[['aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1', 'aws:///eu-west-1b/i-0ddddddddddddddd4'], ['instance-stop']]]);
    expect([...(reads.events?.events.keys() ?? [])]).toEqual(['aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1', 'aws:///eu-west-1b/i-0ddddddddddddddd4']);
    // The plan files a request for each, and counts them as new work.
    const plan = planReaperPass(base({ cloudEvents: { enabled: true } }, nodes), 'kmaint', reads, new Date('2026-01-01T00:00:00Z'));
    expect([plan.requested, plan.terminations, plan.actions.filter((a) => a.kind === 'createMaintenance').map((a) => (a.kind === 'createMaintenance' ? a.target.name : ''))]).toEqual([2, [], ['cloud-event-a', 'cloud-event-d']]);
  });
});
