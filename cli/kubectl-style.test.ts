// The kmaint command as a kubectl user types it (child processes of the bundle, stdout not a TTY) against the
// embedded API server: -n/-l/--node select requests, -o name|yaml, text when piped, --version, kmaint's own
// namespace refused as -n on a pass, and completion scripts that parse in their shell and name every command.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { API_VERSION, NODE_MAINTENANCE_PLURAL } from '../shared/api/index.ts';
import { startSimApiServer, type SimApiServer } from '../sim/apiserver/index.ts';
import { CRDS_DIR } from '../sim/embedded.ts';
import { runKmaint, type KmaintRun } from '../test/support/kmaint-cli.ts';

function kmaint(args: string[]): Promise<KmaintRun> {
  return runKmaint(args, 110_000);
}

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const NM = { apiVersion: API_VERSION, resource: NODE_MAINTENANCE_PLURAL };
const NODES = { apiVersion: 'v1', resource: 'nodes' };

describe('kmaint status with kubectl flags against the embedded API server', () => {
  let api: SimApiServer;
  let dir = '';
  let kubeconfig = '';
  beforeAll(async () => {
    api = await startSimApiServer({ crds: [CRDS_DIR], namespaces: ['kmaint', 'team-a', 'team-b'] });
    for (const name of ['n1', 'n2']) api.local.create(NODES, '', { metadata: { name } });
    const request = (namespace: string, name: string, node: string, labels: Record<string, string>): void =>
      void api.local.create(NM, namespace, { apiVersion: API_VERSION, kind: 'NodeMaintenance', metadata: { name, labels }, spec: { requestorID: 'cli.example.com', nodeName: node } });
    request('team-a', 'fw', 'n1', { kind: 'firmware' });
    request('team-a', 'os', 'n2', { kind: 'os' });
    request('team-b', 'fw', 'n1', { kind: 'firmware' });
    dir = mkdtempSync(join(tmpdir(), 'kmaint-kubectl-style-'));
    kubeconfig = api.kubeconfigPath(dir);
  });
  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('-n selects a namespace (-o name); -l and --node select by labels and node (-o yaml: one List document of the objects); none matching says which filter, on stderr when piped', async () => {
    const [byNamespace, byLabelAndNode, none] = await Promise.all([
      kmaint(['--kubeconfig', kubeconfig, 'status', '-n', 'team-a', '-o', 'name']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-l', 'kind=firmware', '--node', 'n1', '-o', 'yaml']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-n', 'nobody']),
    ]);
    expect(byNamespace).toEqual({ code: 0, stdout: 'team-a/fw\nteam-a/os\n', stderr: '' });
    expect([byLabelAndNode.code, byLabelAndNode.stderr]).toEqual([0, '']);
    const docs = parseAllDocuments(byLabelAndNode.stdout).map((d) => d.toJS() as { apiVersion: string; kind: string; metadata: unknown; items: Array<{ kind: string; metadata: { namespace: string; name: string }; spec: { nodeName: string } }> });
    expect(docs.map((d) => [d.apiVersion, d.kind, d.metadata, d.items.map((i) => [i.kind, i.metadata.namespace, i.metadata.name, i.spec.nodeName])])).toEqual([
      ['v1', 'List', { resourceVersion: '' }, [['NodeMaintenance', 'team-a', 'fw', 'n1'], ['NodeMaintenance', 'team-b', 'fw', 'n1']]],
    ]);
    expect(none).toEqual({ code: 0, stdout: '', stderr: 'no NodeMaintenance requests in namespace nobody\n' });
  });

  it('piped as kubectl get: text starts with the header (no config or count line), --no-headers drops it, -o json is one List of the objects, -o jsonpath applies a template to it', async () => {
    const [text, bare, json, jsonpath, badPath] = await Promise.all([
      kmaint(['--kubeconfig', kubeconfig, 'status', '-n', 'team-a']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-n', 'team-a', '--no-headers']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-n', 'team-b', '-o', 'json']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.spec.nodeName}{"\\n"}{end}']),
      kmaint(['--kubeconfig', kubeconfig, 'status', '-o', 'jsonpath={.items[?(@.x)]}']),
    ]);
    // The AGE column is the only one that depends on the clock: the rest, column by column.
    const columns = (line: string): string[] => line.split(/ {2,}/);
    expect([text.code, text.stderr, text.stdout.split('\n').map(columns)]).toEqual([
      0,
      '',
      [['REQUEST', 'NODE', 'REQUESTOR', 'PHASE', 'AGE', 'DRAIN', 'MESSAGE'], ['team-a/fw', 'n1', 'cli.example.com', 'new', expect.stringMatching(/^\d+s$/), '-'], ['team-a/os', 'n2', 'cli.example.com', 'new', expect.stringMatching(/^\d+s$/), '-'], ['']],
    ]);
    expect([bare.code, bare.stderr, bare.stdout.split('\n').map((l) => columns(l)[0])]).toEqual([0, '', ['team-a/fw', 'team-a/os', '']]);
    const list = JSON.parse(json.stdout) as { apiVersion: string; kind: string; metadata: unknown; items: Array<{ apiVersion: string; kind: string; metadata: { namespace: string; name: string; labels: unknown }; spec: unknown }> };
    expect([json.code, json.stderr, json.stdout.startsWith('{\n    "apiVersion": "v1",\n'), list.kind, list.metadata, list.items.map((i) => [i.apiVersion, i.kind, i.metadata.namespace, i.metadata.name, i.metadata.labels, i.spec])]).toEqual([
      0,
      '',
      true,
      'List',
      { resourceVersion: '' },
      [[API_VERSION, 'NodeMaintenance', 'team-b', 'fw', { kind: 'firmware' }, { requestorID: 'cli.example.com', nodeName: 'n1', cordon: true }]],
    ]);
    expect(jsonpath).toEqual({ code: 0, stdout: 'team-a/fw n1\nteam-a/os n2\nteam-b/fw n1\n', stderr: '' });
    expect(badPath).toEqual({ code: 2, stdout: '', stderr: 'kmaint: -o jsonpath={.items[?(@.x)]}: cannot read "[?(@.x)]" (kmaint reads fields, [\'names\'], [n] and [*])\n' });
  });

  it('--version prints "kmaint <version>" from package.json; -n on a pass exits 2 with one line naming --kmaint-namespace', async () => {
    const [version, pass] = await Promise.all([kmaint(['--version']), kmaint(['--kubeconfig', kubeconfig, '-n', 'kmaint', 'pass', 'scheduler'])]);
    expect(version).toEqual({ code: 0, stdout: `kmaint ${VERSION}\n`, stderr: '' });
    expect(pass).toEqual({ code: 2, stdout: '', stderr: "kmaint: pass takes no -n/--namespace: it works on every request; kmaint's own namespace is --kmaint-namespace (env KMAINT_NAMESPACE)\n" });
  });
});

/** A shell's own syntax check of a script (bash -n, zsh -n, fish -n); undefined when the shell is not installed. */
function shellCheck(shell: string, file: string): string | undefined {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  try {
    execFileSync(shell, ['-n', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    return 'ok';
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err);
  }
}

/** Every command, as --help lists them (test/cli.test.ts checks each has its own help). */
const COMMANDS = ['pass', 'run', 'plan', 'status', 'explain', 'invoke', 'demo', 'sim', 'snapshot', 'simulate', 'version', 'completion'];

describe('kmaint completion', () => {
  it('bash, zsh and fish: each script parses in its shell and names every command; bash completes commands, functions after a flag value, -o formats', async () => {
    const scripts = await Promise.all((['bash', 'zsh', 'fish'] as const).map((shell) => kmaint(['completion', shell])));
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-completion-'));
    try {
      const results = (['bash', 'zsh', 'fish'] as const).map((shell, i) => {
        const script = scripts[i] as KmaintRun;
        const file = join(dir, `kmaint.${shell}`);
        writeFileSync(file, script.stdout);
        const missing = COMMANDS.filter((c) => !new RegExp(`(^|[\\s'"(])${c}([\\s:)'"]|$)`, 'm').test(script.stdout));
        const check = shellCheck(shell, file);
        // A shell that is not installed cannot judge its script: said on stderr, so a green run is not taken for a tested one.
        if (check === undefined) process.stderr.write(`[cli/kubectl-style] NOT RUN: ${shell} -n on the ${shell} completion script (${shell} is not installed)\n`);
        return { shell, code: script.code, stderr: script.stderr, missing, check: check ?? 'ok' };
      });
      expect(results).toEqual((['bash', 'zsh', 'fish'] as const).map((shell) => ({ shell, code: 0, stderr: '', missing: [], check: 'ok' })));
      const complete = (words: string[]): string =>
        execFileSync('bash', ['-c', `source ${join(dir, 'kmaint.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _kmaint; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' }).trimEnd();
      expect([complete(['kmaint', 'sta']), complete(['kmaint', '--context', 'x', 'pass', 'dr']), complete(['kubectl-kmaint', '-o', 'y'])]).toEqual(['status', 'drainer', 'yaml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
