// Vitest global setup of the e2e project: the behaviour suite on an existing cluster named by KMAINT_E2E_KUBECONFIG (an
// admin kubeconfig). Checks the API server answers and offers at least 3 nodes labelled kmaint.io/pool=general (the
// operator's disposable nodes, which the suite cordons and drains) and that every node is Ready and schedulable, installs kmaint as the testbed setup does (crds/,
// infra/base, CronJobs suspended; left installed afterwards), and logs kmaint in as its ServiceAccount. It reads the
// node inventory some tests need beyond that (test/support/node-inventory.ts) once and provides it: tests needing what
// the cluster lacks are counted not applicable. At teardown it prints what the files reported as not applicable on e2e
// (test/support/testbed-only.ts).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { TestProject } from 'vitest/node';
import { kubectlBinary } from '../../sim/apiserver/test-support.ts';
import { INVENTORY_FACILITIES, inventoryOf } from '../support/node-inventory.ts';
import type { TestbedInfo } from '../support/testbed-info.ts';
import { KMAINT_SERVICE_ACCOUNT_USER, installKmaint, writeServiceAccountKubeconfig } from './install-kmaint.ts';
import { notApplicableReport } from './project-timing.ts';

export const E2E_KUBECONFIG_ENV = 'KMAINT_E2E_KUBECONFIG';
/** The label of the nodes the suite may cordon and drain (generalNodes() in test/support/kmaint.ts). */
const GENERAL_POOL = 'kmaint.io/pool=general';
const MIN_GENERAL_NODES = 3;
const ANSWER_TIMEOUT_MS = 10_000;

/** A setup failure vitest prints as one line: its message, without a stack. */
function setupError(message: string): Error {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

/** The reason a request failed, as the socket told it (`connect ECONNREFUSED 127.0.0.1:3`), on one line. */
function reasonOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return (e.cause?.message ?? e.message ?? String(err)).split('\n')[0] ?? '';
}

/** Resolves once the API server answers GET /version, or fails naming it. */
async function checkAnswers(kc: KubeConfig, server: string, path: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      kc.makeApiClient(VersionApi).getCode(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s`)), ANSWER_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: the API server ${server} does not answer: ${reasonOf(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The kubeconfig's CA as a file in `dir` (the ServiceAccount's kubeconfig embeds it); '' over plain HTTP. */
function caFileOf(kc: KubeConfig, dir: string): string {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caFile) return cluster.caFile;
  if (!cluster?.caData) return '';
  const path = join(dir, 'ca.crt');
  writeFileSync(path, Buffer.from(cluster.caData, 'base64'));
  return path;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const path = resolve(process.env[E2E_KUBECONFIG_ENV] ?? '');
  if (!existsSync(path)) throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: no such file (the e2e project needs an admin kubeconfig of the cluster to test)`);
  const kubectl = kubectlBinary();
  if (!kubectl) throw setupError('the e2e project needs kubectl: `npm run testbed:build` builds it, or put one on PATH');
  const kc = new KubeConfig();
  try {
    kc.loadFromString(readFileSync(path, 'utf8'));
  } catch (err) {
    throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: not a kubeconfig: ${reasonOf(err)}`);
  }
  const server = kc.getCurrentCluster()?.server ?? '';
  if (!server) throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: the current context names no cluster with a server`);
  // Any user client-node can authenticate works (token, client certificate, exec plugin): the suite's raw requests
  // (test/support/raw-api.ts) authenticate through client-node too.
  if (!kc.getCurrentUser()) throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: the current context names no user (one with a token, a client certificate or an exec plugin is needed)`);
  await checkAnswers(kc, server, path);
  // kmaint's ServiceAccount kubeconfig (install-kmaint.ts) verifies the API server with the same CA.
  if (server.startsWith('https:') && !kc.getCurrentCluster()?.caFile && !kc.getCurrentCluster()?.caData) {
    throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: the cluster has no certificate-authority or certificate-authority-data (the suite verifies the API server)`);
  }

  const nodes = await kc
    .makeApiClient(CoreV1Api)
    .listNode()
    .then((l) => l.items)
    .catch((err: unknown) => {
      throw setupError(`${E2E_KUBECONFIG_ENV}=${path}: listing the nodes of ${server} failed (an admin kubeconfig is needed): ${reasonOf(err)}`);
    });
  const general = nodes.filter((n) => n.metadata?.labels?.['kmaint.io/pool'] === 'general');
  if (general.length < MIN_GENERAL_NODES) {
    throw setupError(
      `the e2e cluster ${server} needs at least ${MIN_GENERAL_NODES} nodes labelled ${GENERAL_POOL} (disposable nodes the suite cordons and drains), has ${general.length}: kubectl label node NAME ${GENERAL_POOL}`,
    );
  }

  // The suite counts every node (exact wait messages, the hygiene check after each file): all must start Ready and
  // schedulable, or the first file fails somewhere far from the cause.
  const unfit = nodes.flatMap((n) => {
    const why = [
      ...(n.spec?.unschedulable === true ? ['cordoned'] : []),
      ...(n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? [] : ['not Ready']),
    ];
    return why.length > 0 ? [`${n.metadata?.name ?? ''} (${why.join(', ')})`] : [];
  });
  if (unfit.length > 0) {
    throw setupError(`the e2e cluster ${server} needs every node Ready and schedulable (the suite's checks count them all), but not: ${unfit.join(', ')}`);
  }

  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-e2e-'));
  const target = { kubectl, kubeconfigPath: path, server, caFile: caFileOf(kc, dir), dir };
  await installKmaint(target);
  const kmaintKubeconfigPath = await writeServiceAccountKubeconfig(target);
  process.stderr.write(`[e2e] kmaint installed in ${((Date.now() - started) / 1000).toFixed(1)} s at ${server}: ${nodes.length} nodes, ${general.length} in ${GENERAL_POOL} (${dir})\n`);
  const inventory = inventoryOf(nodes);
  const lacked = INVENTORY_FACILITIES.filter((f) => !inventory.includes(f));
  if (lacked.length > 0) process.stderr.write(`[e2e] the cluster's nodes lack what some tests need, counted not applicable on e2e: ${lacked.join('; ')}\n`);
  const info: TestbedInfo = {
    cluster: 'e2e',
    dir,
    server,
    caFile: target.caFile,
    kubeconfigPath: path,
    kmaintKubeconfigPath,
    kmaintUser: KMAINT_SERVICE_ACCOUNT_USER,
    auditPath: '',
    kubectl,
    nodes: nodes.map((n) => n.metadata?.name ?? ''),
  };
  project.provide('testbeds', [info]);
  project.provide('nodeInventory', inventory);
  return notApplicableReport(project, dir, 'e2e', 'on e2e');
}
