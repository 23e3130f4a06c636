// Issue 40: with joinExistingRequests off, only a request that could start now keeps the reaper off its Node, by the
// scheduler's own rule (shared/scheduling requestsHoldingNodes, as the reaper pass computes it); one that cannot start
// (a gang missing a member, its own not-before, a closed window) neither blocks the reaper nor is joined.
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '#api';
import { loadLimits } from '../config/index.ts';
import { buildSchedulingState, requestsHoldingNodes, type SchedulingLimits } from '../scheduling/index.ts';
import { planReaper } from './plan.ts';
import { providerMap } from './providers.ts';
import { aReaperNode, aRequest, NOW, reaperConfig } from './test-builders.ts';

const BASE = { unhealthyForSeconds: 300, newNodeGracePeriodSeconds: 300, maxNodesUnhealthy: 2, maxNodesUnhealthyInSameZone: 1 };
const sick = aReaperNode({ name: 'c-1', zone: 'c', ready: 'False', readyForSeconds: 600 });
const nodes: V1Node[] = [aReaperNode({ name: 'a-1', zone: 'a' }), aReaperNode({ name: 'b-1', zone: 'b' }), sick];

function limitsOf(spec: Record<string, unknown>): SchedulingLimits {
  const loaded = loadLimits({ metadata: { name: 'default', namespace: 'kmaint' }, spec }, nodes.length);
  const { admission } = loaded.config;
  return { maxParallelOperations: loaded.config.maxParallelOperations, maxUnavailable: loaded.config.maxUnavailable, ...(admission ? { admission } : {}) };
}

/** The reaper's decision for c-1 and the kinds of its actions, as the reaper pass plans it. */
function decide(maintenances: NodeMaintenance[], reaper: Record<string, unknown>, spec: Record<string, unknown> = {}): { decisions: unknown; kinds: string[] } {
  const holding = requestsHoldingNodes(buildSchedulingState({ nodes, maintenances }), limitsOf(spec), NOW);
  const p = planReaper({ nodes, maintenances, namespace: 'kmaint', providers: providerMap([{ prefix: 'aws', terminate: () => Promise.resolve('terminated') }]), holding }, reaperConfig({ ...BASE, ...reaper }), NOW);
  return { decisions: p.decisions, kinds: p.actions.map((a) => `${a.kind}${a.kind === 'patchMaintenanceMeta' ? ` ${a.target.name}` : a.kind === 'createMaintenance' ? ` ${a.target.name}` : ''}`) };
}

const attack = (name: string, more: Partial<NodeMaintenance['metadata']>): NodeMaintenance => aRequest(name, 'c-1', 'attacker.example.com', 'Pending', { namespace: 'tenant', ...more });
const lonelyGang = attack('gang-of-one', { labels: { 'kmaint.io/gang': 'never' }, annotations: { 'kmaint.io/gang-size': '2', 'kmaint.io/deadline': '2026-01-01T00:00:01Z' }, creationTimestamp: '2026-01-01T00:00:00Z' });
const later = attack('later', { annotations: { 'kmaint.io/not-before': '2026-01-08T00:00:00Z' } });
const honest = aRequest('upgrade-c-1', 'c-1', 'upgrade.example.com', 'Pending');
const created = { decisions: [{ node: 'c-1' }], kinds: ['createMaintenance reap-c-1', 'emitEvent'] };
const blocked = (who: string): { decisions: unknown; kinds: string[] } => ({
  decisions: [{ node: 'c-1', skipped: `already in maintenance: ${who} (spec.reaper.joinExistingRequests is off)` }],
  kinds: ['patchNodeAnnotations', 'emitEvent'],
});

describe('the reaper and requests that cannot start (issue 40)', () => {
  it.each<{ rule: string; maintenances: NodeMaintenance[]; reaper?: Record<string, unknown>; spec?: Record<string, unknown>; expected: { decisions: unknown; kinds: string[] } }>([
    { rule: 'a gang of one that declares two, with its own deadline: holds nothing, the reaper files its request', maintenances: [lonelyGang], expected: created },
    { rule: 'a request waiting on its own not-before: holds nothing', maintenances: [later], expected: created },
    { rule: 'a window closed on the node: the request there holds nothing', maintenances: [honest], spec: { windows: [{ schedule: '0 3 * * 6', duration: '1h' }] }, expected: created },
    { rule: 'an honest request that could start keeps the reaper off, as before', maintenances: [honest], expected: blocked('kmaint/upgrade-c-1 by upgrade.example.com') },
    { rule: 'the honest request is named even when an unstartable one sorts first', maintenances: [lonelyGang, later, honest], expected: blocked('kmaint/upgrade-c-1 by upgrade.example.com') },
    { rule: 'a request in progress keeps the reaper off, as before', maintenances: [attack('started', {}), { ...aRequest('draining', 'c-1', 'upgrade.example.com', 'Draining') }], expected: blocked('kmaint/draining by upgrade.example.com') },
    {
      rule: 'joinExistingRequests: an unstartable request is not joined; the reaper files its own',
      maintenances: [lonelyGang],
      reaper: { joinExistingRequests: true },
      expected: created,
    },
    {
      rule: 'joinExistingRequests: the request that could start is joined, as before',
      maintenances: [lonelyGang, honest],
      reaper: { joinExistingRequests: true },
      expected: { decisions: [{ node: 'c-1' }], kinds: ['patchNodeAnnotations', 'patchMaintenanceMeta upgrade-c-1', 'emitEvent', 'emitEvent'] },
    },
  ])('$rule', ({ maintenances, reaper, spec, expected }) => {
    expect(decide(maintenances, reaper ?? {}, spec ?? {})).toEqual(expected);
  });
});
