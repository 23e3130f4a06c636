// Keys, certificates, tokens and kubeconfigs for one testbed, written into its directory with openssl.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestbedCredentials {
  caFile: string;
  certFile: string;
  keyFile: string;
  saKeyFile: string;
  saPubFile: string;
  tokenFile: string;
  adminToken: string;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr || String(err)}`, { cause: err });
  }
}

/** A CA, a serving certificate for 127.0.0.1, a service-account key pair and a static admin token. */
export function writeCredentials(dir: string): TestbedCredentials {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30', '-subj', '/CN=kmaint-testbed-ca'], dir);
  writeFileSync(
    join(dir, 'serving.ext'),
    'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' +
      'extendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n',
  );
  openssl(['req', ...ec, '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver'], dir);
  openssl(['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '30', '-extfile', 'serving.ext'], dir);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', 'sa.key'], dir);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  const adminToken = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${adminToken},kmaint-testbed-admin,kmaint-testbed-admin,"system:masters"\n`, { mode: 0o600 });
  return {
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'apiserver.crt'),
    keyFile: join(dir, 'apiserver.key'),
    saKeyFile: join(dir, 'sa.key'),
    saPubFile: join(dir, 'sa.pub'),
    tokenFile: join(dir, 'tokens.csv'),
    adminToken,
  };
}

/** A kubeconfig for `server` authenticating with a bearer token. */
export function kubeconfigYaml(opts: { server: string; caFile: string; token: string; user: string; cluster?: string }): string {
  const ca = readFileSync(opts.caFile).toString('base64');
  const cluster = opts.cluster ?? 'kmaint-testbed';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${cluster}`,
    '  cluster:',
    `    server: ${opts.server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${opts.user}`,
    '  user:',
    `    token: ${opts.token}`,
    'contexts:',
    `- name: ${opts.user}@${cluster}`,
    '  context:',
    `    cluster: ${cluster}`,
    `    user: ${opts.user}`,
    `current-context: ${opts.user}@${cluster}`,
    '',
  ].join('\n');
}
