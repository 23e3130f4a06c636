// Installs kmaint on the testbed as a user would (crds/, infra/base) and logs in as its ServiceAccount.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { kubeconfigYaml } from '../../testbed/certs.ts';
import { answerOf, untilEstablished } from '../support/crd-established.ts';

const run = promisify(execFile);

export const KMAINT_SERVICE_ACCOUNT = { namespace: 'kmaint', name: 'kmaint' } as const;
export const KMAINT_SERVICE_ACCOUNT_USER = `system:serviceaccount:${KMAINT_SERVICE_ACCOUNT.namespace}:${KMAINT_SERVICE_ACCOUNT.name}`;
export const KMAINT_CRONJOBS = ['kmaint-scheduler', 'kmaint-drainer', 'kmaint-cleanup', 'kmaint-reaper'] as const;

/** Outlives any test run; the suite takes minutes. */
const TOKEN_SECONDS = 3 * 3600;

export interface InstallTarget {
  kubectl: string;
  /** Admin kubeconfig. */
  kubeconfigPath: string;
  server: string;
  caFile: string;
  /** Where the ServiceAccount's kubeconfig is written. */
  dir: string;
}

type KubectlTarget = Pick<InstallTarget, 'kubectl' | 'kubeconfigPath'>;

async function kubectl(target: KubectlTarget, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(target.kubectl, ['--kubeconfig', target.kubeconfigPath, ...args], { timeout: 60_000 });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`kubectl ${args.join(' ')}: ${stderr.trim() || String(err)}`, { cause: err });
  }
}

/**
 * `kubectl apply -f crds/ && kubectl apply -k infra/base`, then suspends the CronJobs: their image does
 * not exist here, and the tests drive the passes themselves. Jobs a tick created in between are removed.
 */
export async function installKmaint(target: InstallTarget): Promise<void> {
  await kubectl(target, ['apply', '-f', 'crds/']);
  await untilEstablished(answerOf((args) => kubectl(target, args)), ['-f', 'crds/'], 30);
  await kubectl(target, ['apply', '-k', 'infra/base']);
  await suspendCronJobs(target, true);
  await kubectl(target, ['delete', 'jobs', '-n', KMAINT_SERVICE_ACCOUNT.namespace, '--all', '--ignore-not-found']);
}

export async function suspendCronJobs(target: KubectlTarget, suspend: boolean): Promise<void> {
  await kubectl(target, ['patch', 'cronjob', '-n', KMAINT_SERVICE_ACCOUNT.namespace, ...KMAINT_CRONJOBS, '--type=merge', '-p', JSON.stringify({ spec: { suspend } })]);
}

/** A kubeconfig authenticating as ServiceAccount kmaint/kmaint with a token from the TokenRequest API. */
export async function writeServiceAccountKubeconfig(target: InstallTarget): Promise<string> {
  const admin = new KubeConfig();
  admin.loadFromFile(target.kubeconfigPath);
  const core = admin.makeApiClient(CoreV1Api);
  const res = await core.createNamespacedServiceAccountToken({
    ...KMAINT_SERVICE_ACCOUNT,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: TOKEN_SECONDS } },
  });
  const token = res.status?.token;
  if (!token) throw new Error(`TokenRequest for ServiceAccount ${KMAINT_SERVICE_ACCOUNT.namespace}/${KMAINT_SERVICE_ACCOUNT.name} returned no token`);
  const path = join(target.dir, 'kubeconfig-sa-kmaint');
  writeFileSync(path, kubeconfigYaml({ server: target.server, caFile: target.caFile, token, user: 'kmaint-sa' }), { mode: 0o600 });
  return path;
}
