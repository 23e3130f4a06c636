// Raw HTTP requests to the cluster under test as its admin, for contract tests that compare status codes, Status
// bodies and headers exactly (client-node would turn them into exceptions and drop the headers).
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { testbed } from './cluster.ts';

export interface RawResponse {
  status: number;
  /** The parsed JSON body ({} when it is not JSON). */
  body: Record<string, unknown>;
  text: string;
  headers: IncomingHttpHeaders;
  /** Each Warning header, in the order sent (headers.warning joins them). */
  warnings: string[];
}

export interface RawRequestOptions {
  body?: unknown;
  /** @default application/json (application/merge-patch+json, application/json-patch+json for PATCH) */
  contentType?: string;
  /** Whose credentials: the admin's, or kmaint's ServiceAccount (infra/base RBAC on the testbed). @default 'admin' */
  as?: 'admin' | 'kmaint';
  /** @default application/json */
  accept?: string;
}

/**
 * Kubeconfigs loaded once per file and kept: each caches what an exec plugin printed (until its expiry) and its TLS
 * agent, so a plugin does not run for every request.
 */
const kubeConfigs = new Map<string, KubeConfig>();

function kubeConfigAt(path: string): KubeConfig {
  let kc = kubeConfigs.get(path);
  if (!kc) {
    kc = new KubeConfig();
    kc.loadFromFile(path);
    kubeConfigs.set(path, kc);
  }
  return kc;
}

/** TLS options and headers (client-node only writes an object of headers). */
type Credentials = Omit<RequestOptions, 'headers'> & { headers?: OutgoingHttpHeaders };

/**
 * How the kubeconfig's current user authenticates and verifies the server, as client-node does it: a bearer token, a
 * client certificate or an exec plugin's credential, and the cluster's CA (file or embedded data). Over plain HTTP
 * (the sim, whose request log names the user its token stands for) only the token: client-node builds no agent there.
 */
async function credentialsOf(kc: KubeConfig, url: URL): Promise<Credentials> {
  if (url.protocol !== 'https:') return { headers: { authorization: `Bearer ${kc.getCurrentUser()?.token ?? ''}` } };
  const opts: Credentials = {};
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

/** One request to `path` (with its query) on the cluster's API server, as the admin unless told otherwise. */
export async function rawApi(method: string, path: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
  const info = testbed();
  const url = new URL(path, info.server);
  const credentials = await credentialsOf(kubeConfigAt(opts.as === 'kmaint' ? info.kmaintKubeconfigPath : info.kubeconfigPath), url);
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: OutgoingHttpHeaders = { ...credentials.headers, accept: opts.accept ?? 'application/json' };
  if (payload !== undefined) {
    headers['content-type'] = opts.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
        } catch {
          // not JSON
        }
        const warnings: string[] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]?.toLowerCase() === 'warning') warnings.push(res.rawHeaders[i + 1] ?? '');
        resolve({ status: res.statusCode ?? 0, body, text, headers: res.headers, warnings });
      });
    };
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...credentials, method, headers }, onResponse)
        : httpRequest(url, { method, headers }, onResponse);
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.end(payload);
  });
}
