// Gangs (issue 21) on the real control plane: requests labelled kmaint.io/gang start together in one scheduler pass
// or not at all, a gang that has waited holds freed slots against a later single, a gang missing a request says so,
// and each member then goes to Ready as any request does. Messages are read back from the objects.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_GANG_SIZE, GROUP, LABEL_GANG, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { clusterKind, kubectl, waitFor } from './support/cluster.ts';
import { admin, deleteNM, driveUntil, generalNodes, getNM, installCrds, nodes, pass, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';

const ns = `gang-${randomBytes(3).toString('hex')}`;
const REQUESTOR = 'gangs.example.com';

async function request(name: string, node: string, gang?: { name: string; size: number }): Promise<NodeMaintenance> {
  const metadata = {
    name,
    namespace: ns,
    ...(gang !== undefined ? { labels: { [LABEL_GANG]: gang.name }, annotations: { [ANNOTATION_GANG_SIZE]: String(gang.size) } } : {}),
  };
  const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata, spec: { requestorID: REQUESTOR, nodeName: node, cordon: true } };
  return (await admin().custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL, body })) as NodeMaintenance;
}

/** `name -> [phase, Ready message]`. */
async function states(names: readonly string[]): Promise<Record<string, [string | undefined, string | undefined]>> {
  const out: Record<string, [string | undefined, string | undefined]> = {};
  for (const name of names) {
    const nm = await getNM(ns, name);
    out[name] = [phaseOf(nm), nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message];
  }
  return out;
}

describe.runIf(clusterKind() === 'testbed')('gangs on the testbed', () => {
  let general: string[] = [];
  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    // Four general-pool nodes and one of the gpu pool: the testbed's small profile has them (test/support/node-inventory.ts).
    const gpu = (await nodes()).filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'gpu').map((n) => n.metadata?.name ?? '').sort();
    general = [...gpu.slice(0, 1), ...(await generalNodes()).slice(0, 4)];
    expect(general).toHaveLength(5);
  });
  afterEach(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('a gang of three waits whole for room, holds the freed slot against a later single, then starts in one pass and each member goes Ready', async () => {
    const [busyNode, g1, g2, g3, soloNode] = general as [string, string, string, string, string];
    await setConfig({ maxParallelOperations: 3, gangReserveAfterSeconds: 0 });
    await request('busy', busyNode);
    expect((await pass('scheduler')).admitted).toBe(1);
    const first = await request('train-1', g1, { name: 'train', size: 3 });
    await request('train-2', g2, { name: 'train', size: 3 });
    await request('train-3', g3, { name: 'train', size: 3 });
    await request('solo', soloNode);

    // Two slots free, three needed: none of the gang starts, and the single behind it waits for the gang.
    const waited = await pass('scheduler');
    expect([waited.admitted, waited.waiting]).toEqual([0, 4]);
    const gangWait = 'waiting: gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 2 of its members, at ' + `${ns}/train-3`;
    const since = first.metadata.creationTimestamp ?? '';
    expect(await states(['train-1', 'train-2', 'train-3', 'solo'])).toEqual({
      'train-1': ['Pending', gangWait],
      'train-2': ['Pending', gangWait],
      'train-3': ['Pending', gangWait],
      solo: ['Pending', `waiting: freed slots are held for gang train, waiting since ${since}`],
    });
    // Nothing changed: the next pass writes nothing.
    expect((await pass('scheduler')).planned).toBe(0);

    // The busy request ends: the gang takes all three slots in one pass, the single keeps waiting on the limit.
    await deleteNM(ns, 'busy');
    // Cleanup alone releases it, so no scheduler pass runs before the one below.
    await waitFor('busy released by cleanup', async () => {
      await pass('cleanup');
      return (await getNM(ns, 'busy')) === undefined ? true : undefined;
    });
    const started = await pass('scheduler');
    expect([started.admitted, started.waiting]).toEqual([3, 1]);
    expect(await states(['train-1', 'train-2', 'train-3', 'solo'])).toEqual({
      'train-1': ['Scheduled', 'admitted: slot 1 of 3, with gang train (3 requests)'],
      'train-2': ['Scheduled', 'admitted: slot 2 of 3, with gang train (3 requests)'],
      'train-3': ['Scheduled', 'admitted: slot 3 of 3, with gang train (3 requests)'],
      solo: ['Pending', 'waiting: maxParallelOperations 3 reached (3 in progress)'],
    });

    // Ready of each member as for any request.
    await driveUntil('every member of gang train Ready', async () => {
      const phases = Object.values(await states(['train-1', 'train-2', 'train-3'])).map(([phase]) => phase);
      return phases.every((p) => p === 'Ready') ? true : undefined;
    });
  });

  it('a gang missing one of its kmaint.io/gang-size requests is reported on each member and none starts', async () => {
    const [, a, b] = general as [string, string, string];
    await setConfig({ maxParallelOperations: 5 });
    await request('pair-1', a, { name: 'pair', size: 3 });
    await request('pair-2', b, { name: 'pair', size: 3 });
    const s = await pass('scheduler');
    expect([s.admitted, s.waiting]).toEqual([0, 2]);
    const why = 'waiting: gang pair (2 requests) cannot start: 1 of its 3 requests missing (kmaint.io/gang-size 3, 2 found)';
    expect(await states(['pair-1', 'pair-2'])).toEqual({ 'pair-1': ['Pending', why], 'pair-2': ['Pending', why] });
  });
});
