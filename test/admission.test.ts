// Admission beyond the cluster-wide limits, on the testbed and on the sim: pools by the kmaint.io/pool label, a zone
// limit and maintenance windows, through the real scheduler pass; the wait messages are read back from the objects.
import { randomBytes } from 'node:crypto';
import type { V1Node } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { GROUP, VERSION, CONFIG_PLURAL } from '../shared/api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../shared/api/index.ts';
import { clusterKind, kubectl } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, getNM, installCrds, nodes, pass, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';
import { inventoryNotFound, testbedOnlyTests } from './support/testbed-only.ts';

const ns = `adm-${randomBytes(3).toString('hex')}`;
const POOL = 'kmaint.io/pool';
const ZONE = 'topology.kubernetes.io/zone';
const REQUESTOR = 'ops.example.com';

let all: V1Node[] = [];
const nameOf = (n: V1Node): string => n.metadata?.name ?? '';
const labelOf = (n: V1Node, key: string): string => n.metadata?.labels?.[key] ?? '';
const inPool = (pool: string): string[] => all.filter((n) => labelOf(n, POOL) === pool).map(nameOf).sort();
const zoneOf = (node: string): string => labelOf(all.find((n) => nameOf(n) === node) ?? {}, ZONE);

function messageOf(nm: NodeMaintenance | undefined): string | undefined {
  return nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
}

/** `name -> [phase, Ready message]` of every request in the test namespace. */
async function states(names: readonly string[]): Promise<Record<string, [string | undefined, string | undefined]>> {
  const out: Record<string, [string | undefined, string | undefined]> = {};
  for (const name of names) {
    const nm = await getNM(ns, name);
    out[name] = [phaseOf(nm), messageOf(nm)];
  }
  return out;
}

async function request(name: string, node: string): Promise<void> {
  await createNM(ns, name, { requestorID: REQUESTOR, nodeName: node });
}

async function configStatus(): Promise<MaintenanceOperatorConfig['status']> {
  const cfg = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL, name: 'default' })) as MaintenanceOperatorConfig;
  return cfg.status;
}

describe(`admission with pools, zones and windows on the ${clusterKind()}`, () => {
  const needs = testbedOnlyTests();
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    all = await nodes();
    // Exact messages count cordoned nodes; every node of the cluster must start schedulable.
    expect(all.filter((n) => n.spec?.unschedulable === true).map(nameOf)).toEqual([]);
    // The pools, zones and counts the tests below need, where the cluster is taken to offer them (all on the testbed and sim).
    expect(inventoryNotFound(all)).toEqual([]);
  });
  afterEach(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  needs.it('pools chosen by the kmaint.io/pool label: gpu allows 1 unavailable, general 25%; a node in no pool follows the cluster limit', ['four to seven general-pool nodes', 'a node in the gpu pool', 'a node in the control-plane pool'], async () => {
    const general = inPool('general').slice(0, 4);
    const gpuNode = inPool('gpu')[0] as string;
    const controlPlane = inPool('control-plane')[0] as string;
    await setConfig({
      maxParallelOperations: 10,
      pools: [
        { name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, maxUnavailable: 1 },
        { name: 'general', nodeSelector: { matchExpressions: [{ key: POOL, operator: 'In', values: ['general'] }] }, maxUnavailable: '25%' },
      ],
    });
    // Requests arrive in three waves, so slot numbers do not depend on ties between creation timestamps.
    await request('general-0', general[0] as string);
    expect((await pass('scheduler')).admitted).toBe(1);
    await request('gpu-0', gpuNode);
    expect((await pass('scheduler')).admitted).toBe(1);
    for (const [i, node] of general.slice(1).entries()) await request(`general-${i + 1}`, node);
    await request('cp-0', controlPlane);

    const s = await pass('scheduler');
    expect([s.admitted, s.waiting]).toEqual([1, 3]);
    const generalCount = inPool('general').length;
    const generalWait = `waiting: pool general: maxUnavailable ${Math.floor(generalCount / 4)} (25% of ${generalCount} nodes) reached (1 under maintenance + 0 cordoned or not ready)`;
    expect(await states(['general-0', 'general-1', 'general-2', 'general-3', 'gpu-0', 'cp-0'])).toEqual({
      'general-0': ['Scheduled', 'admitted: slot 1 of 10'],
      'general-1': ['Pending', generalWait],
      'general-2': ['Pending', generalWait],
      'general-3': ['Pending', generalWait],
      'gpu-0': ['Scheduled', 'admitted: slot 2 of 10'],
      'cp-0': ['Scheduled', 'admitted: slot 3 of 10'],
    });

    // Nothing changed: the next pass writes nothing at all (wait messages are stable, the config needs no report).
    const again = await pass('scheduler');
    expect([again.planned, again.actions]).toEqual([0, {}]);
    expect((await configStatus())?.conditions ?? []).toEqual([]);
  });

  needs.it('maxUnavailablePerZone 1: one general node per zone starts, the other waits naming its zone', 'the first four general-pool nodes by name, two in each of two zones', async () => {
    const general = inPool('general').slice(0, 4);
    const zones = [...new Set(general.map(zoneOf))].sort();
    expect(zones.length).toBe(2);
    await setConfig({ maxParallelOperations: 10, maxUnavailablePerZone: 1 });
    // One request per zone first, one pass each, so the admitted one of each zone and its slot are known.
    const first = zones.map((zone) => general.find((n) => zoneOf(n) === zone) as string);
    const second = zones.map((zone) => general.filter((n) => zoneOf(n) === zone)[1] as string);
    for (const [i, node] of first.entries()) {
      await request(`zone-first-${i}`, node);
      expect((await pass('scheduler')).admitted).toBe(1);
    }
    for (const [i, node] of second.entries()) await request(`zone-second-${i}`, node);
    expect((await pass('scheduler')).admitted).toBe(0);

    expect(await states(['zone-first-0', 'zone-first-1', 'zone-second-0', 'zone-second-1'])).toEqual({
      'zone-first-0': ['Scheduled', 'admitted: slot 1 of 10'],
      'zone-first-1': ['Scheduled', 'admitted: slot 2 of 10'],
      'zone-second-0': ['Pending', `waiting: zone ${zones[0]}: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)`],
      'zone-second-1': ['Pending', `waiting: zone ${zones[1]}: maxUnavailablePerZone 1 reached (1 under maintenance + 0 cordoned or not ready)`],
    });
    expect((await pass('scheduler')).planned).toBe(0);
  });

  needs.it('a closed window holds new requests with the time it opens, writes nothing while closed, and admits once open; a pool window narrows it', 'a node in the gpu pool', async () => {
    const node = inPool('general')[0] as string;
    const gpuNode = inPool('gpu')[0] as string;
    await setConfig({
      maxParallelOperations: 10,
      windows: [{ schedule: '0 22 * * *', duration: '2h', timeZone: 'Europe/Berlin' }],
      pools: [{ name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, windows: [{ schedule: '0 3 * * SUN', duration: '3h' }] }],
    });
    await request('win-general', node);
    await request('win-gpu', gpuNode);

    // Thursday 2026-01-15, 13:00 in Berlin: the cluster window opens at 22:00 CET = 21:00 UTC.
    const closed = await pass('scheduler', { now: new Date('2026-01-15T12:00:00Z') });
    expect([closed.admitted, closed.waiting]).toEqual([0, 2]);
    expect(await states(['win-general', 'win-gpu'])).toEqual({
      'win-general': ['Pending', 'waiting: window cluster next opens at 2026-01-15T21:00:00Z'],
      'win-gpu': ['Pending', 'waiting: window cluster next opens at 2026-01-15T21:00:00Z'],
    });
    // An hour later nothing has changed on the objects: no countdown, no write.
    expect((await pass('scheduler', { now: new Date('2026-01-15T13:00:00Z') })).planned).toBe(0);

    // 22:30 in Berlin: the cluster window is open; gpu waits for its own window on Sunday 03:00 UTC.
    const open = await pass('scheduler', { now: new Date('2026-01-15T21:30:00Z') });
    expect([open.admitted, open.waiting]).toEqual([1, 1]);
    expect(await states(['win-general', 'win-gpu'])).toEqual({
      'win-general': ['Scheduled', 'admitted: slot 1 of 10'],
      'win-gpu': ['Pending', 'waiting: window pool gpu next opens at 2026-01-18T03:00:00Z'],
    });
  });

  needs.it('an invalid pool window and overlapping pools are reported on the config; only that pool stops', 'a node in the gpu pool', async () => {
    const node = inPool('general')[0] as string;
    const gpuNode = inPool('gpu')[0] as string;
    await setConfig({
      maxParallelOperations: 10,
      pools: [
        { name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, windows: [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Mars/Olympus' }] },
        { name: 'all', nodeSelector: {} },
      ],
    });
    await request('bad-window-gpu', gpuNode);
    await request('bad-window-general', node);
    const s = await pass('scheduler');
    expect([s.admitted, s.waiting]).toEqual([1, 1]);
    expect(await states(['bad-window-gpu', 'bad-window-general'])).toEqual({
      'bad-window-gpu': ['Pending', 'waiting: window pool gpu admits nothing: spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone'],
      'bad-window-general': ['Scheduled', 'admitted: slot 1 of 10'],
    });
    const gpuNodes = inPool('gpu');
    const conditions = (await configStatus())?.conditions ?? [];
    expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Valid', 'False', 'InvalidValue', 'spec.pools[0].windows[0].timeZone: "Mars/Olympus" is not a known IANA time zone (pool gpu admits nothing until this is fixed)'],
      [
        'PoolsOverlap',
        'True',
        'NodesInSeveralPools',
        `${gpuNodes.length} node${gpuNodes.length === 1 ? ' is' : 's are'} selected by more than one pool and belong${gpuNodes.length === 1 ? 's' : ''} to the first listed: ${gpuNodes.map((n) => `${n} (gpu, all)`).join(', ')}`,
      ],
    ]);
    const events = await kubectl(['get', 'events', '-n', KMAINT_NS, '--field-selector', 'involvedObject.name=default', '-o', 'jsonpath={range .items[*]}{.type}/{.reason}{"\\n"}{end}']);
    expect(events.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['Warning/InvalidConfig', 'Warning/PoolsOverlap']));
    // Nothing left to write: the plan's lines name what a second pass would still write.
    expect((await pass('scheduler')).plan).toEqual([]);
  });

  needs.report();
});
