// Raw HTTP requests to the cluster under test as its admin, for contract tests that compare status codes, Status
// bodies and headers exactly (client-node would turn them into exceptions and drop the headers).
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { adminKubeConfig, kmaintKubeConfig, testbed } from './cluster.ts';

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
  /** Whose token: the admin's, or kmaint's ServiceAccount (infra/base RBAC on the testbed). @default 'admin' */
  as?: 'admin' | 'kmaint';
}

/** One request to `path` (with its query) on the cluster's API server, as the admin unless told otherwise. */
export function rawApi(method: string, path: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
  const info = testbed();
  const token = (opts.as === 'kmaint' ? kmaintKubeConfig() : adminKubeConfig()).getCurrentUser()?.token ?? '';
  const url = new URL(path, info.server);
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
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
        ? httpsRequest(url, { method, headers, ca: readFileSync(info.caFile) }, onResponse)
        : httpRequest(url, { method, headers }, onResponse);
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.end(payload);
  });
}
