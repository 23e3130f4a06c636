// Issue 30, the owner table's column "switch to upstream" on the testbed: kmaint brings a request to Ready (cordon and
// its record, the medik8s node lease, kmaint's node conditions, the finalizer, kmaint's records on the request), then
// stops; the upstream NVIDIA maintenance operator (v0.3.0, as testbed/peers builds it; nothing of it committed) is
// started as docs/migrate.md "Going back" says, on kmaint's CRDs; the requestor deletes the request. What upstream
// takes over and what it leaves are asserted as observed; a returning kmaint's cleanup then drops the record upstream
// left but keeps a cordon an administrator made since (the API server's managedFields name kubectl as its owner: before
// that rule, kmaint's sweep took the leftover record for an orphaned cordon and lifted it), and docs/migrate.md's
// commands remove the rest. The hand-over goes through the command a user runs (issue 42 point 4): `kmaint takeover
// --to nvidia` before upstream starts (it writes node-initial-state where a request kmaint cordoned for lacks it), and
// `kmaint takeover --from nvidia` for a second request upstream cordoned, which a returning kmaint then releases;
// `kmaint leftovers` says what of either side is left, and at the end that nothing is.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER } from '../shared/api/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import { kubeconfigYaml } from '../testbed/certs.ts';
import { nvidiaGitHint, nvidiaOperatorIsBuilt, type NvidiaOperator } from '../testbed/peers/build-nvidia.ts';
import { adminKubeConfig, auditLog, kmaintKubeConfig, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, driveUntil, generalNodes, getNM, installCrds, pass, phaseOf, setConfig, setUnschedulable, untilPhase } from './support/kmaint.ts';
import { runKmaint } from './support/kmaint-cli.ts';

const ns = `up-${randomBytes(3).toString('hex')}`;
const NAME = 'firmware';
/** The second request: upstream cordons for it, `kmaint takeover --from nvidia` hands the cordon to kmaint. */
const NAME_B = 'firmware-b';
const INITIAL = 'maintenance.nvidia.com/node-initial-state.unschedulable';
const REQUESTOR = 'firmware.example.com';
/** Where the upstream chart runs the operator (its release namespace): its config `default` lives here. */
const UPSTREAM_NS = 'nvidia-maintenance-operator';
const UPSTREAM_SA = 'maintenance-operator';
const UPSTREAM_USER = `system:serviceaccount:${UPSTREAM_NS}:${UPSTREAM_SA}`;
/** The ClusterRole name of the operator's config/rbac/role.yaml. */
const UPSTREAM_ROLE = 'manager-role';
const MEDIK8S_NS = 'medik8s-leases';
const OWN = `kmaint: NodeMaintenance ${ns}/${NAME} (requestor ${REQUESTOR})`;
/** docs/migrate.md "Going back": what kmaint left on each node, by its marks. */
const FINDER = 'custom-columns=NAME:.metadata.name,CORDONED-BY:.metadata.annotations.kmaint\\.io/cordoned-by,CONDITIONS:.status.conditions[?(@.type=="Drained")].message';
/** docs/migrate.md "Going back": what kmaint left, by its marks (the node's record and conditions; the medik8s lease). */
const FINDERS = [
  ['get', 'nodes', '-o', FINDER],
  ['get', 'leases', '-n', MEDIK8S_NS, '-o', 'custom-columns=NAME:.metadata.name,HOLDER:.spec.holderIdentity'],
];
/** docs/migrate.md "Going back": kmaint's four node conditions removed by type (a strategic merge patch of the status). */
const REMOVE_CONDITIONS = JSON.stringify({ status: { conditions: ['MaintenancePlanned', 'MaintenanceInProgress', 'DrainInProgress', 'Drained'].map((type) => ({ type, $patch: 'delete' })) } });

/**
 * Records kmaint keeps on Nodes that only kmaint reads (the reaper's, the node-annotation handshake's) and the reason it
 * hands Slinky, written here on a second node as kmaint writes them: upstream has no code for any of them.
 */
const INERT: Record<string, string> = {
  'kmaint.io/reaper-decision': 'NotReady for 900 s: reap',
  'kmaint.io/reaped': '2026-11-28T00:00:00Z',
  'kmaint.io/reaper-joined': `${ns}/other/0000`,
  'kmaint.io/reaper-joined-provider-id': 'aws:///us-east-2a/i-0123456789abcdef0',
  'kmaint.io/current-state': 'Drain_Complete',
  'kmaint.io/handshake-problem': 'kmaint.io/desired-state "x" is not Idle, Drain_Required or Reboot_Required; nothing is done until it is',
  'nodeset.slinky.slurm.net/node-cordon-reason': `kmaint: ${ns}/${NAME}`,
};
/** docs/migrate.md "Going back": the records only kmaint reads, and the Slinky reason it handed over, removed. */
const REMOVE_INERT = [
  ['annotate', 'nodes', '--all', 'kmaint.io/reaper-decision-', 'kmaint.io/reaped-', 'kmaint.io/reaper-joined-', 'kmaint.io/reaper-joined-provider-id-', 'kmaint.io/current-state-', 'kmaint.io/handshake-problem-', 'kmaint.io/admitted-'],
];

async function inertOn(name: string): Promise<Record<string, string>> {
  const annotations = (await admin().core.readNode({ name })).metadata?.annotations ?? {};
  return Object.fromEntries(Object.entries(annotations).filter(([k]) => k in INERT));
}

/** The request's uid, as its admission record names it (set in part 1). */
let requestUid = '';

/** What kmaint's request leaves on its Ready node, the cordon aside. */
const LEFT_BY_KMAINT = (unschedulable: boolean): Awaited<ReturnType<typeof nodeState>> => ({
  unschedulable,
  // kmaint's admission record (issue 40) names the request's uid, read in part 1.
  annotations: { 'kmaint.io/cordoned-by': `kmaint/${ns}/${NAME}`, 'kmaint.io/cordon-reason': `NodeMaintenance ${ns}/${NAME} (requestor ${REQUESTOR})`, 'kmaint.io/admitted': `${ns}/${NAME}/${requestUid}` },
  conditions: [`MaintenancePlanned=False/MaintenanceStarted: ${OWN}`, `MaintenanceInProgress=True/MaintenanceStarted: ${OWN}`, `DrainInProgress=False/DrainCompleted: ${OWN}`, `Drained=True/DrainCompleted: ${OWN}`],
  taints: [],
  leaseHolder: `kmaint/${ns}/${NAME}`,
});

const upstream = nvidiaOperatorIsBuilt();
if (!upstream) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/switch-to-upstream] NOT RUN: needs the upstream operator built in ~/.cache/kmaint-testbed/peers (${nvidiaGitHint()}); counted as skipped\n`);
}

const coordination = (): CoordinationV1Api => adminKubeConfig().makeApiClient(CoordinationV1Api);

async function lease(node: string): Promise<V1Lease | undefined> {
  try {
    return await coordination().readNamespacedLease({ namespace: MEDIK8S_NS, name: `node-${node}` });
  } catch {
    return undefined;
  }
}

/** Everything of kmaint's on the Node (and the lease named for it), in a form exact assertions can compare. */
async function nodeState(node: string): Promise<{ unschedulable: boolean; annotations: Record<string, string>; conditions: string[]; taints: string[]; leaseHolder: string | undefined }> {
  const n = await admin().core.readNode({ name: node });
  return {
    unschedulable: n.spec?.unschedulable === true,
    annotations: Object.fromEntries(Object.entries(n.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('kmaint.io/'))),
    conditions: (n.status?.conditions ?? []).filter((c) => (c.message ?? '').startsWith('kmaint: ')).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}: ${c.message ?? ''}`),
    // The control plane's node.kubernetes.io/unschedulable mirrors spec.unschedulable (and lags it): not listed.
    taints: (n.spec?.taints ?? []).filter((t) => t.key !== 'node.kubernetes.io/unschedulable').map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`),
    leaseHolder: (await lease(node))?.spec?.holderIdentity,
  };
}

/** The request's finalizers, phase and annotations; undefined once it is gone. */
async function requestState(): Promise<{ finalizers: string[]; phase: string; annotations: Record<string, string> } | undefined> {
  const nm = await getNM(ns, NAME);
  if (!nm) return undefined;
  const annotations = { ...(nm.metadata.annotations ?? {}) };
  // Times: their presence is asserted, not their value.
  for (const k of Object.keys(annotations)) if (k.endsWith('-time')) annotations[k] = 'T';
  return { finalizers: nm.metadata.finalizers ?? [], phase: nm.status?.conditions?.find((c) => c.type === 'Ready')?.reason ?? '', annotations };
}

/**
 * What a re-installed kmaint's next pass of `fn` would do to `node`, written nowhere (a dry run as kmaint's
 * ServiceAccount). Only the node's lines: an earlier file on the same testbed may have left another node to sweep.
 */
async function kmaintWouldDo(fn: PassFunction, node: string): Promise<string[]> {
  const s = await runPass(fn, { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => new Date(), dryRun: true });
  return s.plan.filter((line) => line.includes(`node ${node} `));
}

/** `kubectl ...args` as a shell line on the docs page: `node` written <node>, arguments with shell characters single-quoted. */
function shellLine(args: readonly string[], node: string): string {
  const words = args.map((a) => a.replaceAll(node, '<node>')).map((a) => (/^[\w./:=,<>-]+$/.test(a) ? a : `'${a}'`));
  return ['kubectl', ...words].join(' ');
}

/** `kmaint ...args` as an administrator runs it against the testbed (its admin kubeconfig, kmaint's namespace). */
function kmaintCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runKmaint(['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', KMAINT_NS, ...args], 60_000);
}

/**
 * `kmaint leftovers --no-headers`: its rows (object, record, owner, value) about this file's nodes and requests (an
 * earlier file on the same testbed may have left others), after checking its exit code says whether it listed any.
 */
async function leftoversAbout(nodes: readonly string[]): Promise<string[][]> {
  const r = await kmaintCli('leftovers', '--no-headers');
  const rows = r.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s{2,}/));
  expect(r.code).toBe(rows.length > 0 ? 1 : 0);
  const ours = (object: string): boolean => nodes.some((n) => object === `Node/${n}` || object === `Lease/${MEDIK8S_NS}/node-${n}`) || object.startsWith(`NodeMaintenance/${ns}/`);
  return rows.filter((row) => ours(row[0] ?? ''));
}

interface Upstream {
  /** Stops the process (SIGTERM, then SIGKILL) and returns its log. */
  stop(): Promise<string>;
}

/**
 * The operator as the upstream chart runs it: its own namespace and ServiceAccount bound to the ClusterRole it ships,
 * its config `default` there, admission webhook off (docs/migrate.md: the chart installed again, kmaint's CRDs kept).
 */
async function startUpstream(op: NvidiaOperator): Promise<Upstream> {
  const tb = testbed();
  for (const args of [
    ['create', 'namespace', UPSTREAM_NS],
    ['create', 'serviceaccount', UPSTREAM_SA, '-n', UPSTREAM_NS],
    ['apply', '-f', op.roleFile],
    ['create', 'clusterrolebinding', UPSTREAM_ROLE, `--clusterrole=${UPSTREAM_ROLE}`, `--serviceaccount=${UPSTREAM_NS}:${UPSTREAM_SA}`],
  ]) {
    const r = await kubectl(args);
    expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 0, '']);
  }
  const config = { apiVersion: 'maintenance.nvidia.com/v1alpha1', kind: 'MaintenanceOperatorConfig', metadata: { name: 'default', namespace: UPSTREAM_NS }, spec: { maxParallelOperations: 1 } };
  expect((await kubectl(['apply', '-f', '-'], { input: JSON.stringify(config) })).code).toBe(0);
  const token = await kubectl(['create', 'token', UPSTREAM_SA, '-n', UPSTREAM_NS, '--duration', '1h']);
  expect(token.code).toBe(0);
  const kubeconfig = join(tb.dir, `kubeconfig-${UPSTREAM_SA}-${ns}`);
  writeFileSync(kubeconfig, kubeconfigYaml({ server: tb.server, caFile: tb.caFile, token: token.stdout.trim(), user: UPSTREAM_SA }), { mode: 0o600 });
  const child: ChildProcess = spawn(op.binary, ['--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--zap-log-level', 'info'], {
    env: { ...process.env, ENABLE_WEBHOOKS: 'false', OPERATOR_NAMESPACE: UPSTREAM_NS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
  // Running once each of its three controllers starts its workers (its caches are synced).
  await waitFor('the upstream operator started', async () => {
    if (exited) throw new Error(`the upstream operator exited: ${out.trim().split('\n').slice(-5).join(' | ')}`);
    return (out.match(/Starting workers/g) ?? []).length >= 3 ? true : undefined;
  }, 60_000, 100);
  return {
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(killer);
      return out;
    },
  };
}

describe.skipIf(!upstream)('switching from kmaint to the upstream NVIDIA maintenance operator with a request Ready (docs/migrate.md "Going back")', () => {
  let node = '';
  /** A second node carrying the records only kmaint reads (INERT). */
  let other = '';
  /** The node of NAME_B: upstream cordons it, `kmaint takeover --from nvidia` hands the cordon over. */
  let third = '';
  let operator: Upstream | undefined;

  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    // The medik8s convention is in use: kmaint takes the node lease before it cordons.
    await kubectl(['create', 'namespace', MEDIK8S_NS]);
    expect((await kubectl(['apply', '-k', 'infra/medik8s'])).code).toBe(0);
    // docs/migrate.md's first step: no admission policy of kmaint's refuses upstream's writes.
    expect((await kubectl(['get', 'validatingadmissionpolicy', '-o', 'name'])).stdout).toBe('');
    await setConfig({ maxParallelOperations: 1 });
    [node = '', other = '', third = ''] = await generalNodes();
    expect(third).not.toBe('');
  });

  /** Stops the operator once, keeping its log beside the testbed's. */
  async function stopUpstream(): Promise<void> {
    const log = await operator?.stop();
    operator = undefined;
    if (log !== undefined) writeFileSync(join(testbed().dir, `upstream-operator-${ns}.log`), log);
  }

  afterAll(async () => {
    await stopUpstream();
    // Whatever a failed step left: the request released, the node as found, upstream's objects gone.
    await getNM(ns, NAME).then(async (nm) => {
      if (nm) await kubectl(['patch', 'nm', '-n', ns, NAME, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    });
    await deleteNM(ns, NAME);
    await getNM(ns, NAME_B).then(async (nm) => {
      if (nm) await kubectl(['patch', 'nm', '-n', ns, NAME_B, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    });
    await deleteNM(ns, NAME_B);
    if (node) await setUnschedulable(node, false);
    if (third) {
      await setUnschedulable(third, false);
      await kubectl(['annotate', 'node', third, 'kmaint.io/cordoned-by-']);
    }
    if (other) await kubectl(['annotate', 'node', other, ...Object.keys(INERT).map((k) => `${k}-`)]);
    await kubectl(['delete', 'clusterrolebinding,clusterrole', UPSTREAM_ROLE, '--ignore-not-found']);
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, UPSTREAM_NS, '--ignore-not-found', '--wait=false']);
    // Waited for: later files must not meet a terminating medik8s-leases.
    await kubectl(['delete', 'namespace', MEDIK8S_NS, '--ignore-not-found', '--wait=true']);
  });

  it('part 1, kmaint: the request Ready with the node cordoned, recorded, leased and its conditions set', async () => {
    await createNM(ns, NAME, { requestorID: REQUESTOR, nodeName: node });
    requestUid = (await untilPhase(ns, NAME, 'Ready')).metadata.uid ?? '';
    // A pass that cordons leaves the node's conditions to the next one (docs/writes.md): the next tick's drainer.
    await pass('drainer');
    expect(await nodeState(node)).toEqual(LEFT_BY_KMAINT(true));
    expect(await requestState()).toEqual({
      finalizers: [FINALIZER],
      phase: 'Ready',
      annotations: {
        'kmaint.io/cordon-recorded': 'true',
        'kmaint.io/medik8s-lease': `${MEDIK8S_NS}/node-${node}`,
        // What upstream releases by: the node was schedulable before kmaint cordoned it.
        'maintenance.nvidia.com/node-initial-state.unschedulable': 'false',
        'maintenance.nvidia.com/ready-time': 'T',
      },
    });
  });

  it('part 1b, `kmaint takeover --to nvidia` while kmaint runs: where the request lacks node-initial-state (cordoned by a kmaint older than that record), the command writes "false", and nothing else', async () => {
    const before = await requestState();
    // (Nothing is written where the request has the record: cli/takeover.test.ts; each command start costs seconds here.)
    expect((await kubectl(['annotate', 'nm', '-n', ns, NAME, `${INITIAL}-`])).code).toBe(0);
    const line = `patch ${ns}/${NAME} annotations ${INITIAL}: kmaint cordoned ${node} for ${ns}/${NAME}: upstream uncordons it by node-initial-state.unschedulable "false"`;
    const planned = await kmaintCli('takeover', '--to', 'nvidia');
    expect([planned.code, planned.stdout, planned.stderr]).toEqual([0, `(dry run) ${line}\n`, '']);
    expect((await requestState())?.annotations[INITIAL]).toBeUndefined();
    const applied = await kmaintCli('takeover', '--to', 'nvidia', '--apply');
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([0, `${line}\n`, '']);
    // The request as kmaint left it in part 1, the node untouched: part 2 shows upstream uncordons by the record.
    expect(await requestState()).toEqual(before);
    expect(await nodeState(node)).toEqual(LEFT_BY_KMAINT(true));
  });

  it("part 2, upstream: started on kmaint's CRDs, it releases the deleted request by its node-initial-state record (uncordon, finalizer) and leaves the rest of kmaint's state", async () => {
    if (!upstream) throw new Error('unreachable: the describe is skipped without the build');
    const audit = auditLog();
    await audit.sync();
    const since = audit.mark();
    // What the reaper, the handshake and the Slinky hand-over leave on a node, there when upstream takes over.
    expect((await kubectl(['annotate', '--overwrite', 'node', other, ...Object.entries(INERT).map(([k, v]) => `${k}=${v}`)])).code).toBe(0);
    // kmaint stopped after part 1 (no pass runs from here on); the operator takes over.
    operator = await startUpstream(upstream);
    await deleteNM(ns, NAME);
    await waitFor('upstream released the request', async () => ((await getNM(ns, NAME)) === undefined ? true : undefined), 30_000);
    await audit.sync();
    // Every write upstream made, in order: the uncordon, the request without node-initial-state, then without the
    // finalizer. Its own update event queues the request once more, and a write from that stale copy may answer 404 or
    // 409 (the object gone or changed): how many depends on timing, and none of them changes anything.
    const writes = audit.entries({ since, user: UPSTREAM_USER }).filter((e) => !['get', 'list', 'watch'].includes(e.verb));
    expect(writes.filter((e) => e.code < 300).map((e) => `${e.verb} ${e.resource} ${e.name ?? ''}`)).toEqual([`patch nodes ${node}`, `update nodemaintenances ${NAME}`, `update nodemaintenances ${NAME}`]);
    expect(writes.filter((e) => e.code >= 300 && e.code !== 404 && e.code !== 409).map((e) => `${e.verb} ${e.resource} ${e.code}`)).toEqual([]);
    expect(await nodeState(node)).toEqual(LEFT_BY_KMAINT(false));
    // Upstream never wrote the second node (its only node write is the uncordon above): kmaint's records there stay.
    expect(await inertOn(other)).toEqual(INERT);
    // A second request, which upstream admits and cordons for: the cordon `kmaint takeover --from nvidia` hands over.
    await createNM(ns, NAME_B, { requestorID: REQUESTOR, nodeName: third });
    const b = await waitFor(`upstream brought ${ns}/${NAME_B} to Ready`, async () => {
      const nm = await getNM(ns, NAME_B);
      return phaseOf(nm) === 'Ready' ? nm : undefined;
    }, 60_000);
    expect([b.metadata.finalizers, b.metadata.annotations?.[INITIAL]]).toEqual([[FINALIZER], 'false']);
    expect(await nodeState(third)).toEqual({ unschedulable: true, annotations: {}, conditions: [], taints: [], leaseHolder: undefined });
    // Switching back later: the operator goes before kmaint's passes run again (never both at once).
    await stopUpstream();
  });

  it('part 2b, `kmaint takeover --from nvidia`: the cordon upstream made for its Ready request gets kmaint\'s record (field manager kmaint-takeover), the request unchanged; `kmaint leftovers` names it as upstream\'s before and as kmaint\'s after', async () => {
    const cordonB = [`Node/${third}`, 'cordon', 'upstream', `upstream: ${ns}/${NAME_B} (${INITIAL}=false)`];
    // The finalizer has one name for both operators: `leftovers` lists it as kmaint's (docs/migrate.md: run --fix once
    // upstream has released its requests).
    const finalizerB = [`NodeMaintenance/${ns}/${NAME_B}`, 'finalizer', 'kmaint', FINALIZER];
    expect(await leftoversAbout([third])).toEqual([cordonB, finalizerB]);
    const request = await getNM(ns, NAME_B);
    const line = `annotate node ${third} kmaint.io/cordoned-by=kmaint/${ns}/${NAME_B}: hand upstream's cordon of ${third} over to kmaint: ${ns}/${NAME_B} is Ready, its node-initial-state.unschedulable "false"`;
    const planned = await kmaintCli('takeover', '--from', 'nvidia');
    expect([planned.code, planned.stdout, planned.stderr]).toEqual([0, `(dry run) ${line}\n`, '']);
    expect((await nodeState(third)).annotations).toEqual({});
    const applied = await kmaintCli('takeover', '--from', 'nvidia', '--apply');
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([0, `${line}\n`, '']);
    expect(await nodeState(third)).toEqual({ unschedulable: true, annotations: { 'kmaint.io/cordoned-by': `kmaint/${ns}/${NAME_B}` }, conditions: [], taints: [], leaseHolder: undefined });
    const n = await admin().core.readNode({ name: third });
    expect((n.metadata?.managedFields ?? []).filter((e) => JSON.stringify(e.fieldsV1 ?? {}).includes('kmaint.io/cordoned-by')).map((e) => e.manager)).toEqual(['kmaint-takeover']);
    expect((await getNM(ns, NAME_B))?.metadata.resourceVersion).toBe(request?.metadata.resourceVersion);
    expect(await leftoversAbout([third])).toEqual([[`Node/${third}`, 'cordon', 'kmaint', `kmaint/${ns}/${NAME_B}`], [`Node/${third}`, 'kmaint.io/cordoned-by', 'kmaint', `kmaint/${ns}/${NAME_B}`], finalizerB]);
  });

  it("part 3, a re-installed kmaint: its cleanup keeps a cordon made after the switch (managedFields: kubectl's, not kmaint's) and drops the record upstream left", async () => {
    // An administrator cordons the node after the switch; kmaint comes back. Its sweep would once have lifted this
    // cordon on the strength of the record (the FINDING this part showed before the fix): now the API server's
    // managedFields name kubectl as the owner of spec.unschedulable, so only kmaint's stale record goes.
    expect((await kubectl(['cordon', node])).code).toBe(0);
    const conditionsGo = `conditions of node ${node} -MaintenancePlanned -MaintenanceInProgress -DrainInProgress -Drained: no request in maintenance on the node: remove the conditions kmaint set`;
    const recordGoes = `annotate node ${node} -kmaint.io/cordoned-by -kmaint.io/cordon-reason -kmaint.io/admitted: orphaned cordon record: ${ns}/${NAME} no longer exists; the cordon was set by kubectl, not kmaint: kept`;
    expect([await kmaintWouldDo('cleanup', node), await kmaintWouldDo('scheduler', node)]).toEqual([[conditionsGo, recordGoes], [conditionsGo]]);
    // docs/migrate.md's finders, before kmaint's pass writes: what upstream left is there to find (part 4 removes the rest).
    const [nodesFound, leasesFound] = await Promise.all(FINDERS.map((args) => kubectl([...args, '--no-headers'])));
    expect(nodesFound?.stdout.split('\n').filter((l) => l.startsWith(`${node} `)).map((l) => l.trim().split(/\s{2,}/))).toEqual([[node, `kmaint/${ns}/${NAME}`, OWN]]);
    expect(leasesFound?.stdout.split('\n').filter((l) => l.startsWith(`node-${node} `)).map((l) => l.trim().split(/\s+/))).toEqual([[`node-${node}`, `kmaint/${ns}/${NAME}`]]);
    // `kmaint leftovers` finds the same, and no cordon of kmaint's: the administrator's is kubectl's (managedFields).
    const by = `kmaint/${ns}/${NAME}`;
    expect(await leftoversAbout([node])).toEqual([
      [`Lease/${MEDIK8S_NS}/node-${node}`, 'holder', 'kmaint', by],
      [`Node/${node}`, 'kmaint.io/cordoned-by', 'kmaint', by],
      [`Node/${node}`, 'kmaint.io/admitted', 'kmaint', `${ns}/${NAME}/${requestUid}`],
      [`Node/${node}`, 'kmaint.io/cordon-reason', 'kmaint', `NodeMaintenance ${ns}/${NAME} (requestor ${REQUESTOR})`],
      ...['MaintenancePlanned=False', 'MaintenanceInProgress=True', 'DrainInProgress=False', 'Drained=True'].map((c) => [`Node/${node}`, `condition ${c.split('=')[0] ?? ''}`, 'kmaint', c.split('=')[1] ?? '']),
      // NAME_B, handed over in part 2b, still in flight.
      [`NodeMaintenance/${ns}/${NAME_B}`, 'finalizer', 'kmaint', FINALIZER],
    ]);
    // The real pass: the administrator's cordon stays; kmaint's record and conditions go; the lease is left (part 4).
    const s = await pass('cleanup');
    expect(s.plan.filter((line) => line.includes(`node ${node} `))).toEqual([conditionsGo, recordGoes]);
    expect(await nodeState(node)).toEqual({ unschedulable: true, annotations: {}, conditions: [], taints: [], leaseHolder: `kmaint/${ns}/${NAME}` });    // The request upstream cordoned for, deleted by its requestor: the returning kmaint lifts the cordon it was handed
    // (before part 4: its `kubectl annotate nodes --all` is for going back, and would take the handed-over record too).
    await deleteNM(ns, NAME_B);
    await driveUntil(`${ns}/${NAME_B} released`, async () => ((await getNM(ns, NAME_B)) === undefined ? true : undefined));
    // A node without a live request loses kmaint's conditions on the next pass (as in part 3).
    await pass('scheduler');
    expect(await nodeState(third)).toEqual({ unschedulable: false, annotations: {}, conditions: [], taints: [], leaseHolder: undefined });
  });

  it("part 4, docs/migrate.md's commands remove what is left (the medik8s lease; the record and conditions already gone); a re-installed kmaint then leaves the later cordon alone", async () => {
    const removals = [
      ['annotate', 'nodes', '--all', 'kmaint.io/cordoned-by-', 'kmaint.io/cordon-reason-'],
      ['patch', 'node', node, '--subresource=status', '-p', REMOVE_CONDITIONS],
      ['delete', 'lease', '-n', MEDIK8S_NS, `node-${node}`],
    ];
    // The page shows these very commands, the node's name as <node>.
    const page = readFileSync('docs/migrate.md', 'utf8');
    const slinkyReason = ['annotate', 'node', other, 'nodeset.slinky.slurm.net/node-cordon-reason-'];
    expect([...[...FINDERS, ...removals, ...REMOVE_INERT].map((args) => shellLine(args, node)), shellLine(slinkyReason, other)].filter((line) => !page.includes(line))).toEqual([]);
    for (const args of [...removals, ...REMOVE_INERT, slinkyReason]) {
      const r = await kubectl(args);
      expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 0, '']);
    }
    expect(await nodeState(node)).toEqual({ unschedulable: true, annotations: {}, conditions: [], taints: [], leaseHolder: undefined });
    expect(await inertOn(other)).toEqual({});
    expect([await kmaintWouldDo('cleanup', node), await kmaintWouldDo('scheduler', node)]).toEqual([[], []]);
    expect((await kubectl(['uncordon', node])).code).toBe(0);
    // Nothing of either side is left on the three nodes or in the namespace.
    expect(await leftoversAbout([node, other, third])).toEqual([]);
  });
});
