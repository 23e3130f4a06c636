// Hostile and broken input on the testbed (issue 8, point 5): each case is reported on the object concerned with an
// exact condition message or event, the other requests keep progressing, and no pass throws or reports a failed write.
// The nodes are our own (a kubelet of this file plays them), so deleting one leaves the shared testbed whole.
import { errorMessage } from '../shared/errors/index.ts';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Node } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PLURAL, GROUP, NODE_MAINTENANCE_PLURAL, VERSION } from '../shared/api/index.ts';
import type { NodeMaintenance, NodeMaintenanceSpec } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction, type PassSummary } from '../shared/pass/index.ts';
import { SimKubelet } from '../sim/kubelet/index.ts';
import { kubeConfigThroughProxy, proxyCertificate, startFaultProxy } from '../testbed/fault-proxy/index.ts';
import { adminKubeConfig, clusterKind, kmaintKubeConfig, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, createNM, deleteNM, getNM, isUnschedulable, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const ns = `hostile-${randomBytes(3).toString('hex')}`;
const LABEL = 'kmaint-hostile';
const NODES = ['hostile-1', 'hostile-2', 'hostile-3', 'hostile-4'] as const;
const TAINT = { key: 'kmaint-hostile', value: 'true', effect: 'NoSchedule' as const };
const REQUESTOR = 'hostile.example.com';
/** The drain every well-formed request here uses: the pods it binds, nothing else. */
const DRAIN = { force: true, podSelector: 'hostile=drain', deleteEmptyDir: true, timeoutSeconds: 0 };

function node(name: string, index: number): V1Node {
  const cidr = `10.210.${index}.0/24`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'hostile-zone', [LABEL]: 'true' } },
    spec: { podCIDR: cidr, podCIDRs: [cidr], taints: [{ ...TAINT }] },
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
      addresses: [{ type: 'InternalIP', address: `10.210.${index}.1` }],
      nodeInfo: { architecture: 'amd64', bootID: `b-${index}`, containerRuntimeVersion: 'containerd://2.1.4', kernelVersion: '6.12', kubeProxyVersion: '', kubeletVersion: 'v1.35.0', machineID: `m-${index}`, operatingSystem: 'linux', osImage: 'sim', systemUUID: `u-${index}` },
    },
  };
}

const nodeName = (i: 1 | 2 | 3 | 4): string => NODES[i - 1] as string;
/** Nodes this file deleted (the node-deleted-mid-drain case). */
const deletedNodes = new Set<string>();
const readyMessage = (nm: NodeMaintenance | undefined): string | undefined => nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
const request = (name: string, node: string, spec: Partial<NodeMaintenanceSpec> = {}, namespace = ns): Promise<NodeMaintenance> =>
  createNM(namespace, name, { requestorID: REQUESTOR, nodeName: node, cordon: true, drainSpec: DRAIN, ...spec });

/** Every pass summary of the file: none may throw, none may report a failed write (checked after each test). */
const summaries: PassSummary[] = [];
const thrown: string[] = [];

async function passes(rounds = 1, client = new KubeClient(kmaintKubeConfig())): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (const fn of ['scheduler', 'drainer', 'cleanup'] as PassFunction[]) {
      try {
        summaries.push(await runPass(fn, { client, namespace: KMAINT_NS, now: () => new Date() }));
      } catch (err) {
        thrown.push(`${fn}: ${errorMessage(err)}`);
      }
    }
  }
}

/** Runs rounds of all passes until `check` returns a value. */
function drive<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return waitFor(
    what,
    async () => {
      await passes();
      return check();
    },
    timeoutMs,
    200,
  );
}

const until = (name: string, phase: string, namespace = ns): Promise<NodeMaintenance> =>
  drive(`${namespace}/${name} in ${phase}`, async () => {
    const nm = await getNM(namespace, name);
    return phaseOf(nm) === phase ? nm : undefined;
  });

async function warningEvents(namespace: string, name: string): Promise<string[]> {
  const r = await kubectl(['get', 'events', '-n', namespace, '--field-selector', `involvedObject.name=${name},type=Warning`, '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
  return [...new Set(r.stdout.trim().split('\n').filter((l) => l !== ''))];
}

async function podExists(namespace: string, name: string): Promise<boolean> {
  try {
    const pod = await admin().core.readNamespacedPod({ namespace, name });
    return pod.metadata?.deletionTimestamp === undefined;
  } catch {
    return false;
  }
}

/** A pod bound to one of our nodes by name (no scheduler involved, so their taint does not keep it off). */
async function podOn(name: string, node: string, labels: Record<string, string>, namespace = ns): Promise<void> {
  await bindPod(namespace, name, node, { labels });
}

describe(`hostile and broken input on the ${clusterKind()}`, () => {
  let kubelet: SimKubelet | undefined;

  beforeAll(async () => {
    expect(testbed().cluster).toBe('testbed');
    const kc = adminKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    kubelet = new SimKubelet({ kubeConfig: kc, nodes: NODES.map((n, i) => node(n, i + 1)), podSync: 'watch', podStartDelayMs: 100, defaultTerminationSeconds: 0 });
    await kubelet.start();
    await waitFor('hostile nodes Ready', async () => {
      const ready = (await core.listNode({ labelSelector: LABEL })).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !n.spec?.taints?.some((t) => t.key.startsWith('node.kubernetes.io/')));
      return ready.length === NODES.length ? true : undefined;
    });
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await setConfig({ maxParallelOperations: 10 });
  }, 120_000);

  afterEach(async () => {
    await removeAllNMs(ns);
    await admin().core.deleteCollectionNamespacedPod({ namespace: ns, gracePeriodSeconds: 0 });
    await setConfig({ maxParallelOperations: 10 });
    // Every pass of the test ran to its end and reported no failed write: the bad object never stopped a pass.
    const errors = summaries.flatMap((s) => s.errors);
    summaries.length = 0;
    const threw = thrown.splice(0);
    expect({ threw, errors }).toEqual({ threw: [], errors: [] });
    for (const n of NODES) if (!deletedNodes.has(n)) expect([n, await isUnschedulable(n)]).toEqual([n, false]);
  }, 120_000);

  afterAll(async () => {
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
    await admin().core.deleteCollectionNamespacedPod({ namespace: ns, gracePeriodSeconds: 0 }).catch(() => undefined);
    await kubelet?.stop();
    for (const n of NODES) await admin().core.deleteNode({ name: n }).catch(() => undefined);
    // The DaemonSet pods of our nodes go now, not while the next file runs (its checks would see DaemonSet pods vanish):
    // with no kubelet left, only a delete with grace period 0 removes them.
    const { core } = admin();
    await waitFor('the pods of the hostile nodes gone', async () => {
      const left = (await Promise.all(NODES.map((n) => core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${n}` })))).flatMap((l) => l.items);
      for (const p of left) await core.deleteNamespacedPod({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', gracePeriodSeconds: 0 }).catch(() => undefined);
      return left.length === 0 ? true : undefined;
    });
  });

  it('invalid label selectors: the request stays where it is, naming the selector; nothing is evicted; the others complete', async () => {
    await podOn('victim-1', nodeName(1), { hostile: 'drain', app: 'a' });
    await podOn('victim-2', nodeName(2), { hostile: 'wait' });
    await podOn('drained-3', nodeName(3), { hostile: 'drain' });
    await request('bad-drain-selector', nodeName(1), { drainSpec: { ...DRAIN, podSelector: 'app in (a' } });
    await request('bad-wait-selector', nodeName(2), { waitForPodCompletion: { podSelector: 'hostile=wait,(x', timeoutSeconds: 0 } });
    await request('good', nodeName(3));
    await until('good', 'Ready');
    const drain = await until('bad-drain-selector', 'Draining');
    const wait = await until('bad-wait-selector', 'WaitForPodCompletion');
    await passes(2);
    expect({ drain: readyMessage(await getNM(ns, 'bad-drain-selector')), wait: readyMessage(await getNM(ns, 'bad-wait-selector')) }).toEqual({
      drain: readyMessage(drain),
      wait: readyMessage(wait),
    });
    // No pod is judged with a selector kmaint cannot read (neither refused, DaemonSet pods included, nor taken as "not
    // selected", which would report the node drained): the message names the field and says once that nothing is evicted.
    expect(readyMessage(drain)).toBe(`drainSpec.podSelector: invalid label selector "app in (a": found end of string at column 10, expected ',' or ')'; nothing is evicted until it is fixed`);
    expect(readyMessage(wait)).toBe(`waitForPodCompletion.podSelector: invalid label selector "hostile=wait,(x": found '(' at column 14, expected a label key or '!' after ','`);
    expect([await podExists(ns, 'victim-1'), await podExists(ns, 'victim-2'), await podExists(ns, 'drained-3')]).toEqual([true, true, false]);
  });

  it('an invalid regex in podEvictionFilters is named on the request; a catastrophic one (a+)+$ drains in linear time', async () => {
    await podOn('victim-1', nodeName(1), { hostile: 'drain' });
    await podOn('drained-2', nodeName(2), { hostile: 'drain' });
    await request('bad-regex', nodeName(1), { drainSpec: { ...DRAIN, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-(' }] } });
    await request('catastrophic-regex', nodeName(2), { drainSpec: { ...DRAIN, podEvictionFilters: [{ byResourceNameRegex: '(a+)+$' }, { byResourceNameRegex: 'cpu' }] } });
    await until('catastrophic-regex', 'Ready');
    const bad = await until('bad-regex', 'Draining');
    expect(readyMessage(bad)).toBe(
      'draining: 0 of 0 pods left; drainSpec.podEvictionFilters[0].byResourceNameRegex "nvidia.com/gpu-(" is not a valid RE2 expression (error parsing regexp: missing closing ): `nvidia.com/gpu-(`); the entry matches no pod',
    );
    expect([await podExists(ns, 'victim-1'), await podExists(ns, 'drained-2')]).toEqual([true, false]);
  });

  it('a request for a node that does not exist waits naming the node; a request for a real node is admitted next to it', async () => {
    await request('ghost', 'hostile-no-such-node');
    await request('real', nodeName(1));
    await until('real', 'Ready');
    const ghost = await getNM(ns, 'ghost');
    expect([phaseOf(ghost), readyMessage(ghost)]).toEqual(['Pending', 'waiting: node hostile-no-such-node not found']);
  });

  it.each([
    ['two requestors', 'other.example.com'],
    ['the same requestor twice', REQUESTOR],
  ])('two requests for one node (%s): the second waits naming the first, and runs once the first is released', async (_name, secondRequestor) => {
    await request('first', nodeName(1));
    await runPass('scheduler', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() });
    expect(phaseOf(await getNM(ns, 'first'))).toBe('Scheduled');
    await request('second', nodeName(1), { requestorID: secondRequestor });
    await until('first', 'Ready');
    const second = await getNM(ns, 'second');
    expect([phaseOf(second), readyMessage(second)]).toEqual(['Pending', `waiting: another request for node ${nodeName(1)} is in progress (${ns}/first)`]);
    await deleteNM(ns, 'first');
    await until('second', 'Ready');
    expect(await getNM(ns, 'first')).toBe(undefined);
  });

  it.each([
    ['maxParallelOperations a word', { maxParallelOperations: 'many' }, 'spec.maxParallelOperations: "many" is not an integer or a percentage'],
    ['maxParallelOperations a malformed percentage', { maxParallelOperations: '10%%' }, 'spec.maxParallelOperations: "10%%" is not an integer or a percentage'],
    ['maxUnavailable a negative string', { maxUnavailable: '-2' }, 'spec.maxUnavailable: "-2" is not an integer or a percentage'],
    ['maxUnavailable a fraction', { maxUnavailable: '1.5' }, 'spec.maxUnavailable: "1.5" is not an integer or a percentage'],
  ])('a nonsense config value (%s) is reported on the config and on every waiting request; nothing is admitted', async (_name, spec, problem) => {
    await setConfig(spec);
    await request('held', nodeName(1));
    await passes(2);
    const held = await getNM(ns, 'held');
    expect([phaseOf(held), readyMessage(held)]).toEqual(['Pending', `waiting: config invalid: ${problem}`]);
    const cfg = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL, name: 'default' })) as { status?: { conditions?: Array<{ type: string; status: string; message: string }> } };
    const said = `${problem}; no new maintenance is admitted until this is fixed`;
    expect(cfg.status?.conditions?.map((c) => [c.type, c.status, c.message])).toEqual([['Valid', 'False', said]]);
    expect(await warningEvents(KMAINT_NS, 'default')).toContain(`InvalidConfig: ${said}`);
    expect(await isUnschedulable(nodeName(1))).toBe(false);
  });

  it('no config object at all: the upstream defaults hold (one at a time), said in each admission and wait', async () => {
    await setConfig(undefined);
    await request('one', nodeName(1));
    await request('two', nodeName(2));
    await runPass('scheduler', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() });
    const [one, two] = [await getNM(ns, 'one'), await getNM(ns, 'two')];
    expect([readyMessage(one), readyMessage(two)]).toEqual(['admitted: slot 1 of 1', 'waiting: maxParallelOperations 1 reached (1 in progress)']);
    await until('one', 'Ready');
    await deleteNM(ns, 'one');
    await until('two', 'Ready');
  });

  describe('objects that bypassed validation (written through an older, unvalidated CRD version)', () => {
    const CRD = 'nodemaintenances.maintenance.nvidia.com';
    const OLD = 'v1alpha0';
    beforeAll(async () => {
      // An older version served without a schema: what a cluster upgraded from a loose CRD, or a write with validation off, leaves in etcd.
      const patch = [{ op: 'add', path: '/spec/versions/-', value: { name: OLD, served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } } }];
      const r = await kubectl(['patch', 'crd', CRD, '--type=json', '-p', JSON.stringify(patch)]);
      expect(r.stderr).toBe('');
      await waitFor(`${OLD} served`, async () => ((await kubectl(['get', `${NODE_MAINTENANCE_PLURAL}.${OLD}.${GROUP}`, '-A'])).code === 0 ? true : undefined));
    });
    afterAll(async () => {
      for (const name of ['no-spec', 'wrong-types', 'bad-status']) await kubectl(['delete', `${NODE_MAINTENANCE_PLURAL}.${OLD}.${GROUP}`, '-n', ns, name, '--ignore-not-found']);
      const r = await kubectl(['apply', '-f', `crds/${CRD}.yaml`]);
      expect(r.code).toBe(0);
    });

    async function writeBypassing(name: string, body: Record<string, unknown>): Promise<void> {
      await admin().custom.createNamespacedCustomObject({ group: GROUP, version: OLD, namespace: ns, plural: NODE_MAINTENANCE_PLURAL, body: { apiVersion: `${GROUP}/${OLD}`, kind: 'NodeMaintenance', metadata: { name, namespace: ns }, ...body } });
    }

    it('no spec, wrong types, a broken status: each named on the object, left alone, and the well-formed request completes', async () => {
      await writeBypassing('no-spec', {});
      await writeBypassing('wrong-types', { spec: { requestorID: 7, nodeName: 42, cordon: 'yes', drainSpec: 'all', additionalRequestors: 'x' } });
      // The status subresource drops a status sent with a create: the broken status is written to it afterwards.
      await writeBypassing('bad-status', { spec: { requestorID: REQUESTOR, nodeName: nodeName(2) } });
      await admin().custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: OLD, namespace: ns, plural: NODE_MAINTENANCE_PLURAL, name: 'bad-status', body: { status: { conditions: 'Ready' } } }, mergePatch);
      await podOn('drained-1', nodeName(1), { hostile: 'drain' });
      await request('good', nodeName(1));
      await until('good', 'Ready');
      await passes(2);
      const invalid = 'invalid NodeMaintenance, kmaint leaves it alone until it is fixed: ';
      const noSpec = `${invalid}spec: Invalid input: expected object, received undefined`;
      const wrongTypes = `${invalid}spec.requestorID: Invalid input: expected string, received number; spec.additionalRequestors: Invalid input: expected array, received string; spec.nodeName: Invalid input: expected string, received number; spec.cordon: Invalid input: expected boolean, received string; spec.drainSpec: Invalid input: expected object, received string`;
      const badStatus = `${invalid}status.conditions: Invalid input: expected array, received string`;
      const a = await getNM(ns, 'no-spec');
      expect([phaseOf(a), readyMessage(a)]).toEqual(['Pending', noSpec]);
      // The status is kmaint's own record: a broken one is said once and replaced, and the request then runs from Pending.
      expect(await warningEvents(ns, 'bad-status')).toEqual([`InvalidNodeMaintenance: ${badStatus}`]);
      await until('bad-status', 'Ready');
      // Nothing can be written to wrong-types (the CRD's immutability rule cannot compare a number): the event says it.
      expect(await warningEvents(ns, 'wrong-types')).toEqual([`InvalidNodeMaintenance: ${wrongTypes}`]);
      expect(await warningEvents(ns, 'no-spec')).toEqual([`InvalidNodeMaintenance: ${noSpec}`]);
      // Reported once: a further scheduler pass writes nothing but wrong-types' event, and does not count it as progress.
      const s = await runPass('scheduler', { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date() });
      expect({ actions: s.actions, workRemains: s.workRemains, errors: s.errors }).toEqual({ actions: { emitEvent: 1 }, workRemains: false, errors: [] });
      // And `kmaint pass` (what a CronJob runs) exits 0 with them in the cluster.
      const cli = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = execFile(process.execPath, kmaintArgs('pass', 'scheduler', '--kubeconfig', testbed().kmaintKubeconfigPath, '--kmaint-namespace', KMAINT_NS), { timeout: 60_000 }, (_err, _stdout, stderr) => done({ code: child.exitCode, stderr }));
      });
      expect(cli).toEqual({ code: 0, stderr: '' });
      for (const name of ['no-spec', 'wrong-types']) await kubectl(['delete', `${NODE_MAINTENANCE_PLURAL}.${OLD}.${GROUP}`, '-n', ns, name]);
    });
  });

  it('a node deleted mid-drain: its request is released and goes, the other request completes', async () => {
    await podOn('slow-4', nodeName(4), { hostile: 'wait' });
    await podOn('drained-3', nodeName(3), { hostile: 'drain' });
    await request('doomed', nodeName(4), { waitForPodCompletion: { podSelector: 'hostile=wait', timeoutSeconds: 0 } });
    await until('doomed', 'WaitForPodCompletion');
    await request('survivor', nodeName(3));
    deletedNodes.add(nodeName(4));
    await kubelet?.deleteNode(nodeName(4));
    const gone = await drive('doomed gone', async () => ((await getNM(ns, 'doomed')) === undefined ? true : undefined));
    expect(gone).toBe(true);
    await until('survivor', 'Ready');
  });

  it('a namespace deleted with requests in it: they are released (node uncordoned, finalizer removed) and the namespace goes', async () => {
    const doomed = `${ns}-gone`;
    await admin().core.createNamespace({ body: { metadata: { name: doomed } } });
    await request('cordoned', nodeName(1), {}, doomed);
    await request('waiting', 'hostile-no-such-node', {}, doomed);
    await until('cordoned', 'Ready', doomed);
    expect(await isUnschedulable(nodeName(1))).toBe(true);
    await admin().core.deleteNamespace({ name: doomed });
    await drive(`namespace ${doomed} gone`, async () => {
      try {
        await admin().core.readNamespace({ name: doomed });
        return undefined;
      } catch {
        return true;
      }
    });
    expect(await isUnschedulable(nodeName(1))).toBe(false);
  });

  it('a LIST page of about 12 MB (48 requests with 250 kB of annotations each): every one is judged, the others complete', async () => {
    const big = 'x'.repeat(250_000);
    const { custom } = admin();
    for (let i = 0; i < 48; i++) {
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: NODE_MAINTENANCE_PLURAL,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name: `huge-${i}`, namespace: ns, annotations: { 'example.com/ballast': big } }, spec: { requestorID: REQUESTOR, nodeName: `hostile-ghost-${i}` } },
      });
    }
    await podOn('drained-1', nodeName(1), { hostile: 'drain' });
    await request('small', nodeName(1));
    await until('small', 'Ready');
    const list = ((await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: NODE_MAINTENANCE_PLURAL })) as { items: NodeMaintenance[] }).items;
    expect(JSON.stringify(list).length).toBeGreaterThan(12_000_000);
    const messages = list.filter((nm) => nm.metadata.name.startsWith('huge-')).map((nm) => readyMessage(nm));
    expect(messages).toEqual(list.filter((nm) => nm.metadata.name.startsWith('huge-')).map((nm) => `waiting: node hostile-ghost-${nm.metadata.name.slice('huge-'.length)} not found`));
    expect(messages.length).toBe(48);
  }, 180_000);

  it('a continue token that expired (410 on a continued LIST): the LIST starts again from its first page and the pass completes', async () => {
    await request('paged-1', nodeName(1));
    await request('paged-2', nodeName(2));
    await request('paged-3', nodeName(3));
    const cert = proxyCertificate();
    const proxy = await startFaultProxy({ upstream: testbed().server, upstreamCa: readFileSync(testbed().caFile), tls: cert, seed: 1, rules: [{ verbs: ['list'], resources: ['nodemaintenances'], continued: true, rates: { '410': 1 }, maxFaults: 1 }] });
    try {
      const client = new KubeClient(kubeConfigThroughProxy(kmaintKubeConfig(), proxy.url, cert.cert), { pageSize: 2 });
      const s = await runPass('scheduler', { client, namespace: KMAINT_NS, now: () => new Date() });
      expect({ faults: proxy.counts.faults['410'], lists: s.requests['list nodemaintenances'], admitted: s.admitted, errors: s.errors }).toEqual({ faults: 1, lists: 4, admitted: 3, errors: [] });
      // One that keeps expiring is a read failure of the pass (nothing to do with one object), named as the API server words it.
      proxy.setRules([{ verbs: ['list'], resources: ['nodemaintenances'], continued: true, rates: { '410': 1 } }]);
      await expect(runPass('scheduler', { client, namespace: KMAINT_NS, now: () => new Date() })).rejects.toThrow(
        'listing nodemaintenances: HTTP 410: injected fault: The provided continue parameter is too old to display a consistent list result.',
      );
    } finally {
      await proxy.close();
    }
    await until('paged-3', 'Ready');
  });
});
