// The embedded simulated cluster for one behaviour test file: the sim API server, controllers and kubelets (small
// profile, seed 1, as the testbed), with kmaint's CRDs, namespace, ServiceAccount and sample config applied by kubectl.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SimApiServer } from '../../sim/apiserver/index.ts';
import { kubectlBinary } from '../../sim/apiserver/test-support.ts';
import { realClock } from '../../sim/clock.ts';
import { startEmbeddedCluster } from '../../sim/embedded.ts';
import type { AuditEntry, AuditFilter } from '../../testbed/audit.ts';
import type { ClusterAudit, FileCluster } from '../support/cluster.ts';
import type { TestbedInfo } from '../support/testbed-info.ts';
import { KMAINT_SERVICE_ACCOUNT_USER } from './install-kmaint.ts';
import { answerOf, untilEstablished } from '../support/crd-established.ts';

const run = promisify(execFile);

/** Real ms between rounds of the simulated controllers and kubelet: kube-controller-manager reacts within a few 100 ms. */
const POLL_MS = 250;

/** The files `kubectl apply -k infra/base` would apply that the sim serves (it has no RBAC or CronJobs). */
const INFRA_FILES = ['infra/base/namespace.yaml', 'infra/base/service-account.yaml', 'infra/base/config.yaml'];

/** The sim's request log as the testbed's audit log reads (its requests are recorded before they are answered). */
function requestAudit(server: SimApiServer): ClusterAudit {
  const entries = (filter: AuditFilter = {}): AuditEntry[] =>
    server.requests(filter).map(({ fault: _fault, ...e }) => e);
  return {
    mark: () => server.mark(),
    entries,
    countByVerb: (filter = {}) => server.requestCounts(filter).byVerb,
    sync: () => Promise.resolve(),
  };
}

export interface SimForTests extends FileCluster {
  stop(): Promise<void>;
}

export async function startSimForTests(): Promise<SimForTests> {
  const bin = kubectlBinary();
  if (!bin) throw new Error('the sim project needs kubectl: `npm run testbed:build` builds it, or put one on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-sim-test-'));
  const started = Date.now();
  const sim = await startEmbeddedCluster({ clock: realClock(), profile: 'small', seed: 1, pollIntervalMs: POLL_MS });
  try {
    const server = sim.apiserver;
    const kubeconfigPath = server.kubeconfigPath(dir);
    const kmaintKubeconfigPath = join(dir, 'kubeconfig-sa-kmaint');
    writeFileSync(kmaintKubeconfigPath, server.kubeconfigYaml({ user: KMAINT_SERVICE_ACCOUNT_USER }), { mode: 0o600 });
    // As the testbed's DIR/kubeconfig-kmaint: a second user that tests tell apart in the request log.
    server.kubeconfigPath(dir, { user: 'kmaint' });
    const kubectl = async (args: string[]): Promise<void> => {
      try {
        await run(bin, ['--kubeconfig', kubeconfigPath, '--cache-dir', join(dir, 'kubectl-cache'), ...args], { timeout: 60_000 });
      } catch (err) {
        throw new Error(`kubectl ${args.join(' ')}: ${((err as { stderr?: string }).stderr ?? String(err)).trim()}`, { cause: err });
      }
    };
    await kubectl(['apply', '-f', 'crds/']);
    await untilEstablished(answerOf(kubectl), ['-f', 'crds/'], 30);
    await kubectl(['apply', ...INFRA_FILES.flatMap((f) => ['-f', f])]);
    const info: TestbedInfo = {
      cluster: 'sim',
      dir,
      server: server.url,
      caFile: '',
      kubeconfigPath,
      kmaintKubeconfigPath,
      kmaintUser: KMAINT_SERVICE_ACCOUNT_USER,
      auditPath: '',
      kubectl: bin,
      nodes: sim.cluster.nodes.map((n) => n.metadata?.name ?? ''),
    };
    process.stderr.write(`[sim] up with kmaint's CRDs and config in ${((Date.now() - started) / 1000).toFixed(1)} s at ${server.url}: ${info.nodes.length} nodes, ${sim.podsReady} pods\n`);
    return {
      info,
      audit: () => requestAudit(server),
      stop: async () => {
        await sim.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await sim.stop();
    throw err;
  }
}
