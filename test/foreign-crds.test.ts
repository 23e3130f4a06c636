// Issue 22 point 3 on the testbed: the upstream NVIDIA maintenance operator's real CRDs (its v0.3.0 release, as
// testbed/peers builds it; nothing of it committed) applied over kmaint's, as the NVIDIA network operator's
// maintenance-operator sub-chart would. kmaint's scheduler, run as its ServiceAccount, refuses new requests with the
// exact message and a ForeignCRDs event on the config, lets the request in flight finish and be released, never writes
// the config (so the pools the API server hides come back with kmaint's CRDs), `kmaint status` and `kmaint explain`
// say so; kmaint's CRDs re-applied, it admits again; the upstream CRDs again plus kmaint.io/accept-upstream-schema=true
// on the config, it admits on the upstream schema.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvidiaGitHint, nvidiaOperatorIsBuilt } from '../testbed/peers/build-nvidia.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, deleteNM, driveUntil, getNM, installCrds, nodes, pass, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';
import { EVENT_MESSAGE_MAX } from '../shared/kube/index.ts';
import { waitEstablished } from './support/crd-established.ts';

const ns = `fc-${randomBytes(3).toString('hex')}`;
const CONFIG_CRD = 'maintenanceoperatorconfigs.maintenance.nvidia.com';
const NM_CRD = 'nodemaintenances.maintenance.nvidia.com';
const POOL = 'kmaint.io/pool';
const POOLS = [{ name: 'general', nodeSelector: { matchLabels: { [POOL]: 'general' } }, maxParallelOperations: 2 }];
const REQUESTOR = 'crds.example.com';

/** What the scheduler says of the upstream operator's v0.3.0 config CRD, letter by letter. */
const REFUSAL =
  `kmaint's CRDs are not in force: CustomResourceDefinition ${CONFIG_CRD} has no kmaint.io/crd-schema annotation and its schema lacks spec.pools, ` +
  'spec.maxUnavailablePerZone, spec.zoneLabel, spec.windows, spec.gangNodeLabel, spec.gangReserveAfterSeconds, spec.gangIncompleteAdmitAfterSeconds, spec.nodeHandshake, spec.reaper, ' +
  'spec.cloudEvents, spec.slurm, spec.draResourceNames, spec.nodeConditions, spec.outOfServiceTaint, spec.maintenancePlannedLeadSeconds, spec.namedReadsFromNodes, ' +
  'spec.fullReadEverySeconds, spec.upstreamOperatorNamespace, spec.rebootBlockers, spec.reboot, spec.rebootSentinel, spec.validation, spec.releaseDelaySeconds, ' +
  "status.conditions; the API server prunes the config's fields that schema lacks, so no new maintenance is admitted until: " +
  "kubectl apply -f crds/ (after any chart that installs the upstream operator's CRDs, such as the NVIDIA network operator's maintenance-operator sub-chart, " +
  "or disable that sub-chart's CRDs), or annotate the config kmaint.io/accept-upstream-schema=true to run on the upstream schema";
/** The Warning event's message: kmaint keeps an event's message to the 1024 characters the API server accepts. */
const REFUSAL_EVENT = REFUSAL.slice(0, EVENT_MESSAGE_MAX);

const upstream = nvidiaOperatorIsBuilt();
if (!upstream) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/foreign-crds] NOT RUN: needs the upstream operator's CRDs in ~/.cache/kmaint-testbed/peers (${nvidiaGitHint()}); counted as skipped\n`);
}

function kmaint(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, ...args), { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Applies a directory of CRDs (client-side, as the README and the global setup do) and waits until both are Established. */
async function applyCrds(dir: string): Promise<string[]> {
  const r = await kubectl(['apply', '-f', dir]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect((await waitEstablished(kubectl, [`crd/${CONFIG_CRD}`, `crd/${NM_CRD}`], 30)).code).toBe(0);
  // A changed schema re-initialises the CRD's storage: until then its LISTs answer 429 "storage is (re)initializing".
  await waitFor('both kinds served again after the CRD change', async () => {
    const lists = await Promise.all(['nodemaintenances', 'maintenanceoperatorconfigs'].map((kind) => kubectl(['get', kind, '-A', '-o', 'name'])));
    return lists.every((l) => l.code === 0) ? true : undefined;
  });
  return r.stdout.trim().split('\n');
}

/** The stored config's spec as the API server serves it now (pruned under the upstream schema). */
async function configSpec(): Promise<Record<string, unknown>> {
  const r = await kubectl(['get', 'maintenanceoperatorconfig', 'default', '-n', KMAINT_NS, '-o', 'json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { spec: Record<string, unknown> }).spec;
}

const readyMessage = async (name: string): Promise<string> => (await getNM(ns, name))?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';

async function foreignCrdEvents(): Promise<Array<{ type: string; reason: string; message: string; kind: string }>> {
  const r = await kubectl(['get', 'events', '-n', KMAINT_NS, '--field-selector', 'reason=ForeignCRDs,involvedObject.name=default', '-o', 'json']);
  expect(r.code).toBe(0);
  const items = (JSON.parse(r.stdout) as { items: Array<{ type: string; reason: string; message: string; involvedObject: { kind: string } }> }).items;
  return items.map((e) => ({ type: e.type, reason: e.reason, message: e.message, kind: e.involvedObject.kind }));
}

describe.skipIf(!upstream)("foreign CRDs: the upstream operator's CRDs over kmaint's on the testbed", () => {
  let general: string[] = [];

  beforeAll(async () => {
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    const all = await nodes();
    expect(all.filter((n) => n.spec?.unschedulable === true).map((n) => n.metadata?.name)).toEqual([]);
    general = all.filter((n) => n.metadata?.labels?.[POOL] === 'general').map((n) => n.metadata?.name ?? '').sort();
    expect(general.length).toBeGreaterThanOrEqual(3);
    await setConfig({ maxParallelOperations: 3, pools: POOLS });
  });

  afterAll(async () => {
    // kmaint's CRDs back as the global setup applies them, the requests released, the config and namespace gone.
    await applyCrds('crds/');
    await removeAllNMs(ns);
    for (const n of general) await setUnschedulable(n, false);
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=true']);
  });

  it('refuses new requests with the exact message and event, lets the one in flight finish, and resumes once kmaint\'s CRDs are back on the testbed', async () => {
    const [inFlightNode = '', refusedNode = ''] = general;
    await createNM(ns, 'in-flight', { requestorID: REQUESTOR, nodeName: inFlightNode });
    await waitFor('in-flight admitted', async () => {
      await pass('scheduler');
      return phaseOf(await getNM(ns, 'in-flight')) === 'Scheduled' ? true : undefined;
    });

    // The sub-chart's CRDs over kmaint's: both replaced; the API server now serves the config without its pools.
    expect(await applyCrds(upstream?.crdDir ?? '')).toEqual([`customresourcedefinition.apiextensions.k8s.io/${CONFIG_CRD} configured`, `customresourcedefinition.apiextensions.k8s.io/${NM_CRD} configured`]);
    await waitFor('the stored config served without its pools', async () => ((await configSpec())['pools'] === undefined ? true : undefined));

    await createNM(ns, 'refused', { requestorID: REQUESTOR, nodeName: refusedNode });
    const summary = await pass('scheduler');
    expect([summary.admitted, summary.waiting, summary.configProblems]).toEqual([0, 1, [REFUSAL]]);
    expect([phaseOf(await getNM(ns, 'refused')), await readyMessage('refused')]).toEqual(['Pending', `waiting: ${REFUSAL}`]);
    expect(await foreignCrdEvents()).toEqual([{ type: 'Warning', reason: 'ForeignCRDs', message: REFUSAL_EVENT, kind: 'MaintenanceOperatorConfig' }]);
    // A second pass changes no message, so it writes no second event.
    await pass('scheduler');
    expect((await foreignCrdEvents()).length).toBe(1);

    // What an operator reads: status's first line and explain's CRDs section, as kmaint's ServiceAccount.
    // Piped, the CRD line goes to stderr (stdout starts with the table's header, as kubectl get); --watch's log keeps it first.
    const [status, log] = await Promise.all([kmaint(['status', '-o', 'text']), kmaint(['status', '--watch', '--timeout', '1ms', '-o', 'text'])]);
    expect([status.code, status.stderr, log.stdout.split('\n')[0], log.stderr]).toEqual([0, `${REFUSAL}\n`, REFUSAL, '']);
    const explain = await kmaint(['explain', `${ns}/refused`]);
    expect(explain.code).toBe(0);
    const lines = explain.stdout.trim().split('\n');
    expect(lines.slice(2, 4)).toEqual(['CRDs:', `  ${REFUSAL}`]);
    expect(lines.at(-1)).toBe("next: kmaint's CRDs applied again (kubectl apply -f crds/) or the config annotated kmaint.io/accept-upstream-schema=true");

    // In flight goes on: drained, Ready, then deleted and released (uncordoned, finalizer gone), all still refused anew.
    await driveUntil('in-flight Ready', async () => (phaseOf(await getNM(ns, 'in-flight')) === 'Ready' ? true : undefined));
    await deleteNM(ns, 'in-flight');
    await driveUntil('in-flight released', async () => ((await getNM(ns, 'in-flight')) === undefined ? true : undefined));
    expect((await admin().core.readNode({ name: inFlightNode })).spec?.unschedulable ?? false).toBe(false);
    expect([phaseOf(await getNM(ns, 'refused')), await readyMessage('refused')]).toEqual(['Pending', `waiting: ${REFUSAL}`]);

    // kmaint's CRDs re-applied: the pools were never written away, and the scheduler admits.
    expect(await applyCrds('crds/')).toEqual([`customresourcedefinition.apiextensions.k8s.io/${CONFIG_CRD} configured`, `customresourcedefinition.apiextensions.k8s.io/${NM_CRD} configured`]);
    await waitFor('the stored config served with its pools again', async () => {
      const spec = await configSpec();
      return spec['pools'] !== undefined ? spec : undefined;
    });
    // As set (plus the CRD's defaults): no pass wrote the config while the upstream schema was in force.
    expect(await configSpec()).toEqual({ logLevel: 'info', maxNodeMaintenanceTimeSeconds: 3600, maxParallelOperations: 3, pools: POOLS });
    await waitFor('refused admitted', async () => {
      await pass('scheduler');
      return phaseOf(await getNM(ns, 'refused')) === 'Scheduled' ? true : undefined;
    });
    const after = await kmaint(['status', '--watch', '--timeout', '1ms', '-o', 'text']);
    expect(after.stdout.split('\n')[0]).toBe(`MaintenanceOperatorConfig ${KMAINT_NS}/default: maxParallelOperations 3, maxUnavailable unlimited, pools general`);
  });

  it('admits on the upstream schema once the config carries kmaint.io/accept-upstream-schema=true on the testbed', async () => {
    const node = general[2] ?? '';
    await applyCrds(upstream?.crdDir ?? '');
    await waitFor('the stored config served without its pools', async () => ((await configSpec())['pools'] === undefined ? true : undefined));
    await createNM(ns, 'acked', { requestorID: REQUESTOR, nodeName: node });
    await pass('scheduler');
    expect(await readyMessage('acked')).toBe(`waiting: ${REFUSAL}`);

    // The acknowledgement is metadata, which no schema prunes (writing it does store the config as the upstream schema serves it).
    const annotated = await kubectl(['annotate', 'maintenanceoperatorconfig', 'default', '-n', KMAINT_NS, 'kmaint.io/accept-upstream-schema=true']);
    expect([annotated.code, annotated.stdout.trim()]).toEqual([0, 'maintenanceoperatorconfig.maintenance.nvidia.com/default annotated']);
    const summary = await pass('scheduler');
    expect([summary.admitted, summary.configProblems]).toEqual([1, []]);
    expect(phaseOf(await getNM(ns, 'acked'))).toBe('Scheduled');
    const status = await kmaint(['status', '--watch', '--timeout', '1ms', '-o', 'text']);
    expect(status.stdout.split('\n')[0]).toBe(`admitting on the upstream schema (kmaint.io/accept-upstream-schema=true on the config): ${REFUSAL}`);
  });
});
