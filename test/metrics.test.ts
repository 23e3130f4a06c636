// Issue 12 point 1 on the testbed: a scripted full lifecycle — three requests under maxParallelOperations 2, one
// held by a PodDisruptionBudget until the budget goes — run by kmaint's real passes through the Lambda adapter on a
// scripted clock. Every invocation's EMF lines are checked value by value (API requests against the apiserver's
// audit log), and the same run pushed to a real Pushgateway is read back family by family. `kmaint run` with
// KMAINT_PUSHGATEWAY_URL pushes on its own.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CoordinationV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { createPassHandler } from '../functions/adapter/pass-handler.ts';
import { aLambdaContext, captureLines, realBudget } from '../functions/adapter/test-context.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { PHASES, WAIT_GATES, pushRunMetrics } from '../shared/metrics/index.ts';
import { runPass, type PassFunction } from '../shared/pass/index.ts';
import type { BudgetRunSummary } from '../shared/runtime/index.ts';
import { startPushgateway, type RunningPushgateway } from '../testbed/pushgateway/pushgateway.ts';
import { adminKubeConfig, auditLog, holdKubeletStatusPosts, kmaintKubeConfig, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, admin, bindPod, createNM, deleteNM, generalNodes, getNM, installCrds, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const ns = `metrics-${randomBytes(3).toString('hex')}`;
/** The handler's clock: EMF timestamps and run durations (0: the clock does not move). */
const CLOCK_MS = 1767225600000;
const logs = captureLines();

/** What one invocation's EMF lines say, by document. Phases and gates as [count, seconds]; API as [requests, errors]. */
interface Figures {
  run: Record<string, unknown>;
  phases: Record<string, [number, number]>;
  gates: Record<string, [number, number]>;
  api: Record<string, [number, number]>;
}

function figuresOf(lines: readonly string[]): Figures {
  const docs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const { _aws, Function: _fn, requestId: _id, ...run } = docs[0] ?? {};
  const pick = (dim: string, a: string, b: string): Record<string, [number, number]> =>
    Object.fromEntries(docs.filter((d) => dim in d).map((d): [string, [number, number]] => [String(d[dim]), [d[a] as number, d[b] as number]]));
  const api = Object.fromEntries(docs.filter((d) => 'Verb' in d).map((d): [string, [number, number]] => [`${String(d['Verb'])} ${String(d['Resource'])}`, [d['ApiRequests'] as number, d['ApiErrors'] as number]]));
  return { run, phases: pick('Phase', 'Requests', 'OldestRequestAge'), gates: pick('Gate', 'Waiting', 'OldestWait'), api };
}

/** Every phase and gate, zeros for those not given. */
const allPhases = (given: Record<string, [number, number]>): Record<string, [number, number]> => Object.fromEntries(PHASES.map((p) => [p, given[p] ?? [0, 0]]));
const allGates = (given: Record<string, [number, number]>): Record<string, [number, number]> => Object.fromEntries(WAIT_GATES.map((g) => [g, given[g] ?? [0, 0]]));

interface Invocation {
  run: BudgetRunSummary;
  figures: Figures;
  /** kmaint's requests in the audit log during the invocation, by "verb resource": [requests, answered >= 400]. */
  audited: Record<string, [number, number]>;
  auditedErrors: number;
}

let pushgateway: RunningPushgateway;

/** One Lambda invocation of `fn` running exactly one pass, at `now`; its run pushed to the Pushgateway too. */
async function invoke(fn: PassFunction, now: Date): Promise<Invocation> {
  const lines: string[] = [];
  const tb = testbed();
  const handler = createPassHandler(fn, {
    env: { KMAINT_KUBECONFIG: tb.kmaintKubeconfigPath, KMAINT_NAMESPACE: KMAINT_NS, KMAINT_CHAIN: 'off', AWS_REGION: 'eu-west-1' },
    logDestination: logs.destination,
    writeMetrics: (l) => lines.push(l),
    clock: () => CLOCK_MS,
    sleep: () => Promise.resolve(),
    runPass: (f, o) => runPass(f, { client: new KubeClient(kmaintKubeConfig()), namespace: KMAINT_NS, now: () => now, logger: o.logger, dryRun: o.dryRun }),
  });
  const audit = auditLog();
  await audit.sync();
  const since = audit.mark();
  const run = (await handler({ maxPasses: 1 }, aLambdaContext({ remainingMs: realBudget(60_000), requestId: `req-${fn}` }))) as BudgetRunSummary;
  await audit.sync();
  const audited: Record<string, [number, number]> = {};
  let auditedErrors = 0;
  for (const e of audit.entries({ since, user: tb.kmaintUser })) {
    const key = `${e.verb} ${e.resource}`;
    // A 404 that answers "absent" (a GET of an object that may not be there, a resource.k8s.io version not served) is
    // not an API error (issue 42: the medik8s-leases namespace on a cluster without medik8s).
    const failed = e.code >= 400 && !(e.code === 404 && (e.verb === 'get' || e.resource === 'resourceclaims'));
    const [n, errs] = audited[key] ?? [0, 0];
    audited[key] = [n + 1, errs + (failed ? 1 : 0)];
    if (failed) auditedErrors += 1;
  }
  await pushRunMetrics(run.passes, { url: pushgateway.url, durationMs: run.durationMs, endedAt: CLOCK_MS });
  return { run, figures: figuresOf(lines), audited, auditedErrors };
}

/** The run document's values (without the metric declarations) for one pass. */
function runDoc(fn: PassFunction, v: { stopped: string; admitted?: number; becameReady?: number; released?: number; waiting?: number; workRemains: boolean; evictions?: number; drains?: number[]; apiErrors: number }): Record<string, unknown> {
  return {
    Passes: 1,
    Admitted: v.admitted ?? 0,
    BecameReady: v.becameReady ?? 0,
    Released: v.released ?? 0,
    Collected: 0,
    Conflicts: 0,
    ApiErrors: v.apiErrors,
    PassErrors: 0,
    FailedPasses: 0,
    Waiting: v.waiting ?? 0,
    WorkRemains: v.workRemains ? 1 : 0,
    Chained: 0,
    Evictions: v.evictions ?? 0,
    EvictionsRefused: 0,
    PastDeadline: 0,
    ...(v.drains ? { DrainDuration: v.drains } : {}),
    RunDuration: 0,
    stopped: v.stopped,
  };
}

/** The group `kmaint-<fn>` as the Pushgateway serves it on /metrics: kmaint_* series by name{labels} (job and instance left out). */
async function pushedSeries(fn: PassFunction): Promise<Record<string, number>> {
  const text = await (await fetch(`${pushgateway.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('kmaint_') || !line.includes(`job="kmaint-${fn}"`)) continue;
    const m = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!m) throw new Error(`unexpected series line: ${line}`);
    const labels = (m[2] ?? '').split(',').filter((l) => !l.startsWith('instance=') && !l.startsWith('job='));
    out[`${m[1]}${labels.length > 0 ? `{${labels.join(',')}}` : ''}`] = Number(m[3]);
  }
  return out;
}

/** What the group must hold after an invocation, from the same figures the EMF lines were checked against. */
function expectedSeries(inv: Invocation, success: boolean): Record<string, number> {
  const f = inv.figures;
  const r = f.run as Record<string, number | number[]>;
  const drains = (r['DrainDuration'] as number[] | undefined) ?? [];
  const out: Record<string, number> = {};
  for (const [p, [n, s]] of Object.entries(f.phases)) {
    out[`kmaint_requests{phase="${p}"}`] = n;
    out[`kmaint_oldest_request_age_seconds{phase="${p}"}`] = s;
  }
  for (const [g, [n, s]] of Object.entries(f.gates)) {
    out[`kmaint_waiting_requests{gate="${g}"}`] = n;
    out[`kmaint_waiting_oldest_seconds{gate="${g}"}`] = s;
  }
  Object.assign(out, {
    kmaint_requests_past_deadline: r['PastDeadline'],
    kmaint_last_run_passes: r['Passes'],
    kmaint_last_run_failed_passes: r['FailedPasses'],
    kmaint_last_run_write_errors: r['PassErrors'],
    kmaint_last_run_conflicts: r['Conflicts'],
    kmaint_last_run_admitted: r['Admitted'],
    kmaint_last_run_became_ready: r['BecameReady'],
    kmaint_last_run_evictions: r['Evictions'],
    kmaint_last_run_evictions_refused: r['EvictionsRefused'],
    kmaint_last_run_drain_duration_seconds_sum: drains.reduce((a, b) => a + b, 0),
    kmaint_last_run_drain_duration_seconds_count: drains.length,
    kmaint_last_run_duration_seconds: 0,
    kmaint_last_run_timestamp_seconds: (inv.run.passes[0]?.metrics?.at ?? 0) / 1000,
  });
  for (const [key, [n, errs]] of Object.entries(f.api)) {
    const [verb, resource] = key.split(' ');
    out[`kmaint_last_run_api_requests{resource="${resource}",verb="${verb}"}`] = n;
    out[`kmaint_last_run_api_errors{resource="${resource}",verb="${verb}"}`] = errs;
  }
  if (success) out['kmaint_last_success_timestamp_seconds'] = (inv.run.passes[0]?.metrics?.at ?? 0) / 1000;
  return out;
}

/** The EMF figures and the pushed group of one invocation, against what the scenario says at that step. */
async function expectInvocation(fn: PassFunction, inv: Invocation, want: { run: Record<string, unknown>; phases: Record<string, [number, number]>; gates: Record<string, [number, number]> }): Promise<void> {
  expect(inv.figures).toEqual({ run: want.run, phases: allPhases(want.phases), gates: allGates(want.gates), api: inv.audited });
  expect(inv.figures.run['ApiErrors']).toBe(inv.auditedErrors);
  expect(await pushedSeries(fn)).toEqual(expectedSeries(inv, true));
}

function kmaintCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs(...args), { timeout: 120_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('metrics of a full lifecycle on the testbed: EMF lines and a real Pushgateway', () => {
  let n1 = '';
  let n2 = '';
  let n3 = '';
  /** Creation of each request, ms; ages are counted from these. */
  const created: Record<string, number> = {};
  let c0 = 0;
  /** The scripted clock: `s` seconds after the last request was created. */
  const at = (s: number): Date => new Date(c0 + s * 1000);
  /** Whole seconds request `r` is old at `s`. */
  const age = (r: string, s: number): number => (at(s).getTime() - (created[r] ?? 0)) / 1000;
  const policy = (): PolicyV1Api => adminKubeConfig().makeApiClient(PolicyV1Api);
  const podGone = (name: string): Promise<boolean> =>
    waitFor(`pod ${ns}/${name} gone`, async () => ((await admin().core.listNamespacedPod({ namespace: ns, fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined));

  beforeAll(async () => {
    pushgateway = await startPushgateway({ dir: testbed().dir });
    await installCrds();
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    [n1 = '', n2 = '', n3 = ''] = await generalNodes();
    expect([n1, n2, n3].every((n) => n !== '')).toBe(true);
    // The simulated kubelet posts each Node's status every minute (a real one every five); a post between a pass's read
    // and its condition write would answer that write 409 and make the pass's figures unscripted. Held for the file.
    for (const n of [n1, n2, n3]) await holdKubeletStatusPosts(n, true);
    // Every request in the cluster is counted: the scenario's must be the only ones.
    expect((await kubectl(['get', 'nodemaintenances', '-A', '--no-headers'])).stdout.trim()).toBe('');
    await setConfig({ maxParallelOperations: 2 });
    // Fresh pass leases, so every first pass of a function creates its lease the same way.
    const coordination = adminKubeConfig().makeApiClient(CoordinationV1Api);
    for (const fn of ['scheduler', 'drainer', 'cleanup']) await coordination.deleteNamespacedLease({ namespace: KMAINT_NS, name: `kmaint-${fn}` }).catch(() => undefined);
    // One pod to drain per node; the one on n1 is under a budget that allows no disruption.
    const drain = { 'kmaint-metrics': 'drain' };
    await bindPod(ns, 'held', n1, { labels: { ...drain, app: 'held' } });
    await bindPod(ns, 'free-b', n2, { labels: drain });
    await bindPod(ns, 'free-c', n3, { labels: drain });
    await policy().createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'held' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'held' } } } } });
    await waitFor('budget held at 1 healthy of 1, allowing 0', async () => {
      const s = (await policy().readNamespacedPodDisruptionBudget({ namespace: ns, name: 'held' })).status;
      return s?.currentHealthy === 1 && s.expectedPods === 1 && s.disruptionsAllowed === 0 ? true : undefined;
    });
    const drainSpec = { force: true, podSelector: 'kmaint-metrics=drain', deleteEmptyDir: true, timeoutSeconds: 0 };
    for (const [name, node] of [['a', n1], ['b', n2], ['c', n3]] as const) {
      // No cordon: the simulated kubelet's node status posts race a cordon's resourceVersion precondition now and then,
      // and the 409 (correctly decided again next pass) would make that pass's figures unscripted.
      const nm = await createNM(ns, name, { requestorID: 'metrics.example.com', nodeName: node, cordon: false, drainSpec });
      created[name] = Date.parse(nm.metadata.creationTimestamp ?? '');
    }
    c0 = Math.max(...Object.values(created));
  }, 120_000);

  afterAll(async () => {
    await removeAllNMs(ns);
    for (const n of [n1, n2, n3]) if (n) await setUnschedulable(n, false);
    for (const n of [n1, n2, n3]) if (n) await holdKubeletStatusPosts(n, false);
    await setConfig(undefined);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
    await pushgateway.stop();
  });

  it('scheduler: two admitted under maxParallelOperations 2, the third waits on the parallel gate', async () => {
    const inv = await invoke('scheduler', at(60));
    expect([phaseOf(await getNM(ns, 'a')), phaseOf(await getNM(ns, 'b')), phaseOf(await getNM(ns, 'c'))]).toEqual(['Scheduled', 'Scheduled', 'Pending']);
    // The first pass of the scheduler: its lease did not exist (one 404, the answer "absent", not an API error since
    // issue 42), was created, and given back.
    expect(inv.audited).toEqual({
      'get leases': [1, 0],
      'create leases': [1, 0],
      'update leases': [1, 0],
      'list nodes': [1, 0],
      'list nodemaintenances': [1, 0],
      'get maintenanceoperatorconfigs': [1, 0],
      // The check that kmaint's CRDs are in force: once per run (README "Alongside the NVIDIA network operator's chart").
      'get customresourcedefinitions': [1, 0],
      // kmaint's record of each admission on its Node (kmaint.io/admitted, issue 40), before its status.
      'patch nodes': [2, 0],
      'patch nodemaintenances/status': [3, 0],
      'create events': [5, 0],
      // The two admitted requests' nodes get MaintenancePlanned (KEP-5683 node conditions, issue 20).
      'patch nodes/status': [2, 0],
    });
    await expectInvocation('scheduler', inv, {
      run: runDoc('scheduler', { stopped: 'max-passes', admitted: 2, waiting: 1, workRemains: true, apiErrors: 0 }),
      phases: { Scheduled: [2, age('a', 60)], Pending: [1, age('c', 60)] },
      gates: { parallel: [1, age('c', 60)] },
    });
  });

  it('drainer: both admitted drain; n2 loses its pod, n1 is held by the budget', async () => {
    const inv = await invoke('drainer', at(120));
    await expectInvocation('drainer', inv, {
      run: runDoc('drainer', { stopped: 'max-passes', workRemains: true, evictions: 1, apiErrors: inv.auditedErrors }),
      phases: { Pending: [1, age('c', 120)], Draining: [2, age('a', 120)] },
      gates: { parallel: [1, age('c', 120)], budget: [1, 0] },
    });
  });

  it('drainer: b reaches Ready after a 30 s drain; the budget has held a for 30 s', async () => {
    await podGone('free-b');
    const inv = await invoke('drainer', at(150));
    expect(phaseOf(await getNM(ns, 'b'))).toBe('Ready');
    await expectInvocation('drainer', inv, {
      run: runDoc('drainer', { stopped: 'max-passes', becameReady: 1, workRemains: true, drains: [30], apiErrors: inv.auditedErrors }),
      phases: { Pending: [1, age('c', 150)], Draining: [1, age('a', 150)], Ready: [1, age('b', 150)] },
      gates: { parallel: [1, age('c', 150)], budget: [1, 30] },
    });
  });

  it('cleanup: the finished request b is released', async () => {
    await deleteNM(ns, 'b');
    const inv = await invoke('cleanup', at(180));
    expect(await getNM(ns, 'b')).toBeUndefined();
    await expectInvocation('cleanup', inv, {
      run: runDoc('cleanup', { stopped: 'max-passes', released: 1, workRemains: true, apiErrors: inv.auditedErrors }),
      phases: { Pending: [1, age('c', 180)], Draining: [1, age('a', 180)] },
      gates: { parallel: [1, age('c', 180)], budget: [1, 60] },
    });
  });

  it('scheduler: the freed slot admits c', async () => {
    const inv = await invoke('scheduler', at(200));
    await expectInvocation('scheduler', inv, {
      run: runDoc('scheduler', { stopped: 'max-passes', admitted: 1, workRemains: true, apiErrors: inv.auditedErrors }),
      phases: { Scheduled: [1, age('c', 200)], Draining: [1, age('a', 200)] },
      gates: { budget: [1, 80] },
    });
  });

  it('drainer: c drains while the budget still holds a', async () => {
    const inv = await invoke('drainer', at(240));
    await expectInvocation('drainer', inv, {
      run: runDoc('drainer', { stopped: 'max-passes', workRemains: true, evictions: 1, apiErrors: inv.auditedErrors }),
      phases: { Draining: [2, age('a', 240)] },
      gates: { budget: [1, 120] },
    });
  });

  it('drainer: with the budget gone a is evicted; c reaches Ready after 60 s', async () => {
    await podGone('free-c');
    await policy().deleteNamespacedPodDisruptionBudget({ namespace: ns, name: 'held' });
    const inv = await invoke('drainer', at(300));
    await expectInvocation('drainer', inv, {
      run: runDoc('drainer', { stopped: 'max-passes', becameReady: 1, workRemains: true, evictions: 1, drains: [60], apiErrors: inv.auditedErrors }),
      phases: { Draining: [1, age('a', 300)], Ready: [1, age('c', 300)] },
      gates: {},
    });
  });

  it('drainer: a reaches Ready after 210 s of draining', async () => {
    await podGone('held');
    const inv = await invoke('drainer', at(330));
    // A pass that wrote something asks for another (it may have unblocked more): max-passes, not idle.
    await expectInvocation('drainer', inv, {
      run: runDoc('drainer', { stopped: 'max-passes', becameReady: 1, workRemains: true, drains: [210], apiErrors: inv.auditedErrors }),
      phases: { Ready: [2, age('a', 330)] },
      gates: {},
    });
  });

  it('cleanup: both deleted requests are released and no request is left', async () => {
    await deleteNM(ns, 'a');
    await deleteNM(ns, 'c');
    const inv = await invoke('cleanup', at(400));
    await expectInvocation('cleanup', inv, {
      run: runDoc('cleanup', { stopped: 'max-passes', released: 2, workRemains: true, apiErrors: inv.auditedErrors }),
      phases: {},
      gates: {},
    });
    const groups = ((await (await fetch(`${pushgateway.url}/api/v1/metrics`)).json()) as { data: Array<{ labels: Record<string, string>; last_push_successful: boolean }> }).data;
    expect(groups.map((g) => [g.labels['job'], g.last_push_successful]).sort()).toEqual([
      ['kmaint-cleanup', true],
      ['kmaint-drainer', true],
      ['kmaint-scheduler', true],
    ]);
  });

  it('infra/alerts/pushgateway is infra/base with KMAINT_PUSHGATEWAY_URL on every CronJob, and applies', async () => {
    const built = await kubectl(['kustomize', 'infra/alerts/pushgateway']);
    expect(built.code).toBe(0);
    const docs = parseAllDocuments(built.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec?: { jobTemplate?: { spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } } } } });
    const cronJobs = docs.filter((d) => d.kind === 'CronJob');
    expect(cronJobs.map((c) => [c.metadata.name, c.spec?.jobTemplate?.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'KMAINT_PUSHGATEWAY_URL')?.value]).sort()).toEqual(
      ['kmaint-cleanup', 'kmaint-drainer', 'kmaint-reaper', 'kmaint-scheduler'].map((n) => [n, 'http://pushgateway.monitoring.svc:9091']),
    );
    const dry = await kubectl(['apply', '--dry-run=server', '-k', 'infra/alerts/pushgateway']);
    // Against the installed infra/base only the CronJobs change (a warning about the config this file created is not ours).
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n').filter((l) => l.startsWith('cronjob.batch/'))).toEqual(['cleanup', 'drainer', 'reaper', 'scheduler'].map((fn) => `cronjob.batch/kmaint-${fn} configured (server dry run)`));
  });

  it('kmaint run with KMAINT_PUSHGATEWAY_URL pushes its own group after the run', async () => {
    const r = await kmaintCli(['--kubeconfig', testbed().kmaintKubeconfigPath, '-o', 'json', 'run', 'scheduler', '--timeout', '30s'], { KMAINT_PUSHGATEWAY_URL: pushgateway.url, KMAINT_NAMESPACE: KMAINT_NS });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const series = await pushedSeries('scheduler');
    const state = Object.fromEntries(Object.entries(series).filter(([k]) => k.startsWith('kmaint_requests') || k.startsWith('kmaint_waiting_requests') || k === 'kmaint_last_run_failed_passes'));
    expect(state).toEqual({
      ...Object.fromEntries(PHASES.map((p) => [`kmaint_requests{phase="${p}"}`, 0])),
      ...Object.fromEntries(WAIT_GATES.map((g) => [`kmaint_waiting_requests{gate="${g}"}`, 0])),
      kmaint_requests_past_deadline: 0,
      kmaint_last_run_failed_passes: 0,
    });
    // A real clock this time: the run's success stamp is now, not the scripted one.
    expect(Math.abs((series['kmaint_last_success_timestamp_seconds'] ?? 0) - Date.now() / 1000)).toBeLessThan(60);
  });
});
