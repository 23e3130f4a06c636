// Issue 21 points 2 and 4 (the scheduler's part) on the testbed: kmaint.io/deadline ranks nearest first, a request not
// Ready by it gets one DeadlineMissed Warning and counts in the past-deadline metric; kmaint.io/not-before holds a
// request until that time with a wait reason saying until when, its node showing MaintenancePlanned from
// maintenancePlannedLeadSeconds before; `kmaint explain` and `kmaint status` show both. The
// passes get their clock injected: times are set relative to the test's start, never the time of day.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_DEADLINE_REPORTED, ANNOTATION_NOT_BEFORE, rfc3339Seconds } from '../shared/api/index.ts';
import { kubectl, testbed } from './support/cluster.ts';
import { admin, generalNodes, getNM, installCrds, nodes, pass, phaseOf, removeAllNMs, setConfig } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';
import { GROUP, NODE_MAINTENANCE_PLURAL, VERSION, type NodeMaintenance } from '../shared/api/index.ts';
import { statusRow } from '../cli/status.ts';

const ns = `rt-${randomBytes(3).toString('hex')}`;
const REQUESTOR = 'times.example.com';
const HOUR = 3_600_000;

function kmaint(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs('--kubeconfig', testbed().kmaintKubeconfigPath, ...args), { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function createTimed(name: string, nodeName: string, annotations: Record<string, string>): Promise<void> {
  await admin().custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: NODE_MAINTENANCE_PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodeMaintenance', metadata: { name, namespace: ns, annotations }, spec: { requestorID: REQUESTOR, nodeName } },
  });
}

const readyMessage = async (name: string): Promise<string> => (await getNM(ns, name))?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';

async function warnings(name: string): Promise<Array<[string, string]>> {
  const events = await admin().core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.kind=NodeMaintenance,involvedObject.name=${name},type=Warning` });
  return events.items.map((e) => [e.reason ?? '', e.message ?? '']);
}

/** The node's KEP-5683 conditions as [type, status, reason, message], in the order the node lists them. */
async function maintenanceConditions(node: string): Promise<string[][]> {
  const conditions = (await admin().core.readNode({ name: node })).status?.conditions ?? [];
  const types = ['MaintenancePlanned', 'MaintenanceInProgress', 'DrainInProgress', 'Drained'];
  return conditions.filter((c) => types.includes(c.type)).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']);
}

let general: string[] = [];

describe('kmaint.io/deadline and kmaint.io/not-before on the testbed', () => {
  beforeAll(async () => {
    await installCrds();
    await setConfig(undefined);
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    expect((await nodes()).filter((n) => n.spec?.unschedulable === true).map((n) => n.metadata?.name)).toEqual([]);
    general = await generalNodes();
    expect(general.length).toBeGreaterThanOrEqual(3);
  });
  afterEach(async () => {
    await removeAllNMs(ns);
    await setConfig(undefined);
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('the nearest deadline takes the one slot; not Ready by it: one DeadlineMissed Warning, counted as past deadline; status and explain show it', async () => {
    const [a, b, c] = general as [string, string, string];
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000);
    const near = new Date(t0.getTime() + 24 * HOUR);
    await setConfig({ maxParallelOperations: 1 });
    await createTimed('plain', a, {});
    await createTimed('far', b, { [ANNOTATION_DEADLINE]: rfc3339Seconds(new Date(t0.getTime() + 48 * HOUR)) });
    await createTimed('near', c, { [ANNOTATION_DEADLINE]: rfc3339Seconds(near) });

    const first = await pass('scheduler', { now: t0 });
    expect([first.admitted, first.metrics?.pastDeadline]).toEqual([1, 0]);
    expect([phaseOf(await getNM(ns, 'near')), phaseOf(await getNM(ns, 'far')), phaseOf(await getNM(ns, 'plain'))]).toEqual(['Scheduled', 'Pending', 'Pending']);
    expect(await warnings('near')).toEqual([]);

    const status = await kmaint(['status', '-o', 'json']);
    expect([status.code, status.stderr]).toEqual([0, '']);
    // A List of the requests (as kubectl get -o json), each read as status's row (cli/status.ts).
    const rows = (JSON.parse(status.stdout) as { items: NodeMaintenance[] }).items.map((nm) => statusRow(nm, new Date()) as unknown as Record<string, unknown>);
    expect(rows.map((r) => [r['name'], r['deadline'], r['deadlineState']])).toEqual([
      ['far', rfc3339Seconds(new Date(t0.getTime() + 48 * HOUR)), 'open'],
      ['near', rfc3339Seconds(near), 'open'],
      ['plain', undefined, undefined],
    ]);

    // A second past the deadline, still Scheduled: one Warning, recorded on the request, never repeated.
    const late = new Date(near.getTime() + 1000);
    const missed = await pass('scheduler', { now: late });
    expect(missed.metrics?.pastDeadline).toBe(1);
    const message = `not Ready by its deadline ${rfc3339Seconds(near)} (kmaint.io/deadline); phase Scheduled`;
    expect(await warnings('near')).toEqual([['DeadlineMissed', message]]);
    expect((await getNM(ns, 'near'))?.metadata.annotations?.[ANNOTATION_DEADLINE_REPORTED]).toBe(`missed ${rfc3339Seconds(near)}`);
    const again = await pass('scheduler', { now: new Date(late.getTime() + 60_000) });
    expect([again.metrics?.pastDeadline, await warnings('near')]).toEqual([1, [['DeadlineMissed', message]]]);

    // explain runs on the real clock, a day before the deadline: it shows the deadline and that it is still open.
    const explained = await kmaint(['explain', `${ns}/far`]);
    expect([explained.code, explained.stderr]).toEqual([0, '']);
    expect(explained.stdout.split('\n')[2]).toMatch(new RegExp(`^  deadline ${rfc3339Seconds(new Date(t0.getTime() + 48 * HOUR))} \\(open, in \\d+h\\)$`));
  });

  it('not-before holds a request until that time with the reason saying until when; an unreadable one is reported, never guessed', async () => {
    const [a, b] = general as [string, string];
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000);
    const at = new Date(t0.getTime() + 2 * HOUR);
    await setConfig({ maxParallelOperations: 5, maintenancePlannedLeadSeconds: 3 * 3600 });
    await createTimed('later', a, { [ANNOTATION_NOT_BEFORE]: rfc3339Seconds(at) });
    await createTimed('garbled', b, { [ANNOTATION_NOT_BEFORE]: 'after lunch' });

    const before = await pass('scheduler', { now: t0 });
    expect([before.admitted, before.waiting]).toEqual([0, 2]);
    expect(await readyMessage('later')).toBe(`waiting: not before ${rfc3339Seconds(at)} (kmaint.io/not-before)`);
    const garbled = 'kmaint.io/not-before "after lunch" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)';
    expect(await readyMessage('garbled')).toBe(`waiting: request admits nothing: ${garbled}`);
    expect(await warnings('garbled')).toEqual([['InvalidRequestTime', `${garbled}; the value is not used`]]);
    expect(before.metrics?.waiting['not-before']).toBe(2);
    // Advance notice: within the 3 h lead time, the waiting request's node already shows MaintenancePlanned; the garbled one's does not.
    const planned = `kmaint: NodeMaintenance ${ns}/later (requestor ${REQUESTOR}, not before ${rfc3339Seconds(at)})`;
    expect(await maintenanceConditions(a)).toEqual([
      ['MaintenancePlanned', 'True', 'MaintenanceScheduled', planned],
      ['MaintenanceInProgress', 'False', 'MaintenanceScheduled', planned],
      ['DrainInProgress', 'False', 'DrainNotStarted', planned],
      ['Drained', 'False', 'DrainNotStarted', planned],
    ]);
    expect(await maintenanceConditions(b)).toEqual([]);

    const explained = await kmaint(['explain', `${ns}/later`]);
    expect([explained.code, explained.stderr]).toEqual([0, '']);
    const lines = explained.stdout.split('\n');
    expect(lines[2]).toMatch(new RegExp(`^  not before ${rfc3339Seconds(at)} \\(in \\d+m\\)$`));
    expect(lines).toContain(`  WAIT  not before ${rfc3339Seconds(at)} (kmaint.io/not-before)`);
    expect(lines.at(-2)).toBe(`next: not before ${rfc3339Seconds(at)} (kmaint.io/not-before); it is not admitted before then`);

    // A second early still waits; at the time itself it is admitted. The garbled one waits on, reported once.
    expect((await pass('scheduler', { now: new Date(at.getTime() - 1000) })).admitted).toBe(0);
    expect((await pass('scheduler', { now: at })).admitted).toBe(1);
    expect([phaseOf(await getNM(ns, 'later')), phaseOf(await getNM(ns, 'garbled'))]).toEqual(['Scheduled', 'Pending']);
    expect(await warnings('garbled')).toHaveLength(1);
  });
});
