// Issue 41: the config is parsed once per pass. Each of kmaint's real passes (runPass through KubeClient) runs over the
// simulated server's snapshot, and shared/pass/config.ts counts its loadConfig calls: one per pass that plans, none
// for a pass skipped at its start (a disabled reaper reads one section of one GET, nothing else).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../shared/api/index.ts';
import { KubeClient } from '../../shared/kube/index.ts';
import { configLoads, PassRound, runPass, type PassFunction } from '../../shared/pass/index.ts';
import { startSimApiServer, type SimApiServer } from './index.ts';
import { aNodeMaintenance, call, CRD_DIR } from './test-support.ts';

const CONFIGS = `/apis/${GROUP}/${VERSION}/namespaces/kmaint/maintenanceoperatorconfigs`;
const NOW = new Date('2026-03-01T12:00:00Z');

let server: SimApiServer;
let client: KubeClient;

/** The loadConfig calls `run` made, and what it returned. */
async function counted<T>(run: () => Promise<T>): Promise<[number, T]> {
  const before = configLoads();
  const out = await run();
  return [configLoads() - before, out];
}

beforeAll(async () => {
  server = await startSimApiServer({ crds: [CRD_DIR] });
  for (const name of ['n1', 'n2', 'n3']) await call(server, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  for (const ns of ['kmaint', 'team']) await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await call(server, 'POST', CONFIGS, { apiVersion: `${GROUP}/${VERSION}`, kind: 'MaintenanceOperatorConfig', metadata: { name: 'default' }, spec: { maxParallelOperations: 1 } });
  await call(server, 'POST', `/apis/${GROUP}/${VERSION}/namespaces/team/nodemaintenances`, aNodeMaintenance('one', { requestorID: 'ops.example.com', nodeName: 'n1' }, 'team'));
  client = new KubeClient(server.kubeConfig({ user: 'kmaint' }));
});
afterAll(async () => {
  await server.stop();
});

describe('one loadConfig call per pass', () => {
  it('each function alone, a dry run of each, and a round of all four: one parse per pass that plans, none for a pass skipped at its start', async () => {
    const fns: PassFunction[] = ['scheduler', 'drainer', 'cleanup', 'reaper'];
    const alone: Array<[PassFunction, number, string]> = [];
    for (const fn of fns) {
      const [n, summary] = await counted(() => runPass(fn, { client, namespace: 'kmaint', now: () => NOW, dryRun: true }));
      alone.push([fn, n, summary.outcome]);
    }
    // A round of all four: each pass that plans parses its snapshot's config once; cleanup (nothing to clean in the
    // round's snapshot) and the disabled reaper are skipped at their start, which reads the value the round kept.
    const round = new PassRound(undefined, fns);
    const inRound: Array<[PassFunction, number]> = [];
    for (const fn of fns) {
      const [n] = await counted(() => runPass(fn, { client, namespace: 'kmaint', now: () => NOW, dryRun: true, round }));
      inRound.push([fn, n]);
    }
    // The reaper on: its pass plans, and parses once.
    await call(server, 'PATCH', `${CONFIGS}/default`, { spec: { reaper: { enabled: true, dryRun: true } } }, 'application/merge-patch+json');
    const [reaperOn] = await counted(() => runPass('reaper', { client, namespace: 'kmaint', now: () => NOW, dryRun: true }));
    expect({ alone, inRound, reaperOn }).toEqual({
      alone: [
        ['scheduler', 1, 'dry-run'],
        ['drainer', 1, 'dry-run'],
        ['cleanup', 1, 'dry-run'],
        ['reaper', 0, 'dry-run'],
      ],
      inRound: [
        ['scheduler', 1],
        ['drainer', 1],
        ['cleanup', 0],
        ['reaper', 0],
      ],
      reaperOn: 1,
    });
  });
});
