// startSimApiServer(): the embedded Kubernetes API server on 127.0.0.1 over plain HTTP, in memory, with request
// accounting and seeded fault injection.
import { errorMessage } from '../../shared/errors/index.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { serverClock, type ClockSource, type SimContext } from './context.ts';
import { readCrdFiles } from './crds.ts';
import { ApiError, conflict, internalError, tooManyRequests } from './errors.ts';
import { FaultInjector } from './faults.ts';
import type { JsonObject } from './json-value.ts';
import { KindRegistry } from './kind-registry.ts';
import { LocalApi } from './local-api.ts';
import { requestBodyText } from './request-body.ts';
import { RequestLog, type RequestEntry, type RequestFilter } from './request-log.ts';
import { parsePath } from './request-path.ts';
import { describeRequest, discoveryReply, errorReply, resourceReply, type ApiRequest, type Reply } from './routes.ts';
import { Store } from './store.ts';
import { createObject } from './writes.ts';

export interface SimApiServerOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** CRDs installed before the server answers: paths of YAML files or directories, or CRD objects. */
  crds?: ReadonlyArray<string | JsonObject>;
  /** Timestamps (creation, deletion, conditions, ages). @default the real clock */
  clock?: ClockSource;
  /** Random source for generateName suffixes. @default Math.random */
  random?: () => number;
  /** Store events kept for watches to resume from (a 5,000-node cluster heartbeats ~600 writes/s). @default 50000 */
  watchHistorySize?: number;
  /** Request log entries kept, oldest dropped first (the unfiltered counts cover every request). @default 200000 */
  requestLogLimit?: number;
  /** See AdmissionOptions.taintNewNodes. @default false */
  taintNewNodes?: boolean;
  /** Namespaces that exist from the start (each with its default ServiceAccount). */
  namespaces?: readonly string[];
  /** Serve DeviceTaintRules (resource.k8s.io/v1alpha3); false: as a cluster with the DRA device-taint gates off. @default true */
  deviceTaintRules?: boolean;
}

export interface KubeConfigOptions {
  /** Sent as the bearer token and recorded as the request's `user`. @default "admin" */
  user?: string;
}

export interface SimApiServer {
  readonly url: string;
  readonly port: number;
  readonly faults: FaultInjector;
  /** The same verbs in-process, without HTTP and without request accounting (fast seeding, controllers). */
  readonly local: LocalApi;
  /** The store and served kinds, for in-process helpers that need more than `local`. */
  readonly context: SimContext;
  kubeConfig(options?: KubeConfigOptions): KubeConfig;
  kubeconfigYaml(options?: KubeConfigOptions): string;
  /** Writes `kubeconfig` (or `kubeconfig-<user>`) into `dir` and returns its path. */
  kubeconfigPath(dir: string, options?: KubeConfigOptions): string;
  requests(filter?: RequestFilter): RequestEntry[];
  /**
   * By "verb resource", by HTTP code and by user. Without a filter these cover every request since start;
   * with one, only the entries still kept (see requestLogLimit).
   */
  requestCounts(filter?: RequestFilter): { byVerb: Record<string, number>; byCode: Record<string, number>; byUser: Record<string, number> };
  /** Position in the request log; pass it as `since` to count only later requests. */
  mark(): number;
  stop(): Promise<void>;
}

export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function writeReply(res: ServerResponse, reply: Extract<Reply, { type: 'body' }>): void {
  const length = reply.pieces.reduce((n, p) => n + Buffer.byteLength(p), 0);
  res.writeHead(reply.code, { 'Content-Type': reply.contentType, 'Content-Length': length, 'Cache-Control': 'no-cache, private', ...(reply.headers ?? {}) });
  for (const p of reply.pieces) res.write(p);
  res.end();
}

export async function startSimApiServer(options: SimApiServerOptions = {}): Promise<SimApiServer> {
  let serviceIp = 0x0a600000 + 10;
  const context: SimContext = {
    store: new Store({ historySize: options.watchHistorySize ?? 50_000 }),
    kinds: new KindRegistry(options.deviceTaintRules === false ? new Set(['resource.k8s.io/devicetaintrules']) : new Set()),
    clock: serverClock(options.clock),
    random: options.random ?? Math.random,
    admission: { taintNewNodes: options.taintNewNodes ?? false },
    nextServiceIp: () => {
      const n = ++serviceIp;
      return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
    },
  };
  const nsKind = context.kinds.lookup('', 'v1', 'namespaces');
  for (const ns of options.namespaces ?? DEFAULT_NAMESPACES) if (nsKind) createObject(context, nsKind, '', { metadata: { name: ns } });
  const crdKind = context.kinds.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  const crds = (options.crds ?? []).flatMap((c) => (typeof c === 'string' ? readCrdFiles([c]) : [c]));
  for (const crd of crds) if (crdKind) createObject(context, crdKind, '', crd);

  const log = new RequestLog(options.requestLogLimit);
  const faults = new FaultInjector();
  const watches = new Set<() => void>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    const parsed = parsePath(url.pathname);
    const info = describeRequest(method, parsed, url.searchParams);
    const auth = req.headers.authorization ?? '';
    const entry: RequestEntry = { ...info, code: 0, uri: req.url ?? '/', user: auth.startsWith('Bearer ') ? auth.slice(7) : '', at: new Date(context.clock.now()).toISOString() };
    const body = await readBody(req);
    const decision = faults.decide(info.verb, info.resource);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    const failure = decision.failure;
    if (failure) entry.fault = String(failure.kind);
    if (failure?.kind === 'drop-before') {
      log.record(entry);
      req.socket.destroy();
      return;
    }
    let reply: Reply;
    try {
      if (failure?.kind === 500) throw internalError('injected fault');
      if (failure?.kind === 429) throw tooManyRequests('the server has received too many requests and has asked us to try again later (injected fault)', failure.retryAfterSeconds);
      if (failure?.kind === 409) throw conflict({ group: '', resource: info.resource }, info.name ?? '');
      const decoded = requestBodyText(body, req.headers['content-type']);
      const request: ApiRequest = { method, url, accept: req.headers.accept, contentType: decoded.contentType, body: decoded.text, host: req.headers.host ?? '' };
      reply = parsed.type === 'resource' ? resourceReply(context, request, parsed) : discoveryReply(context, request, parsed);
    } catch (err) {
      reply = errorReply(err instanceof ApiError ? err : internalError(errorMessage(err)));
    }
    if (failure?.kind === 'drop-after') {
      log.record(entry);
      req.socket.destroy();
      return;
    }
    if (reply.type === 'body') {
      entry.code = reply.code;
      log.record(entry);
      writeReply(res, reply);
      return;
    }
    entry.code = 200;
    log.record(entry);
    res.writeHead(200, { 'Content-Type': reply.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    let stop: () => void = () => undefined;
    const close = (): void => {
      stop();
      watches.delete(close);
      if (!res.writableEnded) res.end();
    };
    watches.add(close);
    res.on('close', close);
    stop = reply.start({ write: (t) => void res.write(t), end: close });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) writeReply(res, errorReply(internalError(errorMessage(err))) as Extract<Reply, { type: 'body' }>);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;

  const kubeconfigYaml = (o: KubeConfigOptions = {}): string => {
    const user = o.user ?? 'admin';
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: kmaint-sim',
      '  cluster:',
      `    server: ${url}`,
      // client-node refuses plain HTTP unless TLS verification is off; there is no TLS to verify.
      '    insecure-skip-tls-verify: true',
      'contexts:',
      '- name: kmaint-sim',
      '  context:',
      '    cluster: kmaint-sim',
      `    user: ${user}`,
      'current-context: kmaint-sim',
      'users:',
      `- name: ${user}`,
      '  user:',
      `    token: ${user}`,
      '',
    ].join('\n');
  };

  return {
    url,
    port,
    faults,
    local: new LocalApi(context),
    context,
    kubeConfig: (o = {}) => {
      const kc = new KubeConfig();
      kc.loadFromString(kubeconfigYaml(o));
      return kc;
    },
    kubeconfigYaml,
    kubeconfigPath: (dir, o = {}) => {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, o.user ? `kubeconfig-${o.user}` : 'kubeconfig');
      writeFileSync(path, kubeconfigYaml(o), { mode: 0o600 });
      return path;
    },
    requests: (filter) => log.entries(filter),
    requestCounts: (filter) => ({ byVerb: log.countByVerb(filter), byCode: log.countByCode(filter), byUser: log.countByUser(filter) }),
    mark: () => log.mark(),
    stop: async () => {
      for (const close of [...watches]) close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
