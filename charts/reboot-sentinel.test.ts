// The chart's node-problem-detector custom plugin for kured's sentinel (issue 43 point 2), with a real helm
// (testbed/helm.ts): off by default; on, a ConfigMap with NPD's custom-plugin-monitor config (one permanent rule setting
// the condition kmaint's spec.rebootSentinel reads) and the check script, whose exit codes follow NPD's convention.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_REBOOT_SENTINEL_CONDITION } from '../shared/api/index.ts';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';

const CHART = 'charts/kmaint';
const NAME = 'kmaint-reboot-sentinel';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
}

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/reboot-sentinel] NOT RUN: the chart tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

function template(set: string[]): Promise<HelmResult> {
  return runHelm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', ...set.flatMap((s) => ['--set-json', s])]);
}

async function sentinelObjects(set: string[]): Promise<Obj[]> {
  const r = await template(set);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj | null).filter((o): o is Obj => o !== null && o.metadata.name === NAME);
}

describe.skipIf(!HELM_BUILT)('helm template: the node-problem-detector plugin for the reboot sentinel', () => {
  it('renders nothing of it by default', async () => {
    expect(await sentinelObjects([])).toEqual([]);
  });

  it("enabled: one ConfigMap in NPD's namespace, a custom plugin with one permanent rule setting RebootRequired", async () => {
    const objs = await sentinelObjects(['rebootSentinel.nodeProblemDetector={"enabled":true,"namespace":"kube-system"}']);
    expect(objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`)).toEqual(['ConfigMap/kube-system']);
    const data = objs[0]?.data ?? {};
    expect(Object.keys(data).sort()).toEqual(['reboot-required.json', 'reboot-required.sh']);
    expect(JSON.parse(data['reboot-required.json'] ?? '')).toEqual({
      plugin: 'custom',
      pluginConfig: { invoke_interval: '5m', timeout: '5s', max_output_length: 80, concurrency: 1 },
      source: 'kmaint-reboot-sentinel',
      conditions: [{ type: DEFAULT_REBOOT_SENTINEL_CONDITION, reason: 'NoRebootRequired', message: 'no reboot required' }],
      rules: [{ type: 'permanent', condition: DEFAULT_REBOOT_SENTINEL_CONDITION, reason: 'RebootRequired', path: '/config/plugin/reboot-required.sh', timeout: '3s' }],
    });
  });

  it('the script exits 1 (NonOK) with a message while the sentinel file exists, 0 once it is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kmaint-sentinel-'));
    try {
      const file = join(dir, 'reboot-required');
      const objs = await sentinelObjects([`rebootSentinel.nodeProblemDetector={"enabled":true,"sentinelFile":${JSON.stringify(file)},"conditionType":"example.com/KernelUpdated","invokeInterval":"30s"}`]);
      const script = objs[0]?.data?.['reboot-required.sh'] ?? '';
      const json = JSON.parse(objs[0]?.data?.['reboot-required.json'] ?? '{}') as { pluginConfig: { invoke_interval: string }; rules: Array<{ condition: string }> };
      expect([json.pluginConfig.invoke_interval, json.rules[0]?.condition]).toEqual(['30s', 'example.com/KernelUpdated']);
      const run = (): [number | null, string] => {
        const r = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
        return [r.status, r.stdout];
      };
      expect(run()).toEqual([0, 'no reboot required\n']);
      writeFileSync(file, '');
      expect(run()).toEqual([1, `reboot required: ${file} exists\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['a condition type with a space', 'rebootSentinel.nodeProblemDetector.conditionType="Reboot Required"'],
    ['a relative sentinel file', 'rebootSentinel.nodeProblemDetector.sentinelFile="var/run/reboot-required"'],
    ['an unknown key', 'rebootSentinel.nodeProblemDetector.period="5m"'],
  ])('the values schema refuses %s', async (_rule, set) => {
    const r = await template([set]);
    expect(r.code).not.toBe(0);
  });
});
