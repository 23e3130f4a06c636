// The pure half of the fault proxy: what a request is, and which fault a seed gives it.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../sim/generator/prng.ts';
import { decideFault, requestTarget, uniformFaults, validateRules, type FaultKind, type FaultRule } from './fault-rules.ts';

describe('requestTarget', () => {
  it.each([
    ['GET', '/api/v1/nodes?limit=500', 'list', 'nodes'],
    ['GET', '/api/v1/nodes/node-001', 'get', 'nodes'],
    ['PATCH', '/api/v1/nodes/node-001', 'patch', 'nodes'],
    ['GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-001', 'list', 'pods'],
    ['GET', '/api/v1/namespaces/web/pods?watch=true', 'watch', 'pods'],
    ['POST', '/api/v1/namespaces/web/pods/api-1/eviction', 'create', 'pods/eviction'],
    ['DELETE', '/api/v1/namespaces/web/pods/api-1', 'delete', 'pods'],
    ['DELETE', '/api/v1/namespaces/web/pods', 'deletecollection', 'pods'],
    ['POST', '/api/v1/namespaces/kmaint/events', 'create', 'events'],
    ['GET', '/api/v1/namespaces', 'list', 'namespaces'],
    ['GET', '/api/v1/namespaces/kmaint', 'get', 'namespaces'],
    ['GET', '/apis/maintenance.nvidia.com/v1alpha1/nodemaintenances?limit=500', 'list', 'nodemaintenances'],
    ['PATCH', '/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances/nm-1/status', 'patch', 'nodemaintenances/status'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/kmaint/leases/kmaint-scheduler', 'update', 'leases'],
    ['POST', '/apis/coordination.k8s.io/v1/namespaces/kmaint/leases', 'create', 'leases'],
    ['GET', '/version', 'get', ''],
  ])('%s %s is %s %s', (method, url, verb, resource) => {
    expect(requestTarget(method, url)).toEqual({ verb, resource });
  });

  it('marks a LIST with a continue token as continued, and only that', () => {
    expect(requestTarget('GET', '/api/v1/nodes?continue=abc&limit=2')).toStrictEqual({ verb: 'list', resource: 'nodes', continued: true });
    expect(requestTarget('GET', '/api/v1/nodes?limit=2')).toStrictEqual({ verb: 'list', resource: 'nodes' });
    expect(requestTarget('GET', '/api/v1/nodes/n1?continue=abc')).toStrictEqual({ verb: 'get', resource: 'nodes' });
  });

  it('a rule with continued: true applies to continued LISTs only', () => {
    const rules: FaultRule[] = [{ continued: true, rates: { '410': 1 } }];
    expect(decideFault(requestTarget('GET', '/api/v1/pods?continue=x'), rules, createRng(1)).fault).toBe('410');
    expect(decideFault(requestTarget('GET', '/api/v1/pods?limit=2'), rules, createRng(1)).fault).toBe(undefined);
  });
});

describe('validateRules', () => {
  it.each<[string, FaultRule, string]>([
    ['a rate above 1', { rates: { '500': 1.5 } }, 'fault rule 0: rate of 500 must be in [0, 1], got 1.5'],
    ['a negative rate', { rates: { '429': -0.1 } }, 'fault rule 0: rate of 429 must be in [0, 1], got -0.1'],
    ['rates summing above 1', { rates: { '500': 0.6, '503': 0.6 } }, 'fault rule 0: rates sum to 1.2, more than 1'],
    ['an unknown kind', { rates: { '404': 0.1 } as unknown as FaultRule['rates'] }, 'fault rule 0: unknown fault kind "404" (one of 500, 503, 429, 409, drop-before, drop-after, 410, 403)'],
    ['a negative latency', { rates: {}, latencyMs: -1 }, 'fault rule 0: latencyMs must be a number >= 0, got -1'],
  ])('rejects %s', (_name, rule, message) => {
    expect(() => validateRules([rule])).toThrow(new RangeError(message));
  });
});

describe('decideFault', () => {
  it('a 5% rate over 2,000 requests with seed 42 gives 96 faults (4.8%), spread over every kind', () => {
    const rng = createRng(42);
    const rules = uniformFaults(0.05);
    const byKind: Partial<Record<FaultKind, number>> = {};
    for (let i = 0; i < 2000; i++) {
      const { fault } = decideFault({ verb: i % 2 === 0 ? 'list' : 'patch', resource: 'nodes' }, rules, rng);
      if (fault) byKind[fault] = (byKind[fault] ?? 0) + 1;
    }
    expect(byKind).toEqual({ '500': 14, '503': 18, '429': 17, '409': 4, 'drop-before': 15, 'drop-after': 28 });
    expect(Object.values(byKind).reduce((a, b) => a + b, 0)).toBe(96);
  });

  it('reads never get a 409 and watches are never touched', () => {
    const rng = createRng(3);
    const rules = uniformFaults(1, { latencyMs: 50 });
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) seen.add(String(decideFault({ verb: 'get', resource: 'leases' }, rules, rng).fault));
    expect([...seen].sort()).toEqual(['429', '500', '503', 'drop-after', 'drop-before']);
    expect(decideFault({ verb: 'watch', resource: 'pods' }, rules, rng)).toEqual({ fault: undefined, delayMs: 0, retryAfterSeconds: 1 });
  });

  it('the first matching rule decides; verb and resource both must match', () => {
    const rules: FaultRule[] = [
      { verbs: ['patch'], resources: ['nodes'], rates: { '503': 1 } },
      { resources: ['nodes'], rates: { '500': 1 } },
    ];
    const rng = createRng(1);
    expect(decideFault({ verb: 'patch', resource: 'nodes' }, rules, rng).fault).toBe('503');
    expect(decideFault({ verb: 'list', resource: 'nodes' }, rules, rng).fault).toBe('500');
    expect(decideFault({ verb: 'patch', resource: 'pods' }, rules, rng).fault).toBe(undefined);
  });

  it('maxFaults: a rule stops injecting after that many faults, its delay still applies', () => {
    const rules: FaultRule[] = [{ verbs: ['create'], rates: { 'drop-after': 1 }, maxFaults: 2, latencyMs: 10 }];
    const rng = createRng(1);
    const injected = new Map<FaultRule, number>();
    const decisions = Array.from({ length: 4 }, () => decideFault({ verb: 'create', resource: 'leases' }, rules, rng, injected));
    expect(decisions.map((d) => [d.fault, d.delayMs])).toEqual([['drop-after', 10], ['drop-after', 10], [undefined, 10], [undefined, 10]]);
  });

  it('maxFaults with thenNext: the first matching requests get the one-shot fault, the later ones the next rule', () => {
    const first: FaultRule = { verbs: ['patch'], resources: ['nodes'], rates: { '409': 1 }, maxFaults: 1, thenNext: true };
    const rules: FaultRule[] = [first, { verbs: ['patch'], resources: ['nodes'], rates: { '503': 1 }, latencyMs: 7 }];
    const rng = createRng(1);
    const injected = new Map<FaultRule, number>();
    const decisions = Array.from({ length: 3 }, () => decideFault({ verb: 'patch', resource: 'nodes' }, rules, rng, injected));
    expect(decisions.map((d) => [d.fault, d.delayMs])).toEqual([['409', 0], ['503', 7], ['503', 7]]);
    expect(injected.get(first)).toBe(1);
  });

  it('latency plus jitter drawn from the seed', () => {
    const rules: FaultRule[] = [{ rates: {}, latencyMs: 100, jitterMs: 50 }];
    const a = createRng(9);
    const b = createRng(9);
    const delays = Array.from({ length: 5 }, () => decideFault({ verb: 'get', resource: 'nodes' }, rules, a).delayMs);
    expect(delays).toEqual(Array.from({ length: 5 }, () => decideFault({ verb: 'get', resource: 'nodes' }, rules, b).delayMs));
    for (const d of delays) expect(d >= 100 && d < 150).toBe(true);
    expect(new Set(delays).size > 1).toBe(true);
  });
});
