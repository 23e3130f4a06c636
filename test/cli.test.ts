// The kmaint command as a user runs it (in a child process, stdout not a TTY; bundled as the container image runs it,
// test/support/kmaint-cli.ts) against the testbed: one pass, run-until-idle, plan and status showing why a request
// waits, invoke against a loopback Lambda API that runs the real handler, --help for every command, the global flags,
// and each error exit with its one-line reason.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPassHandler } from '../functions/adapter/pass-handler.ts';
import { aLambdaContext, captureLines } from '../functions/adapter/test-context.ts';
import { PASS_FUNCTIONS } from '../shared/pass/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import { statusRow } from '../cli/status.ts';
import { kubectl, testbed } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, generalNodes, getNM, installCrds, phaseOf, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';
import { kmaintArgs } from './support/kmaint-cli.ts';

const ns = `cli-${randomBytes(3).toString('hex')}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kmaint(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, kmaintArgs(...args), { timeout: 120_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** As kmaint, with the ServiceAccount's kubeconfig. */
const asKmaint = (args: string[], env?: Record<string, string>): Promise<Run> => kmaint(['--kubeconfig', testbed().kmaintKubeconfigPath, ...args], env);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const jsonLines = (stdout: string): Array<Record<string, unknown>> => stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** Directories of tmpFile, removed when the file's tests are done. */
const tmpDirs: string[] = [];
afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

function tmpFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-cli-'));
  tmpDirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const UNREACHABLE = 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:3"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n';

/**
 * Enough of the Lambda Invoke API (REST-JSON, POST /2015-03-31/functions/NAME/invocations) for `kmaint invoke`:
 * `kmaint-clitest-<fn>` runs the real handler against the testbed, `kmaint-clitest-broken` is a function whose
 * environment names no cluster, any other name is ResourceNotFoundException, as AWS answers.
 */
async function fakeLambdaApi(): Promise<{ url: string; close: () => Promise<void>; logs: ReturnType<typeof captureLines> }> {
  const logs = captureLines();
  const env = { KMAINT_KUBECONFIG: testbed().kmaintKubeconfigPath, KMAINT_NAMESPACE: KMAINT_NS, KMAINT_CHAIN: 'off' };
  const handlers = new Map<string, (event: unknown, requestId: string) => Promise<unknown>>();
  for (const fn of PASS_FUNCTIONS) {
    const h = createPassHandler(fn, { env, logDestination: logs.destination, writeMetrics: () => undefined });
    handlers.set(`kmaint-clitest-${fn}`, (event, requestId) => h(event, aLambdaContext({ remainingMs: () => 60_000, requestId, functionName: `kmaint-clitest-${fn}` })));
  }
  const broken = createPassHandler('scheduler', { env: { KMAINT_CHAIN: 'off' }, logDestination: logs.destination, writeMetrics: () => undefined });
  handlers.set('kmaint-clitest-broken', (event, requestId) => broken(event, aLambdaContext({ remainingMs: () => 60_000, requestId })));
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = decodeURIComponent(/^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
      const handler = handlers.get(name);
      if (req.method !== 'POST' || !handler) {
        res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
        res.end(JSON.stringify({ Type: 'User', message: `Function not found: arn:aws:lambda:eu-west-1:123456789012:function:${name}` }));
        return;
      }
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
      handler(event, `req-cli-${++n}`).then(
        (answer) => {
          res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
          res.end(JSON.stringify(answer));
        },
        (err: unknown) => {
          const e = err instanceof Error ? err : new Error(String(err));
          res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST', 'x-amz-function-error': 'Unhandled' });
          res.end(JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: [] }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logs,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('kmaint CLI against the testbed', () => {
  let node = '';
  let lambdaApi: Awaited<ReturnType<typeof fakeLambdaApi>>;
  /** The message the scheduler gives `second`, which asks for the node `by-cli` holds. */
  let waitMessage = '';
  const awsEnv = (): Record<string, string> => ({ AWS_ENDPOINT_URL_LAMBDA: lambdaApi.url, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDCLITEST', AWS_SECRET_ACCESS_KEY: 'cli-test-secret', KMAINT_STAGE: 'clitest' });

  beforeAll(async () => {
    await installCrds();
    await setConfig(undefined);
    await admin().core.createNamespace({ body: { metadata: { name: ns } } });
    node = (await generalNodes())[0] as string;
    waitMessage = `waiting: another request for node ${node} is in progress (${ns}/by-cli)`;
    lambdaApi = await fakeLambdaApi();
  });
  afterAll(async () => {
    await lambdaApi.close();
    await setConfig(undefined);
    await removeAllNMs(ns);
    await setUnschedulable(node, false);
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  it('kmaint pass scheduler prints one JSON summary line and admits the request', async () => {
    await createNM(ns, 'by-cli', { requestorID: 'cli.example.com', nodeName: node });
    const r = await asKmaint(['pass', 'scheduler', '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(1);
    const summary = lines[0] as { fn: string; outcome: string; admitted: number; actions: Record<string, number> };
    expect([summary.fn, summary.outcome, summary.admitted, summary.actions['writeStatus']]).toEqual(['scheduler', 'applied', 1, 1]);
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Scheduled');
  });

  it('kmaint pass drainer --dry-run prints the plan and writes nothing', async () => {
    const r = await asKmaint(['pass', 'drainer', '--dry-run', '-o', 'text']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('drainer pass');
    expect(r.stdout).toContain(
      `would cordon node ${node} kmaint.io/cordoned-by=kmaint/${ns}/by-cli kmaint.io/cordon-reason=NodeMaintenance ${ns}/by-cli (requestor cli.example.com): cordon for ${ns}/by-cli`,
    );
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Scheduled');
  });

  it('kmaint run all --timeout 60s takes the request to Ready and stops when idle', async () => {
    const r = await asKmaint(['run', 'all', '--timeout', '60s', '-o', 'json']);
    expect(r.code).toBe(0);
    const last = jsonLines(r.stdout).at(-1) as { run: { stopped: string } };
    expect(last.run.stopped).toBe('idle');
    expect(phaseOf(await getNM(ns, 'by-cli'))).toBe('Ready');
  });

  it('kmaint plan prints every decision with its reason, and why a new request will wait', async () => {
    await createNM(ns, 'second', { requestorID: 'other.example.com', nodeName: node });
    const r = await asKmaint(['plan', '-o', 'text']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      [
        'scheduler: 2 decisions, 1 request waiting',
        `  would status ${ns}/second (new) -> Pending: new request, ${waitMessage}`,
        `  would event Normal ConditionChanged on ${ns}/second: Pending`,
        `  ${ns}/second (${node}) ${waitMessage}`,
        'drainer: nothing to do',
        'cleanup: nothing to do',
        'reaper: nothing to do',
        '',
      ].join('\n'),
    );
    expect(phaseOf(await getNM(ns, 'second'))).toBe('');
  });

  it('kmaint plan still prints the wait once the reason is written and nothing changes (no decision)', async () => {
    expect((await asKmaint(['pass', 'scheduler'])).code).toBe(0);
    expect((await getNM(ns, 'second'))?.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(waitMessage);
    const text = await asKmaint(['plan', '-o', 'text']);
    expect(text.stdout).toBe(['scheduler: 1 request waiting', `  ${ns}/second (${node}) ${waitMessage}`, 'drainer: nothing to do', 'cleanup: nothing to do', 'reaper: nothing to do', ''].join('\n'));
    const json = await asKmaint(['plan', '-o', 'json']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    const summaries = jsonLines(json.stdout);
    expect(summaries.map((s) => [s['fn'], s['outcome'], s['planned']])).toEqual([
      ['scheduler', 'dry-run', 0],
      ['drainer', 'dry-run', 0],
      ['cleanup', 'dry-run', 0],
      ['reaper', 'dry-run', 0],
    ]);
    expect(summaries[0]?.['waits']).toEqual([{ request: `${ns}/second`, node, reason: waitMessage }]);
  });

  it('kmaint status shows both requests: phase, node, requestor, age, drain bar and the wait reason', async () => {
    const nm = await getNM(ns, 'by-cli');
    const drain = nm?.status?.drain;
    const [r, log] = await Promise.all([asKmaint(['status', '-o', 'text']), asKmaint(['status', '--watch', '--timeout', '1ms', '-o', 'text'])]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    // stdout is not a terminal: no colour codes even with -o text, and as kubectl get the table's header comes first
    // (the config and count lines are for a terminal, and for --watch's log of views).
    expect(r.stdout).not.toContain('\x1b[');
    expect([log.code, log.stderr, log.stdout.split('\n').slice(0, 3)]).toEqual([
      0,
      '',
      ['MaintenanceOperatorConfig kmaint/default not found: defaults apply (maxParallelOperations 1, maxUnavailable unlimited)', '2 requests: 1 Ready, 1 Pending', r.stdout.split('\n')[0]],
    ]);
    const lines = ['', '', ...r.stdout.trimEnd().split('\n')];
    expect(lines[2]).toMatch(/^REQUEST +NODE +REQUESTOR +PHASE +AGE +DRAIN +MESSAGE$/);
    const bar = drain ? `${'█'.repeat(Math.round(drain.drainProgress / 10))}${'░'.repeat(10 - Math.round(drain.drainProgress / 10))} ${String(drain.drainProgress).padStart(3)}% ${drain.waitForEviction?.length ?? 0} of ${drain.evictionPods} pods left` : '-';
    const readyMessage = nm?.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
    expect(lines[3]).toMatch(new RegExp(`^${escape(`${ns}/by-cli`)} +${escape(node)} +cli\\.example\\.com +Ready +\\d+[smhd](?:\\d+[smh])? +${escape(bar)}${readyMessage ? ` +${escape(readyMessage)}` : ''}$`));
    expect(lines[4]).toMatch(new RegExp(`^${escape(`${ns}/second`)} +${escape(node)} +other\\.example\\.com +Pending +\\d+[smhd](?:\\d+[smh])? +- +${escape(waitMessage)}$`));
    expect(lines).toHaveLength(5);
  });

  it('kmaint status -o json writes the requests as one List (kubectl get -o json), each the object as read', async () => {
    const r = await asKmaint(['status', '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const list = JSON.parse(r.stdout) as { apiVersion: string; kind: string; items: NodeMaintenance[] };
    expect([list.apiVersion, list.kind, list.items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`)]).toEqual(['v1', 'List', [`${ns}/by-cli`, `${ns}/second`]]);
    // As kubectl get -o json: without managedFields.
    const { managedFields: _managed, ...metadata } = (await getNM(ns, 'second'))?.metadata ?? { name: '' };
    expect(list.items[1]).toEqual({ ...(await getNM(ns, 'second')), metadata });
    // What the table shows of each is status's row of that object (cli/status.ts).
    const rows = list.items.map((nm) => statusRow(nm, new Date()));
    expect(rows[1]).toEqual({
      request: `${ns}/second`,
      namespace: ns,
      name: 'second',
      node,
      requestor: 'other.example.com',
      phase: 'Pending',
      createdAt: expect.any(String) as string,
      ageSeconds: expect.any(Number) as number,
      deleting: false,
      drain: null,
      message: waitMessage,
    });
  });

  it('kmaint takeover --to nvidia drops kmaint.io/Waiting from the waiting request (plan, then --apply), every other condition kept; the next scheduler pass writes it again', async () => {
    const waitingOf = (nm: NodeMaintenance | undefined) => nm?.status?.conditions?.find((c) => c.type === 'kmaint.io/Waiting');
    const before = await getNM(ns, 'second');
    expect([waitingOf(before)?.status, waitingOf(before)?.reason]).toEqual(['True', 'Node']);
    const line = `status ${ns}/second: drop kmaint's kmaint.io/Waiting condition (Node) from ${ns}/second: upstream neither writes nor clears it`;
    const planned = await asKmaint(['takeover', '--to', 'nvidia']);
    expect([planned.code, planned.stdout, planned.stderr]).toEqual([0, `(dry run) ${line}\n`, '']);
    expect(waitingOf(await getNM(ns, 'second'))?.reason).toBe('Node');
    const applied = await asKmaint(['takeover', '--to', 'nvidia', '--apply']);
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([0, `${line}\n`, '']);
    const after = await getNM(ns, 'second');
    expect(after?.status?.conditions).toEqual(before?.status?.conditions?.filter((c) => c.type !== 'kmaint.io/Waiting'));
    expect((await asKmaint(['takeover', '--to', 'nvidia'])).stdout).toBe('');
    // kmaint still running: its next scheduler pass writes the condition again (docs/migrate.md: run the command once
    // more after kmaint is stopped).
    expect((await asKmaint(['pass', 'scheduler'])).code).toBe(0);
    expect(waitingOf(await getNM(ns, 'second'))?.reason).toBe('Node');
  });

  it('global flags: --kmaint-namespace names the config read, --log-level debug logs to stderr, --context selects a context', async () => {
    // kmaint's ServiceAccount may read configs only in its own namespace; the admin may read any.
    const other = await kmaint(['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', 'elsewhere', 'status', '--watch', '--timeout', '1ms', '-o', 'text']);
    expect([other.code, other.stderr]).toEqual([0, '']);
    expect(other.stdout.split('\n')[0]).toBe('MaintenanceOperatorConfig elsewhere/default not found: defaults apply (maxParallelOperations 1, maxUnavailable unlimited)');
    const debug = await asKmaint(['--log-level', 'debug', 'status', '-o', 'json']);
    expect(debug.code).toBe(0);
    expect(jsonLines(debug.stderr).map((l) => [l['msg'], l['requests']])).toEqual([['status read', 2]]);
    const kc = new KubeConfig();
    kc.loadFromFile(testbed().kmaintKubeconfigPath);
    const ctx = await asKmaint(['--context', kc.getCurrentContext(), 'status', '-o', 'json']);
    expect([ctx.code, (JSON.parse(ctx.stdout) as { items: unknown[] }).items.length]).toEqual([0, 2]);
  });

  it('kmaint invoke runs the deployed function once (RequestResponse) and prints its summary with the wait', async () => {
    const r = await kmaint(['invoke', 'scheduler', '--dry-run', '--max-passes', '1', '-o', 'json'], awsEnv());
    expect([r.code, r.stderr]).toEqual([0, '']);
    const [summary] = jsonLines(r.stdout) as Array<{ fn: string; stopped: string; passes: Array<{ outcome: string; waits: unknown }> }>;
    expect([summary?.fn, summary?.stopped, summary?.passes.length, summary?.passes[0]?.outcome]).toEqual(['scheduler', 'idle', 1, 'dry-run']);
    expect(summary?.passes[0]?.waits).toEqual([{ request: `${ns}/second`, node, reason: waitMessage }]);
    const text = await kmaint(['invoke', 'cleanup', '--function-name', 'kmaint-clitest-cleanup', '-o', 'text'], awsEnv());
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^kmaint-clitest-cleanup \(cleanup\): idle after 1 pass in \d+ ms; admitted 0, became ready 0, released 0, collected 0, conflicts 0, errors 0$/);
    expect(text.stdout.split('\n')[1]).toBe('  chain: none: chaining is off');
  });

  it('a malformed MaintenanceOperatorConfig: plan and pass print their output, then exit 2 naming the field; status shows it', async () => {
    await setConfig({ maxParallelOperations: 'abc%' });
    const reason = 'kmaint: MaintenanceOperatorConfig kmaint/default is invalid: spec.maxParallelOperations: "abc%" is not an integer or a percentage\n';
    const plan = await asKmaint(['plan', 'scheduler', '-o', 'text']);
    expect([plan.code, plan.stderr]).toEqual([2, reason]);
    const problem = 'spec.maxParallelOperations: "abc%" is not an integer or a percentage';
    // The node is taken, which is checked before the limits; the config's own status and event are decisions.
    expect(plan.stdout).toBe(
      [
        'scheduler: 2 decisions, 1 request waiting',
        `  would status MaintenanceOperatorConfig kmaint/default: ${problem}; no new maintenance is admitted until this is fixed`,
        `  would event Warning InvalidConfig on kmaint/default: ${problem}; no new maintenance is admitted until this is fixed`,
        `  ${ns}/second (${node}) ${waitMessage}`,
        `config: ${problem}`,
        '',
      ].join('\n'),
    );
    const pass = await asKmaint(['pass', 'scheduler', '--dry-run', '-o', 'json']);
    expect([pass.code, pass.stderr, jsonLines(pass.stdout).length]).toEqual([2, reason, 1]);
    // Piped, the config's problem is not lost with the config line: it goes to stderr.
    const status = await asKmaint(['status', '-o', 'text']);
    expect([status.code, status.stderr]).toEqual([0, 'MaintenanceOperatorConfig kmaint/default has problems: spec.maxParallelOperations: "abc%" is not an integer or a percentage\n']);
    await setConfig(undefined);
  });

  it('kmaint --help lists every command, and each one has its own --help', async () => {
    const r = await kmaint(['--help']);
    expect(r.code).toBe(0);
    const commands = r.stdout
      .slice(r.stdout.indexOf('Commands:'))
      .split('\n')
      .flatMap((l) => /^ {2}([a-z-]+) /.exec(l)?.[1] ?? [])
      .filter((c) => c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['pass', 'run', 'plan', 'status', 'invoke', 'demo', 'sim']));
    const helps = await Promise.all(commands.map((command) => kmaint([command, '--help'])));
    helps.forEach((h, i) => {
      expect([h.code, h.stderr], commands[i]).toEqual([0, '']);
      expect(h.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: kmaint ${commands[i] ?? ''} `));
    });
    expect(r.stdout).toContain('Exit codes: 0 ok, 1 a pass or invocation failed, 2 usage or configuration error (one line on stderr).');
  });

  it.concurrent.each([
    { name: 'an unknown function (pass)', args: ['pass', 'nope'], code: 2, stderr: 'kmaint: unknown function "nope": expected one of scheduler, drainer, cleanup, reaper\n' },
    { name: 'an unknown function (plan)', args: ['plan', 'nope'], code: 2, stderr: 'kmaint: unknown function "nope": expected one of scheduler, drainer, cleanup, reaper\n' },
    { name: 'an unknown function (invoke)', args: ['invoke', 'nope'], code: 2, stderr: 'kmaint: unknown function "nope": expected one of scheduler, drainer, cleanup, reaper\n' },
    { name: 'a missing kubeconfig', args: ['--kubeconfig', '/nonexistent/kubeconfig', 'status'], code: 2, stderr: 'kmaint: kubeconfig /nonexistent/kubeconfig does not exist\n' },
    { name: 'an unknown context', args: ['--context', 'nope', 'plan'], code: 2, stderr: `kmaint: kubeconfig ${'KMAINT_KC'} has no context "nope"\n` },
    { name: 'a bad duration', args: ['run', 'all', '--timeout', 'soon'], code: 2, stderr: 'kmaint: invalid duration "soon": use e.g. 30s, 5m, 1h\n' },
    { name: 'an unknown output format', args: ['-o', 'xml', 'status'], code: 2, stderr: 'kmaint: unknown output format "xml": expected one of text, wide, json, yaml, name, jsonpath=<template>\n' },
    { name: 'a format the command does not print', args: ['-o', 'name', 'plan'], code: 2, stderr: 'kmaint: plan prints text, wide, json, yaml, not -o name\n' },
    { name: 'a bad --max-passes', args: ['invoke', 'drainer', '--stage', 'x', '--max-passes', '0'], code: 2, stderr: 'kmaint: --max-passes must be a whole number from 1 to 1000, got "0"\n' },
    { name: 'no function name for invoke', args: ['invoke', 'drainer'], code: 2, stderr: 'kmaint: no Lambda function name for drainer: give --function-name or --stage (serverless.yml names it kmaint-<stage>-drainer), or set KMAINT_FN_DRAINER or KMAINT_STAGE\n' },
  ])('exits $code with a one-line reason for $name', async ({ args, code, stderr }) => {
    const r = await asKmaint(args);
    expect([r.code, r.stderr]).toEqual([code, stderr.replace('KMAINT_KC', testbed().kmaintKubeconfigPath)]);
  });

  it('exits 2 naming the file and position for a kubeconfig that is not YAML', async () => {
    const path = tmpFile('kc', 'clusters: [\n  token: abc\n bad: : :');
    const r = await kmaint(['--kubeconfig', path, 'status']);
    expect([r.code, r.stderr]).toEqual([2, `kmaint: loading kubeconfig ${path}: missed comma between flow collection entries (3:5)\n`]);
  });

  it.concurrent.each([
    { command: ['pass', 'scheduler'], stderr: ['kmaint: reading lease kmaint/kmaint-scheduler: fetch failed: connect ECONNREFUSED 127.0.0.1:3\n'] },
    { command: ['status'], stderr: ['kmaint: listing nodes: fetch failed: connect ECONNREFUSED 127.0.0.1:3\n'] },
    // A dry run reads nodes, requests and config at once; whichever refusal arrives first is the one reported.
    { command: ['plan'], stderr: ['listing nodes', 'listing nodemaintenances', 'reading MaintenanceOperatorConfig kmaint/default'].map((doing) => `kmaint: ${doing}: fetch failed: connect ECONNREFUSED 127.0.0.1:3\n`) },
  ])('exits 1 with a one-line reason when the server cannot be reached ($command)', async ({ command, stderr }) => {
    const r = await kmaint(['--kubeconfig', tmpFile('kc', UNREACHABLE), ...command]);
    expect(r.code).toBe(1);
    expect(stderr).toContain(r.stderr);
  });

  it('kmaint invoke: a function that fails exits 1 with its error; an unknown function exits 2', async () => {
    const failed = await kmaint(['invoke', 'scheduler', '--function-name', 'kmaint-clitest-broken'], awsEnv());
    expect([failed.code, failed.stdout, failed.stderr]).toEqual([1, '', 'kmaint: kmaint-clitest-broken failed: LambdaSettingsError: function environment: KMAINT_CLUSTER_NAME: set it (EKS), KMAINT_KUBECONFIG or KMAINT_KUBECONFIG_SECRET_ARN\n']);
    const missing = await kmaint(['invoke', 'drainer', '--stage', 'nowhere'], awsEnv());
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([2, '', 'kmaint: invoking kmaint-nowhere-drainer: ResourceNotFoundException: Function not found: arn:aws:lambda:eu-west-1:123456789012:function:kmaint-nowhere-drainer\n']);
  });
});
