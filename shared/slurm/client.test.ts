// The slurmrestd client against a loopback server replaying Slurm 24.11's responses (shapes from
// ../shared/reference/slurm-notes.md and the real cluster of slurm/): every failure comes back as a value.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlurmRestClient } from './client.ts';

const TOKEN = 'header.claims.signature-not-to-be-logged';

interface Reply {
  status: number;
  body: unknown;
}
type Route = (req: IncomingMessage, body: string) => Reply | undefined;

let server: Server;
let base = '';
let route: Route = () => undefined;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['x-slurm-user-token'] === TOKEN ? 'token' : 'no-token'}${body ? ` ${body}` : ''}`);
      const r = route(req, body) ?? { status: 404, body: 'Unable to find requested URL' };
      res.writeHead(r.status, { 'Content-Type': typeof r.body === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

const PING = { status: 200, body: { pings: [{ pinged: 'UP' }], errors: [], warnings: [] } };
const NODES = {
  status: 200,
  body: {
    nodes: [
      { name: 'n1', state: ['ALLOCATED', 'DRAIN'], reason: 'kmaint: upgrade.acme.com default/nm-1', reason_set_by_user: 'root', alloc_cpus: 0 },
      { name: 'n2', state: ['IDLE'], reason: '' },
    ],
    errors: [],
    warnings: [],
  },
};

/** A server that offers only `versions`, answering `handler` for everything else under them. */
function offering(versions: string[], handler: (path: string, body: string) => Reply | undefined): Route {
  return (req, body) => {
    const m = /^\/slurm\/(v0\.0\.\d+)(\/.*)$/.exec(req.url ?? '');
    if (!m || !versions.includes(m[1] ?? '')) return undefined;
    if (m[2] === '/ping') return PING;
    return handler(m[2] ?? '', body);
  };
}

function client(apiVersion: 'auto' | 'v0.0.40' = 'auto'): SlurmRestClient {
  return new SlurmRestClient({ url: base, token: TOKEN, apiVersion, timeoutMs: 2000 });
}

describe('SlurmRestClient', () => {
  it('detects the newest version offered (v0.0.42 absent -> v0.0.41) and reads state and reason of every node', async () => {
    seen.length = 0;
    route = offering(['v0.0.40', 'v0.0.41'], (path) => (path === '/nodes' ? NODES : undefined));
    const c = client();
    expect(await c.listNodes()).toEqual({
      ok: true,
      value: [
        { name: 'n1', state: ['ALLOCATED', 'DRAIN'], reason: 'kmaint: upgrade.acme.com default/nm-1' },
        { name: 'n2', state: ['IDLE'], reason: '' },
      ],
    });
    expect(seen).toEqual(['GET /slurm/v0.0.42/ping token', 'GET /slurm/v0.0.41/ping token', 'GET /slurm/v0.0.41/nodes token']);
  });

  it('a pinned version is used without probing; drain and undrain POST the state (and our reason)', async () => {
    seen.length = 0;
    route = offering(['v0.0.40'], (path) => (path === '/node/n1' ? { status: 200, body: { errors: [], warnings: [] } } : undefined));
    const c = client('v0.0.40');
    expect(await c.drain('n1', 'kmaint: upgrade.acme.com default/nm-1')).toEqual({ ok: true, value: undefined });
    expect(await c.undrain('n1')).toEqual({ ok: true, value: undefined });
    expect(seen).toEqual(['POST /slurm/v0.0.40/node/n1 token {"state":["DRAIN"],"reason":"kmaint: upgrade.acme.com default/nm-1"}', 'POST /slurm/v0.0.40/node/n1 token {"state":["UNDRAIN"]}']);
  });

  interface ErrorRow {
    rule: string;
    reply: Reply;
    call: 'list' | 'drain';
    kind: string;
    message: string;
  }
  const ERROR_ROWS: ErrorRow[] = [
    {
      rule: '401 (no or unusable token) is a token problem',
      reply: { status: 401, body: 'Authentication failure' },
      call: 'list',
      kind: 'token',
      message: 'listing Slurm nodes: slurmrestd refused the request (401 Authentication failure): no valid token (check spec.slurm.tokenEnv / tokenSecret)',
    },
    {
      rule: '511 with error 1007 (bad token) is a token problem',
      reply: { status: 511, body: { errors: [{ description: 'Failure to query nodes', error_number: 1007, error: 'Protocol authentication error' }] } },
      call: 'list',
      kind: 'token',
      message: 'listing Slurm nodes: slurmrestd rejected the token (511 Protocol authentication error: Failure to query nodes (error 1007)): check spec.slurm.tokenEnv / tokenSecret',
    },
    {
      rule: '200 carrying error 1007 is a token problem too',
      reply: { status: 200, body: { nodes: [], errors: [{ description: 'Failure to query nodes', error_number: 1007, error: 'Protocol authentication error' }] } },
      call: 'list',
      kind: 'token',
      message: 'listing Slurm nodes: slurmrestd rejected the token (200 Protocol authentication error: Failure to query nodes (error 1007)): check spec.slurm.tokenEnv / tokenSecret',
    },
    {
      rule: '500 with error 2018 on a drain is an unknown node',
      reply: { status: 500, body: { errors: [{ description: 'Failure to update node n9', error_number: 2018, error: 'Invalid node name specified' }] } },
      call: 'drain',
      kind: 'unknown-node',
      message: 'draining Slurm node n9: slurmrestd answered 500: Invalid node name specified: Failure to update node n9 (error 2018)',
    },
    {
      rule: '500 with error 2010 (a token for a non-admin user) is a server problem with its text',
      reply: { status: 500, body: { errors: [{ description: 'Failure to update node n9', error_number: 2010, error: 'Invalid user id' }] } },
      call: 'drain',
      kind: 'server',
      message: 'draining Slurm node n9: slurmrestd answered 500: Invalid user id: Failure to update node n9 (error 2010)',
    },
    {
      rule: '200 with errors[] is not a success',
      reply: { status: 200, body: { nodes: [], errors: [{ description: 'Failure to query node n9', error_number: 9001, error: 'Unspecified error' }] } },
      call: 'list',
      kind: 'unknown-node',
      message: 'listing Slurm nodes: slurmrestd answered 200: Unspecified error: Failure to query node n9 (error 9001)',
    },
    {
      rule: 'a 502 without a body says its status',
      reply: { status: 502, body: 'bad gateway' },
      call: 'list',
      kind: 'server',
      message: 'listing Slurm nodes: slurmrestd answered 502: HTTP 502: bad gateway',
    },
  ];

  it.each(ERROR_ROWS)('$rule', async (row) => {
    route = offering(['v0.0.42'], () => row.reply);
    const c = client();
    const r = row.call === 'list' ? await c.listNodes() : await c.drain('n9', 'kmaint: x default/nm');
    expect(r).toEqual({ ok: false, problem: { kind: row.kind, message: row.message } });
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it('no version offered is a problem naming the versions tried', async () => {
    route = () => undefined;
    expect(await client().listNodes()).toEqual({
      ok: false,
      problem: { kind: 'no-version', message: `slurmrestd at ${base} offers none of v0.0.42, v0.0.41, v0.0.40 (needs Slurm 23.11 or later with openapi/slurmctld)` },
    });
  });

  it('a closed port is "unreachable" with the connection error', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const c = new SlurmRestClient({ url: `http://127.0.0.1:${port}/`, token: TOKEN });
    expect(await c.listNodes()).toEqual({ ok: false, problem: { kind: 'unreachable', message: `cannot reach slurmrestd at http://127.0.0.1:${port}: ECONNREFUSED` } });
  });
});
