// Issue 40, attack 2, tried as an attacker: a requestor's ServiceAccount that may write its requests' status (as
// upstream expects, for RequestorFailed) writes Scheduled, then Ready, into it. kmaint acts only on the admissions its
// own record on the Node (kmaint.io/admitted) names, so with the chart's policy (which refuses the status write) and
// with none (as kustomize and Lambda install) at most maxParallelOperations nodes are cordoned, and a forged phase is
// written back to Pending. Every outcome is read back from the Nodes, the pods and the requests as the admin.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_ADMITTED, type NodeMaintenance } from '../shared/api/index.ts';
import { POLICY_MODES, POLICY_NAME, makeRequestor, policyModeRuns, usePolicyMode, type Requestor } from './support/attacker.ts';
import { admin, getNM, installCrds, nodes, pass, phaseOf, podsOn, removeAllNMs, setConfig } from './support/kmaint.ts';

/** The five worker nodes (every node but the control plane), in name order. */
async function workers(): Promise<string[]> {
  return (await nodes())
    .filter((n) => n.metadata?.labels?.['kmaint.io/pool'] !== 'control-plane')
    .map((n) => n.metadata?.name ?? '')
    .sort()
    .slice(0, 5);
}

async function unschedulable(): Promise<string[]> {
  return (await nodes())
    .filter((n) => n.spec?.unschedulable === true)
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

/** Each request's phase and Ready message, as the admin reads them. */
async function readyOf(namespace: string, names: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const nm: NodeMaintenance | undefined = await getNM(namespace, name);
    out[name] = `${phaseOf(nm) ?? '(gone)'}: ${nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? ''}`;
  }
  return out;
}

const forgedReady = (reason: string): Record<string, unknown> => ({
  conditions: [{ type: 'Ready', status: reason === 'Ready' ? 'True' : 'False', reason, message: 'admitted: slot 1 of 1', lastTransitionTime: '2026-01-01T00:00:00Z' }],
});

/** The policy's refusal of a status patch; `conditions` names the conditions of kmaint's it would change. */
const DENIED = (name: string, conditions = 'condition Ready'): string =>
  `403 nodemaintenances.maintenance.nvidia.com "${name}" is forbidden: ValidatingAdmissionPolicy '${POLICY_NAME}' with binding '${POLICY_NAME}' denied request: ` +
  `status ${conditions} is kmaint's to write: only system:serviceaccount:kmaint:kmaint may change it; a requestor may set, change or remove the RequestorFailed condition only`;
const NOT_ADMITTED = (phase: string, node: string): string => `Pending: waiting: its phase ${phase} was not an admission by kmaint (node ${node} has no ${ANNOTATION_ADMITTED} record of it)`;
const LIMIT = 'Pending: waiting: maxParallelOperations 1 reached (1 in progress)';

describe.each(POLICY_MODES)('a requestor that writes Scheduled and Ready into its requests\' status (%s)', (mode) => {
  const ns = `atk40-${mode}-${randomBytes(2).toString('hex')}`;
  const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
  let requestor: Requestor;
  let on: string[] = [];
  let undo = async (): Promise<void> => {};

  beforeAll(async () => {
    if (!policyModeRuns(mode)) return;
    await installCrds();
    on = await workers();
    expect(on.length).toBe(5);
    requestor = await makeRequestor(ns);
    await setConfig({ maxParallelOperations: 1 });
    undo = await usePolicyMode(mode, async () => (await requestor.create(`probe-${randomBytes(2).toString('hex')}`, { requestorID: 'reaper.kmaint.io', nodeName: on[0] })).startsWith('403'));
    // Probes created before the policy was in effect are no part of the attack.
    await removeAllNMs(ns);
  });

  afterAll(async () => {
    if (!policyModeRuns(mode)) return;
    await undo();
    await removeAllNMs(ns);
    await setConfig(undefined);
    await admin().core.deleteNamespace({ name: ns });
  });

  it.skipIf(!policyModeRuns(mode))('cordons at most maxParallelOperations nodes; a forged phase is written back to Pending and a forged Ready neither drains nor counts', async () => {
    for (const [i, name] of names.entries()) expect(await requestor.create(name, { requestorID: 'attacker.example.com', nodeName: on[i] })).toBe('created');
    const forged = [];
    for (const name of names) forged.push(await requestor.patchStatus(name, forgedReady('Scheduled')));
    expect(forged).toEqual(names.map((name) => (mode === 'policy' ? DENIED(name) : 'patched')));

    // The drainer first, on the forged status: no record names them, nothing moves. Then the scheduler answers them.
    expect((await pass('drainer')).plan).toEqual([]);
    await pass('scheduler');
    await pass('drainer');
    await pass('cleanup');
    if (mode === 'no-policy') {
      expect(await unschedulable()).toEqual([]);
      expect(await readyOf(ns, names)).toEqual(Object.fromEntries(names.map((name, i) => [name, NOT_ADMITTED('Scheduled', on[i] ?? '')])));
      // Written back to Pending, they are candidates again: the limits admit one, by kmaint's record.
      await pass('scheduler');
      await pass('drainer');
    }
    expect(await unschedulable()).toEqual([on[0]]);
    const admitted = (await admin().core.readNode({ name: on[0] ?? '' })).metadata?.annotations?.[ANNOTATION_ADMITTED] ?? '';
    expect(admitted).toBe(`${ns}/r1/${(await getNM(ns, 'r1'))?.metadata.uid ?? ''}`);
    const waiting = await readyOf(ns, names.slice(1));
    expect(waiting).toEqual(Object.fromEntries(names.slice(1).map((name) => [name, LIMIT])));

    // A forged Ready on r2: the drainer neither cordons nor evicts on its node, and the scheduler does not count it. The
    // forged list also drops kmaint.io/Waiting, which names the limit r2 waits on: the policy names both.
    expect(await requestor.patchStatus('r2', forgedReady('Ready'))).toBe(mode === 'policy' ? DENIED('r2', 'condition Ready, condition kmaint.io/Waiting') : 'patched');
    const podsBefore = (await podsOn(on[1] ?? '')).filter((p) => p.metadata?.deletionTimestamp === undefined).length;
    const second = await pass('drainer');
    expect(second.plan.filter((line) => line.includes(`${ns}/r2`) || line.includes(on[1] ?? '-'))).toEqual([]);
    expect((await podsOn(on[1] ?? '')).filter((p) => p.metadata?.deletionTimestamp !== undefined).length).toBe(0);
    expect((await podsOn(on[1] ?? '')).length).toBe(podsBefore);
    await pass('scheduler');
    expect(await unschedulable()).toEqual([on[0]]);
    expect(await readyOf(ns, names.slice(1))).toEqual({ r2: mode === 'policy' ? LIMIT : NOT_ADMITTED('Ready', on[1] ?? ''), r3: LIMIT, r4: LIMIT, r5: LIMIT });

    // The release takes the record back in the uncordon's own patch (owner table: kmaint.io/admitted, request deleted).
    expect(await requestor.delete('r1')).toBe('deleted');
    await pass('cleanup');
    const released = await admin().core.readNode({ name: on[0] ?? '' });
    expect({ unschedulable: released.spec?.unschedulable === true, record: released.metadata?.annotations?.[ANNOTATION_ADMITTED] ?? '(none)', r1: await getNM(ns, 'r1') }).toEqual({ unschedulable: false, record: '(none)', r1: undefined });
  });

  it.skipIf(!policyModeRuns(mode))('an admission record whose request is gone (deleted before the drainer took it, so without a finalizer) is swept by the next cleanup pass', async () => {
    // The next admission under maxParallelOperations 1; the drainer does not run, so no finalizer holds the request.
    await pass('scheduler');
    const records = async (): Promise<Record<string, string>> => {
      const out: Record<string, string> = {};
      for (const node of await nodes()) {
        const record = node.metadata?.annotations?.[ANNOTATION_ADMITTED];
        if (record !== undefined) out[node.metadata?.name ?? ''] = record;
      }
      return out;
    };
    const before = await records();
    expect(Object.keys(before).length).toBe(1);
    const [node, record] = Object.entries(before)[0] ?? ['', ''];
    const name = record.split('/')[1] ?? '';
    expect([record, (await getNM(ns, name))?.metadata.finalizers]).toEqual([`${ns}/${name}/${(await getNM(ns, name))?.metadata.uid ?? ''}`, undefined]);
    expect(await requestor.delete(name)).toBe('deleted');
    expect(await getNM(ns, name)).toBeUndefined();
    await pass('cleanup');
    expect([await records(), (await admin().core.readNode({ name: node })).spec?.unschedulable === true]).toEqual([{}, false]);
  });
});
