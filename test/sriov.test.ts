// kmaint alongside the SR-IOV network operator, on the testbed (issue 22, README "Alongside the SR-IOV network
// operator"). Route (a): the NVIDIA network operator's SR-IOV drain requestor creates NodeMaintenances; the test
// creates them exactly as it does (interop sheet §1.6) and sees one through to Ready and release. Route (b): kmaint
// is the operator's external drainer; the operator's own CRDs (v1.6.0, from its Go module) are applied, and the test
// plays the config daemon's part with kubectl, writing exactly what the sheet says the daemon writes (§1.3, §1.6).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSriovCrds } from '../testbed/peers/sriov-crds.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';
import { KMAINT_NS, admin, bindPod, driveUntil, generalNodes, getNM, installCrds, isUnschedulable, pass, phaseOf, podsOn, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { untilEstablished } from './support/crd-established.ts';

const suffix = randomBytes(3).toString('hex');
const ns = `sriov-${suffix}`;
const SRIOV_NS = 'sriov-network-operator';
const STATE = 'sriovnetwork.openshift.io/state';
const DESIRED = 'sriovnetwork.openshift.io/desired-state';
const CURRENT = 'sriovnetwork.openshift.io/current-state';
const EXTERNAL = 'sriovnetwork.openshift.io/use-external-drainer';
const PROBLEM = 'kmaint.io/sriov-handshake-problem';
const POOL_LABEL = `sriov-test-${suffix}`;

const crds = ensureSriovCrds();
if ('problem' in crds) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/sriov] NOT RUN: the external-drainer tests need the SR-IOV network operator's CRDs: ${crds.problem}; they are counted as skipped\n`);
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input === undefined ? {} : { input });
  expect([r.code, r.stderr]).toEqual([0, '']);
  return r.stdout;
}

/** Only the SR-IOV keys (and kmaint's refusal) of an object's annotations, sorted. */
function sriovKeys(annotations: Record<string, string> | undefined): Record<string, string> {
  const keys = [STATE, DESIRED, CURRENT, EXTERNAL, PROBLEM];
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => keys.includes(k)).sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function nodeKeys(node: string): Promise<Record<string, string>> {
  return sriovKeys((await admin().core.readNode({ name: node })).metadata?.annotations);
}

/** The node state's keys, read with the admin client (polled often: no kubectl process per read). */
async function stateKeys(node: string): Promise<Record<string, string>> {
  const state = (await admin().custom.getNamespacedCustomObject({ group: 'sriovnetwork.openshift.io', version: 'v1', namespace: SRIOV_NS, plural: 'sriovnetworknodestates', name: node })) as { metadata: { annotations?: Record<string, string> } };
  return sriovKeys(state.metadata.annotations);
}

/** The config daemon's write (pkg/daemon/daemon.go `annotate`): the same value to the Node's key and the node state's. */
async function daemonWrites(node: string, value: string): Promise<void> {
  await ok(['annotate', '--overwrite', 'node', node, `${STATE}=${value}`]);
  await ok(['annotate', '--overwrite', 'sriovnetworknodestate', '-n', SRIOV_NS, node, `${DESIRED}=${value}`]);
}

async function runningPods(node: string): Promise<string[]> {
  return (await podsOn(node)).filter((p) => p.metadata?.namespace === ns && !p.metadata.deletionTimestamp && p.status?.phase === 'Running').map((p) => p.metadata?.name ?? '').sort();
}

async function readyMessage(namespace: string, name: string): Promise<string | undefined> {
  return (await getNM(namespace, name))?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
}

describe('alongside the SR-IOV network operator on the testbed', () => {
  let nodes: string[] = [];

  beforeAll(async () => {
    await installCrds();
    nodes = (await generalNodes()).slice(0, 2);
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
  });

  afterAll(async () => {
    for (const node of nodes) {
      await kubectl(['label', 'node', node, `${POOL_LABEL}-`, `${POOL_LABEL}-b-`]);
      await setUnschedulable(node, false);
    }
    await removeAllNMs(KMAINT_NS);
    await removeAllNMs('default');
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', SRIOV_NS, '--ignore-not-found', '--wait=true']);
    // Only now: removeAllNMs drives scheduler passes, which with the SR-IOV protocol still configured and the node
    // states still there create the Node's missing key again (a later file on this testbed found it: test/rbac).
    for (const node of nodes) await kubectl(['annotate', 'node', node, `${STATE}-`, `${PROBLEM}-`]);
    if (!('problem' in crds)) await kubectl(['delete', '-f', crds.dir, '--ignore-not-found', '--wait=true']);
    await kubectl(['delete', 'namespace', ns, '--wait=true']);
  });

  it('route (a): a NodeMaintenance exactly as the NVIDIA network operator\'s SR-IOV drain requestor writes it is cordoned (the CRD default), drained but for its skip labels, Ready, and released when its owner deletes it', async () => {
    const node = nodes[0] as string;
    await bindPod(ns, 'workload', node);
    await bindPod(ns, 'ofed-skip', node, { labels: { 'nvidia.com/ofed-driver-upgrade-drain.skip': 'true' } });
    await waitFor('both pods running', async () => ((await runningPods(node)).length === 2 ? true : undefined));
    // drain_requestor.go: <prefix>-<node> in DRAIN_CONTROLLER_REQUESTOR_NAMESPACE, its requestorID, no cordon field.
    const name = `nvidia-operator-${node}`;
    const request = {
      apiVersion: 'maintenance.nvidia.com/v1alpha1',
      kind: 'NodeMaintenance',
      metadata: { name, namespace: 'default' },
      spec: {
        requestorID: 'nvidia.network-operator-drain-controller',
        nodeName: node,
        drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 90, podSelector: 'nvidia.com/gpu-driver-upgrade-drain.skip!=true,nvidia.com/ofed-driver-upgrade-drain.skip!=true' },
      },
    };
    await ok(['create', '-f', '-'], JSON.stringify(request));
    expect((await getNM('default', name))?.spec.cordon).toBe(true);
    // Drained when Ready has reason Ready: what the requestor waits for before it answers DrainComplete.
    await driveUntil(`${name} Ready`, async () => (phaseOf(await getNM('default', name)) === 'Ready' ? true : undefined));
    const ready = (await getNM('default', name))?.status?.conditions?.find((c) => c.type === 'Ready');
    expect([ready?.status, ready?.reason]).toEqual(['True', 'Ready']);
    expect(await isUnschedulable(node)).toBe(true);
    expect(await runningPods(node)).toEqual(['ofed-skip']);
    // Release: the owner deletes the object; cleanup uncordons and removes the finalizer.
    await ok(['delete', 'nodemaintenance', '-n', 'default', name, '--wait=false']);
    await driveUntil(`${name} gone`, async () => ((await getNM('default', name)) === undefined ? true : undefined));
    expect(await isUnschedulable(node)).toBe(false);
    await ok(['delete', 'pod', '-n', ns, 'ofed-skip', '--wait=true']);
  });

  describe.skipIf('problem' in crds)('route (b): kmaint as the external drainer, the operator\'s CRDs v1.6.0 applied, the config daemon played with kubectl', () => {
    beforeAll(async () => {
      if ('problem' in crds) return;
      await ok(['apply', '-f', crds.dir]);
      await untilEstablished(kubectl, ['crd/sriovnetworknodestates.sriovnetwork.openshift.io', 'crd/sriovnetworkpoolconfigs.sriovnetwork.openshift.io'], 60);
      await ok(['create', 'namespace', SRIOV_NS]);
      await ok(['apply', '-k', 'infra/sriov']);
      for (const node of nodes) {
        await ok(['label', '--overwrite', 'node', node, `${POOL_LABEL}=yes`]);
        // As the operator creates it (named after the node) and the daemon marks it under USE_EXTERNAL_DRAINER=true.
        const state = { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkNodeState', metadata: { name: node, namespace: SRIOV_NS, annotations: { [EXTERNAL]: 'true' } }, spec: {} };
        await ok(['create', '-f', '-'], JSON.stringify(state));
      }
      const pool = { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkPoolConfig', metadata: { name: 'workers', namespace: SRIOV_NS }, spec: { maxUnavailable: '50%', nodeSelector: { matchLabels: { [POOL_LABEL]: 'yes' } } } };
      await ok(['create', '-f', '-'], JSON.stringify(pool));
      // Cluster limits wide open: the SR-IOV pool alone holds the second node back.
      await setConfig({ maxParallelOperations: 10, nodeHandshake: { protocol: 'sriov-network-operator' } });
    });

    it('missing keys are created as Idle (the daemon waits for them): state on the Node, desired-state and current-state on the SriovNetworkNodeState', async () => {
      const node = nodes[0] as string;
      await waitFor('keys created', async () => {
        await pass('scheduler');
        return Object.keys(await stateKeys(node)).length === 3 && Object.keys(await nodeKeys(node)).length === 1 ? true : undefined;
      }, 60_000, 200);
      for (const n of nodes) {
        expect(await nodeKeys(n)).toEqual({ [STATE]: 'Idle' });
        expect(await stateKeys(n)).toEqual({ [CURRENT]: 'Idle', [DESIRED]: 'Idle', [EXTERNAL]: 'true' });
      }
      expect((await pass('scheduler')).planned).toBe(0);
    });

    it('Drain_Required and Reboot_Required under a pool of "50%" of 2 nodes: one at a time, Drain_Required evicts only the SR-IOV device user, Reboot_Required every pod; DrainComplete, then Idle after the daemon\'s Idle', async () => {
      const [a, b] = nodes as [string, string];
      for (const n of nodes) {
        await bindPod(ns, `vf-user-${n}`, n, { requests: { cpu: '10m', 'openshift.io/intelnics': '1' } });
        await bindPod(ns, `plain-${n}`, n);
      }
      await waitFor('four pods running', async () => ((await runningPods(a)).length + (await runningPods(b)).length === 4 ? true : undefined));
      await daemonWrites(a, 'Drain_Required');
      await waitFor(`${CURRENT} of ${a} = Draining`, async () => {
        await pass('scheduler');
        return (await stateKeys(a))[CURRENT] === 'Draining' ? true : undefined;
      }, 60_000, 200);
      const requestA = await getNM(KMAINT_NS, `sriov-${a}`);
      expect([requestA?.metadata.labels, requestA?.spec]).toEqual([
        { 'kmaint.io/sriov-handshake': 'Drain_Required' },
        { requestorID: 'sriov-network-operator.kmaint.io', nodeName: a, cordon: true, drainSpec: { force: true, deleteEmptyDir: true, timeoutSeconds: 90, podEvictionFilters: [{ byResourceNameRegex: '^openshift\\.io/' }] } },
      ]);
      // The second node's request waits on the pool while the first drains.
      await daemonWrites(b, 'Reboot_Required');
      const waiting = `waiting: waiting for SriovNetworkPoolConfig ${SRIOV_NS}/workers: maxUnavailable "50%" of 2 nodes = 1, SR-IOV drains in progress: 1`;
      await waitFor(`sriov-${b} waiting on the pool`, async () => {
        await pass('scheduler');
        return (await readyMessage(KMAINT_NS, `sriov-${b}`)) === waiting ? true : undefined;
      }, 60_000, 200);
      expect(await stateKeys(b)).toEqual({ [CURRENT]: 'Idle', [DESIRED]: 'Reboot_Required', [EXTERNAL]: 'true' });
      // kmaint explain, as kmaint's ServiceAccount, reads the operator's pools as the scheduler does: the pool is its gate.
      const explained = await new Promise<string[]>((resolve, reject) => {
        execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, 'explain', `${KMAINT_NS}/sriov-${b}`), { timeout: 60_000 }, (err, out) => (err ? reject(err) : resolve(out.trimEnd().split('\n'))));
      });
      expect(explained.filter((l) => l.startsWith('  WAIT'))).toEqual([`  WAIT  ${waiting.slice('waiting: '.length)}`]);

      await driveUntil(`${CURRENT} of ${a} = DrainComplete`, async () => ((await stateKeys(a))[CURRENT] === 'DrainComplete' ? true : undefined));
      expect(await isUnschedulable(a)).toBe(true);
      expect(await runningPods(a)).toEqual([`plain-${a}`]);
      expect((await stateKeys(b))[CURRENT]).toBe('Idle');

      // The daemon configured the device and says Idle: kmaint releases the node, then answers Idle; b goes next.
      await daemonWrites(a, 'Idle');
      await driveUntil(`${CURRENT} of ${a} = Idle and ${b} = DrainComplete`, async () => ((await stateKeys(a))[CURRENT] === 'Idle' && (await stateKeys(b))[CURRENT] === 'DrainComplete' ? true : undefined));
      expect(await getNM(KMAINT_NS, `sriov-${a}`)).toBeUndefined();
      expect(await isUnschedulable(a)).toBe(false);
      expect(await isUnschedulable(b)).toBe(true);
      expect(await runningPods(b)).toEqual([]);
      expect((await getNM(KMAINT_NS, `sriov-${b}`))?.spec.drainSpec).toEqual({ force: true, deleteEmptyDir: true, timeoutSeconds: 90 });

      await daemonWrites(b, 'Idle');
      await driveUntil(`${CURRENT} of ${b} = Idle`, async () => ((await stateKeys(b))[CURRENT] === 'Idle' ? true : undefined));
      expect(await isUnschedulable(b)).toBe(false);
      for (const n of nodes) expect(await stateKeys(n)).toEqual({ [CURRENT]: 'Idle', [DESIRED]: 'Idle', [EXTERNAL]: 'true' });
    });

    it('a node two SriovNetworkPoolConfigs select is reported on its request, not guessed; an unknown state value is refused on the Node', async () => {
      const node = nodes[0] as string;
      await ok(['label', '--overwrite', 'node', node, `${POOL_LABEL}-b=yes`]);
      const second = { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkPoolConfig', metadata: { name: 'overlap', namespace: SRIOV_NS }, spec: { maxUnavailable: 1, nodeSelector: { matchLabels: { [`${POOL_LABEL}-b`]: 'yes' } } } };
      await ok(['create', '-f', '-'], JSON.stringify(second));
      await daemonWrites(node, 'Drain_Required');
      const reported = `waiting: waiting for SR-IOV drain admission: node ${node} matches 2 pools (SriovNetworkPoolConfig ${SRIOV_NS}/overlap, SriovNetworkPoolConfig ${SRIOV_NS}/workers); the SR-IOV network operator refuses such a node, so kmaint does not guess its limit`;
      await waitFor('the overlap reported', async () => {
        await pass('scheduler');
        return (await readyMessage(KMAINT_NS, `sriov-${node}`)) === reported ? true : undefined;
      }, 60_000, 200);
      expect((await stateKeys(node))[CURRENT]).toBe('Idle');
      expect(await isUnschedulable(node)).toBe(false);
      await daemonWrites(node, 'Idle');
      await waitFor('the request withdrawn', async () => {
        await pass('scheduler');
        return (await getNM(KMAINT_NS, `sriov-${node}`)) === undefined ? true : undefined;
      }, 60_000, 200);
      await ok(['delete', 'sriovnetworkpoolconfig', '-n', SRIOV_NS, 'overlap']);

      await ok(['annotate', '--overwrite', 'node', node, `${STATE}=MCP_Paused`]);
      const problem = `${STATE} "MCP_Paused" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is`;
      await waitFor('the refusal recorded', async () => {
        await pass('scheduler');
        return (await nodeKeys(node))[PROBLEM] === problem ? true : undefined;
      }, 60_000, 200);
      const events = await admin().core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=HandshakeRefused` });
      // Other files may have refused kmaint.io handshakes on this node before: only this refusal's events count.
      expect(events.items.filter((e) => e.message === problem).map((e) => [e.type, e.source?.component])).toEqual([['Warning', 'kmaint-scheduler']]);
      await ok(['annotate', '--overwrite', 'node', node, `${STATE}=Idle`]);
      await waitFor('the refusal cleared', async () => {
        await pass('scheduler');
        return (await nodeKeys(node))[PROBLEM] === undefined ? true : undefined;
      }, 60_000, 200);
      expect(await nodeKeys(node)).toEqual({ [STATE]: 'Idle' });
    });

    it('the protocol switched away, or the config deleted: the scheduler deletes kmaint\'s own SR-IOV request and cleanup uncordons its Node, leaving the handshake\'s annotations; a config that fails validation deletes nothing', async () => {
      const node = nodes[0] as string;
      const SRIOV_ON = { maxParallelOperations: 10, nodeHandshake: { protocol: 'sriov-network-operator' } };
      const drained = async (): Promise<void> => {
        await daemonWrites(node, 'Drain_Required');
        await driveUntil(`${CURRENT} of ${node} = DrainComplete`, async () => ((await stateKeys(node))[CURRENT] === 'DrainComplete' ? true : undefined));
        expect([await isUnschedulable(node), (await getNM(KMAINT_NS, `sriov-${node}`))?.spec.requestorID]).toEqual([true, 'sriov-network-operator.kmaint.io']);
      };
      const released = (): Promise<true> => driveUntil(`sriov-${node} released, ${node} uncordoned`, async () => ((await getNM(KMAINT_NS, `sriov-${node}`)) === undefined && !(await isUnschedulable(node)) ? true : undefined));
      const backToIdle = async (): Promise<void> => {
        await setConfig(SRIOV_ON);
        await daemonWrites(node, 'Idle');
        await waitFor(`${CURRENT} of ${node} = Idle`, async () => {
          await pass('scheduler');
          return (await stateKeys(node))[CURRENT] === 'Idle' ? true : undefined;
        }, 60_000, 200);
      };

      await drained();
      // Invalid (Valid False): which protocol is meant cannot be trusted, so nothing is deleted.
      await setConfig({ ...SRIOV_ON, maxParallelOperations: 'abc%' });
      const invalid = await pass('scheduler');
      expect([invalid.errors, invalid.actions.deleteMaintenance]).toEqual([[], undefined]);
      expect((await getNM(KMAINT_NS, `sriov-${node}`))?.metadata.deletionTimestamp).toBeUndefined();
      // Switched away: deleted, released; the handshake's annotations stay as they were (kmaint no longer reads them).
      await setConfig({ maxParallelOperations: 10 });
      const off = await pass('scheduler');
      expect([off.errors, off.actions.deleteMaintenance]).toEqual([[], 1]);
      await released();
      expect([await nodeKeys(node), await stateKeys(node)]).toEqual([{ [STATE]: 'Drain_Required' }, { [CURRENT]: 'DrainComplete', [DESIRED]: 'Drain_Required', [EXTERNAL]: 'true' }]);

      // Config deleted (every feature at its default: kmaint's own handshake protocol): the same.
      await backToIdle();
      await drained();
      await setConfig(undefined);
      const deleted = await pass('scheduler');
      expect([deleted.errors, deleted.actions.deleteMaintenance]).toEqual([[], 1]);
      await released();
      await backToIdle();
      expect(await stateKeys(node)).toEqual({ [CURRENT]: 'Idle', [DESIRED]: 'Idle', [EXTERNAL]: 'true' });
    });
  });
});
