// A fault-injecting HTTP(S) proxy in front of a Kubernetes API server (testbed, sim or a real cluster): per verb and
// resource it answers 500, 503, 429 (with Retry-After), 409, 410 or 403 itself, delays requests, or closes the connection before
// forwarding or after the API server answered (the write happened, the client saw an error). Seeded, and it counts
// every fault it injects.
//
// Built on node:http/https rather than a proxy library (http-proxy, http-proxy-middleware, undici's Agent): a drop
// after send needs to hold the upstream answer back and then close the client's socket, a drop before send needs the
// socket before anything is forwarded, and the whole forwarding path is ~60 lines here; the libraries expose neither
// point cleanly and http-proxy has had no release since 2020.
import { createServer as createHttpServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRng } from '../../sim/generator/prng.ts';
import { decideFault, FAULT_KINDS, requestTarget, validateRules, type FaultKind, type FaultRule, type RequestTarget } from './fault-rules.ts';

export interface FaultProxyOptions {
  /** The API server, e.g. https://127.0.0.1:6443 or http://127.0.0.1:8080. */
  upstream: string;
  /** CA bundle that signed the upstream's serving certificate (PEM); omitted: the system's roots. */
  upstreamCa?: string | Buffer;
  /** Client certificate and key presented upstream (kubeconfigs with client-certificate auth). Bearer tokens pass through as headers. */
  upstreamClientCert?: { cert: string | Buffer; key: string | Buffer };
  /** Serve HTTPS with this certificate; omitted: plain HTTP (loopback only, clients need `skipTLSVerify`). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** First matching rule decides; no match, no fault. @default [] (a transparent proxy) */
  rules?: readonly FaultRule[];
  seed: number;
  /** @default 0 (any free port) */
  port?: number;
  /** Called for each injected fault, after it is counted. */
  onFault?: (event: { kind: FaultKind; target: RequestTarget; method: string; path: string }) => void;
}

export interface FaultCounts {
  /** Requests received. */
  requests: number;
  /** Requests the API server saw (passed through, or dropped after send). */
  forwarded: number;
  /** Injected faults by kind. */
  faults: Record<FaultKind, number>;
  /** Requests delayed by latency or jitter, and the delay added in all. */
  delayed: number;
  delayMsTotal: number;
  /** Upstream failures answered with 502 (not injected). */
  upstreamErrors: number;
}

export interface FaultProxy {
  /** Where clients connect: https://127.0.0.1:PORT or http://127.0.0.1:PORT. */
  url: string;
  readonly counts: FaultCounts;
  /** Replaces the rules (the random stream goes on). */
  setRules(rules: readonly FaultRule[]): void;
  /** Total injected faults. */
  faultTotal(): number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 7.6.1) are the connection's own, never forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

type StatusFault = '500' | '503' | '429' | '409' | '410' | '403';

const STATUS_REASON: Record<StatusFault, string> = {
  '410': 'Expired',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
  '429': 'TooManyRequests',
  '409': 'Conflict',
  '403': 'Forbidden',
};

function endToEnd(headers: IncomingMessage['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

/** A metav1.Status the way the API server writes one. */
function injectedStatus(res: ServerResponse, kind: StatusFault, target: RequestTarget, retryAfterSeconds: number): void {
  const code = Number(kind);
  // The API server's own words for an expired continue token (storage.NewResourceExpired in the apiserver's etcd3 store).
  const message =
    kind === '410'
      ? `injected fault: The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.`
      : `injected fault: ${code} ${STATUS_REASON[kind]} on ${target.verb} ${target.resource || '(non-resource)'}`;
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: STATUS_REASON[kind],
    details: { retryAfterSeconds: kind === '429' ? retryAfterSeconds : undefined },
    code,
  });
  const headers: OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (kind === '429') headers['retry-after'] = String(retryAfterSeconds);
  res.writeHead(code, headers).end(body);
}

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  let rules: readonly FaultRule[] = opts.rules ?? [];
  const injectedByRule = new Map<FaultRule, number>();
  validateRules(rules);
  const rng = createRng(opts.seed);
  const upstream = new URL(opts.upstream);
  const secureUpstream = upstream.protocol === 'https:';
  const agent = secureUpstream
    ? new HttpsAgent({ keepAlive: true, ...(opts.upstreamCa ? { ca: opts.upstreamCa } : {}), ...(opts.upstreamClientCert ?? {}) })
    : new HttpAgent({ keepAlive: true });
  const counts: FaultCounts = { requests: 0, forwarded: 0, faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>, delayed: 0, delayMsTotal: 0, upstreamErrors: 0 };
  const timers = new Set<NodeJS.Timeout>();

  const injected = (kind: FaultKind, target: RequestTarget, req: IncomingMessage): void => {
    counts.faults[kind]++;
    opts.onFault?.({ kind, target, method: req.method ?? '', path: req.url ?? '' });
  };

  const forward = (req: IncomingMessage, res: ServerResponse, dropAfter: boolean): void => {
    counts.forwarded++;
    const headers = endToEnd(req.headers);
    headers['host'] = upstream.host;
    const upstreamReq = (secureUpstream ? httpsRequest : httpRequest)(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
      (upstreamRes) => {
        if (dropAfter) {
          // Read the whole answer so the API server has finished, then hang up on the client without a byte of it.
          upstreamRes.resume();
          upstreamRes.on('end', () => req.socket.destroy());
          upstreamRes.on('error', () => req.socket.destroy());
          return;
        }
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEnd(upstreamRes.headers));
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
      },
    );
    upstreamReq.on('error', (err) => {
      counts.upstreamErrors++;
      if (res.headersSent) return void res.destroy();
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `fault proxy: upstream ${upstream.host}: ${err.message}`, reason: 'ServiceUnavailable', code: 502 });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    // The client going away mid-request must not leave the upstream request hanging.
    res.on('close', () => {
      if (!res.writableFinished && !dropAfter) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    counts.requests++;
    const target = requestTarget(req.method ?? 'GET', req.url ?? '/');
    // Decided on arrival, so the fault of the n-th request depends only on the seed and n.
    const decision = decideFault(target, rules, rng, injectedByRule);
    const act = (): void => {
      switch (decision.fault) {
        case 'drop-before':
          injected('drop-before', target, req);
          req.socket.destroy();
          return;
        case '500':
        case '503':
        case '429':
        case '409':
        case '410':
        case '403':
          injected(decision.fault, target, req);
          req.resume();
          injectedStatus(res, decision.fault, target, decision.retryAfterSeconds);
          return;
        case 'drop-after':
          injected('drop-after', target, req);
          forward(req, res, true);
          return;
        case undefined:
          forward(req, res, false);
      }
    };
    if (decision.delayMs > 0) {
      counts.delayed++;
      counts.delayMsTotal += decision.delayMs;
      const t = setTimeout(() => {
        timers.delete(t);
        act();
      }, decision.delayMs);
      timers.add(t);
    } else {
      act();
    }
  };

  const server: Server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, onRequest) : createHttpServer(onRequest);
  // A client hanging up (also our own drops) is no reason to log or crash.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    counts,
    setRules(next) {
      validateRules(next);
      rules = next;
    },
    faultTotal: () => Object.values(counts.faults).reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
