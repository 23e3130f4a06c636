// Pointing a client at the fault proxy: a self-signed serving certificate for 127.0.0.1, and a copy of a kubeconfig
// whose current cluster is the proxy (same user and credentials).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type Cluster } from '@kubernetes/client-node';

export interface ProxyCertificate {
  cert: string;
  key: string;
}

/** A self-signed EC certificate for IP 127.0.0.1 and localhost, valid one day (openssl, as testbed/certs.ts). */
export function proxyCertificate(): ProxyCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-fault-proxy-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'proxy.key', '-out', 'proxy.crt', '-days', '1',
        '-subj', '/CN=kmaint-fault-proxy', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'extendedKeyUsage=serverAuth'],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(join(dir, 'proxy.crt'), 'utf8'), key: readFileSync(join(dir, 'proxy.key'), 'utf8') };
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    throw new Error(`creating the fault proxy's certificate with openssl: ${stderr || String(err)}`, { cause: err });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `kc` with its current cluster served by the proxy at `url`: trusting `cert` when the proxy speaks HTTPS, skipping
 * verification for plain HTTP (client-node requires the flag for an http:// server).
 */
export function kubeConfigThroughProxy(kc: KubeConfig, url: string, cert?: string): KubeConfig {
  const current = kc.getCurrentCluster();
  const context = kc.getContextObject(kc.getCurrentContext());
  const user = kc.getCurrentUser();
  if (!current || !context || !user) throw new Error('kubeConfigThroughProxy: the kubeconfig has no current context, cluster or user');
  const https = url.startsWith('https:');
  if (https && !cert) throw new Error('kubeConfigThroughProxy: an https proxy needs its certificate');
  const cluster: Cluster = { name: `${current.name}-via-fault-proxy`, server: url, skipTLSVerify: !https, ...(https && cert ? { caData: Buffer.from(cert).toString('base64') } : {}) };
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: [cluster],
    users: [user],
    contexts: [{ name: `${context.name}-via-fault-proxy`, cluster: cluster.name, user: user.name }],
    currentContext: `${context.name}-via-fault-proxy`,
  });
  return out;
}
