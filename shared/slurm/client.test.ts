// The slurmrestd client against a loopback server replaying Slurm 24.11's responses (shapes from
// ../shared/reference/slurm-notes.md and the real cluster of slurm/), and 26.05's for reservations: every failure comes
// back as a value.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeMaintenance } from '../api/index.ts';
import { applySlurmWrites } from './apply.ts';
import { SlurmRestClient } from './client.ts';
import type { FreshRequests, SlurmWriteGuard } from './guard.ts';
import { describeSlurmWrite, type SlurmWrite } from './view.ts';

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

  it("issue 40: reads Slurm's reason_changed_at (v0.0.40+ as { set, number }, v0.0.39 as a number); 0 or unset is none", async () => {
    route = offering(['v0.0.42'], (path) =>
      path === '/nodes'
        ? {
            status: 200,
            body: {
              nodes: [
                { name: 'n1', state: ['MIXED', 'DRAIN'], reason: 'kmaint: a ns/x', reason_changed_at: { set: true, infinite: false, number: 1767225600 } },
                { name: 'n2', state: ['IDLE', 'DRAIN'], reason: 'admin', reason_changed_at: 1767225601 },
                { name: 'n3', state: ['IDLE'], reason: '', reason_changed_at: { set: true, infinite: false, number: 0 } },
                { name: 'n4', state: ['IDLE'], reason: '', reason_changed_at: { set: false, infinite: false, number: 5 } },
              ],
              errors: [],
            },
          }
        : undefined,
    );
    expect(await client().listNodes()).toEqual({
      ok: true,
      value: [
        { name: 'n1', state: ['MIXED', 'DRAIN'], reason: 'kmaint: a ns/x', reasonSetAt: 1767225600 },
        { name: 'n2', state: ['IDLE', 'DRAIN'], reason: 'admin', reasonSetAt: 1767225601 },
        { name: 'n3', state: ['IDLE'], reason: '' },
        { name: 'n4', state: ['IDLE'], reason: '' },
      ],
    });
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

describe('SlurmRestClient and redirects', () => {
  it('never follows a redirect: the token is not sent to the Location, the call is a problem naming the url', async () => {
    seen.length = 0;
    route = (req) => (req.url === '/slurm/v0.0.42/nodes' ? { status: 307, body: '' } : req.url?.startsWith('/elsewhere') ? NODES : undefined);
    const redirecting = createServer((req, res) => {
      seen.push(`redirected ${req.method ?? ''} ${req.url ?? ''}`);
      res.writeHead(307, { Location: `${base}/elsewhere/nodes` });
      res.end();
    });
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    try {
      const r = await new SlurmRestClient({ url, token: TOKEN, apiVersion: 'v0.0.42', timeoutMs: 2000 }).listNodes();
      expect({ r, seen }).toEqual({ r: { ok: false, problem: { kind: 'unreachable', message: `cannot reach slurmrestd at ${url}: unexpected redirect` } }, seen: ['redirected GET /slurm/v0.0.42/nodes'] });
    } finally {
      await new Promise((done) => redirecting.close(done));
    }
  });
});

// Measured on Slurm 26.05.5's slurmrestd (v0.0.42-v0.0.45; 25.05 offers v0.0.41-v0.0.43, 24.11 v0.0.40-v0.0.42).
const SLURM_26_05 = ['v0.0.42', 'v0.0.43', 'v0.0.44', 'v0.0.45'];
const SLURM_25_05 = ['v0.0.41', 'v0.0.42', 'v0.0.43'];
const SLURM_24_11 = ['v0.0.40', 'v0.0.41', 'v0.0.42'];
const RESV = 'kmaint_ns1_req1';
const START = 1795774464;
/** START plus kmaint's 4 h window: kmaint never creates a reservation without an end. */
const END = START + 4 * 3600;
const CREATE_BODY = `{"name":"kmaint_ns1_req1","start_time":{"set":true,"number":${START}},"end_time":{"set":true,"number":${END}},"node_list":["n1"],"flags":["MAINT","IGNORE_JOBS"],"users":["root"],"comment":"kmaint: upgrade.acme.com ns1/req1"}`;
const CREATED: Reply = {
  status: 200,
  body: {
    reservations: [{ name: RESV, start_time: { set: true, number: START }, duration: { set: true, infinite: true }, node_list: ['n1'], flags: ['MAINT', 'IGNORE_JOBS'], users: ['root'], comment: 'kmaint: upgrade.acme.com ns1/req1' }],
    errors: [],
    warnings: [{ description: 'Slurm accounting storage is disabled. Could not query the following: [TRES].', source: '' }],
  },
};
const CREATE_INVALID: Reply = {
  status: 422,
  body: { errors: [{ description: 'Start time cannot be after end time.  No reservation created.', error_number: 2053, error: 'Requested reservation is invalid', source: 'validate_resv_create_desc' }], warnings: [] },
};
const LISTED: Reply = {
  status: 200,
  body: {
    reservations: [
      {
        name: RESV,
        node_list: 'n1',
        start_time: { set: true, infinite: false, number: START },
        end_time: { set: true, infinite: true, number: 0 },
        flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'],
        users: 'root',
        comment: 'kmaint: upgrade.acme.com ns1/req1',
      },
      { name: 'admin_window', node_list: 'n[1-2]', start_time: { set: true, infinite: false, number: 1795780000 }, end_time: { set: true, infinite: false, number: 1795783600 }, flags: ['MAINT'], users: 'root,alice' },
    ],
    last_update: { set: true, infinite: false, number: 1795774400 },
    errors: [],
    warnings: [],
  },
};
const DELETED: Reply = { status: 200, body: { errors: [], warnings: [] } };
const DELETE_GONE: Reply = {
  status: 422,
  body: { errors: [{ description: `Error deleting reservation ${RESV}`, error_number: 2053, error: 'Requested reservation is invalid', source: 'slurm_delete_reservation' }], warnings: [] },
};
const SPEC = { name: RESV, nodes: ['n1'], startTime: START, endTime: END, users: ['root'], comment: 'kmaint: upgrade.acme.com ns1/req1' };

describe('SlurmRestClient reservations', () => {
  it('26.05: v0.0.45 is taken at the first ping, and kept (one detection per client)', async () => {
    seen.length = 0;
    route = offering(SLURM_26_05, () => undefined);
    const c = client();
    expect(await c.reservationApiVersion()).toEqual({ ok: true, value: 'v0.0.45' });
    expect(await c.reservationApiVersion()).toEqual({ ok: true, value: 'v0.0.45' });
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token']);
  });

  it('25.05 (v0.0.41-v0.0.43): v0.0.45 and v0.0.44 answer 404, v0.0.43 is taken', async () => {
    seen.length = 0;
    route = offering(SLURM_25_05, () => undefined);
    expect(await client().reservationApiVersion()).toEqual({ ok: true, value: 'v0.0.43' });
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', 'GET /slurm/v0.0.44/ping token', 'GET /slurm/v0.0.43/ping token']);
  });

  it("24.11 (v0.0.40-v0.0.42): 'no-version' naming the versions and the Slurm release, for every reservation call", async () => {
    route = offering(SLURM_24_11, () => undefined);
    const c = client();
    const noVersion = {
      ok: false,
      problem: { kind: 'no-version', message: `slurmrestd at ${base} cannot create reservations: it offers none of v0.0.45, v0.0.44, v0.0.43 (Slurm 25.05 or later; older slurmrestd serves reservations read-only)` },
    };
    seen.length = 0;
    expect(await c.reservationApiVersion()).toEqual(noVersion);
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', 'GET /slurm/v0.0.44/ping token', 'GET /slurm/v0.0.43/ping token']);
    expect(await c.listReservations()).toEqual(noVersion);
    expect(await c.createReservation(SPEC)).toEqual(noVersion);
    expect(await c.deleteReservation(RESV)).toEqual(noVersion);
    // The node calls still work on 24.11: the two detections are independent.
    route = offering(SLURM_24_11, (path) => (path === '/nodes' ? NODES : undefined));
    expect((await c.listNodes()).ok).toBe(true);
  });

  it('a ping refused for the token is a token problem, not a missing version', async () => {
    route = () => ({ status: 401, body: 'Authentication failure' });
    const r = await client().reservationApiVersion();
    expect(r).toEqual({ ok: false, problem: { kind: 'token', message: 'detecting the reservation API version: slurmrestd refused the request (401 Authentication failure): no valid token (check spec.slurm.tokenEnv / tokenSecret)' } });
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  it('listReservations reads name, start, end (0 for an infinite one), node list (a string in GET answers) and flags', async () => {
    seen.length = 0;
    route = offering(SLURM_26_05, (path) => (path === '/reservations/' ? LISTED : undefined));
    expect(await client().listReservations()).toEqual({
      ok: true,
      value: [
        { name: RESV, startTime: START, endTime: 0, nodeList: 'n1', flags: ['MAINT', 'IGNORE_JOBS', 'SPEC_NODES'] },
        { name: 'admin_window', startTime: 1795780000, endTime: 1795783600, nodeList: 'n[1-2]', flags: ['MAINT'] },
      ],
    });
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', 'GET /slurm/v0.0.45/reservations/ token']);
  });

  it('listReservations: none is an empty list', async () => {
    route = offering(SLURM_26_05, (path) => (path === '/reservations/' ? { status: 200, body: { reservations: [], last_update: { set: true, infinite: false, number: 1795774400 }, errors: [], warnings: [] } } : undefined));
    expect(await client().listReservations()).toEqual({ ok: true, value: [] });
  });

  it('createReservation POSTs a MAINT,IGNORE_JOBS reservation with its end (never infinite); a 200 with warnings is a success', async () => {
    seen.length = 0;
    route = offering(SLURM_25_05, (path) => (path === '/reservation' ? CREATED : undefined));
    expect(await client().createReservation(SPEC)).toEqual({ ok: true, value: undefined });
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', 'GET /slurm/v0.0.44/ping token', 'GET /slurm/v0.0.43/ping token', `POST /slurm/v0.0.43/reservation token ${CREATE_BODY}`]);
  });

  it('moveReservation POSTs the name with the new start and end (slurmrestd updates the existing reservation in place)', async () => {
    seen.length = 0;
    route = offering(SLURM_26_05, (path) => (path === '/reservation' ? CREATED : undefined));
    expect(await client().moveReservation(RESV, START + 300, START + 300 + 14_400)).toEqual({ ok: true, value: undefined });
    const body = JSON.stringify({ name: RESV, start_time: { set: true, number: START + 300 }, end_time: { set: true, number: START + 300 + 14_400 } });
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', `POST /slurm/v0.0.45/reservation token ${body}`]);
  });

  it("createReservation: a 422 is a 'server' problem with Slurm's text", async () => {
    route = offering(SLURM_26_05, (path) => (path === '/reservation' ? CREATE_INVALID : undefined));
    const r = await client().createReservation(SPEC);
    expect(r).toEqual({
      ok: false,
      problem: { kind: 'server', message: 'creating Slurm reservation kmaint_ns1_req1: slurmrestd answered 422: Requested reservation is invalid: Start time cannot be after end time.  No reservation created. (error 2053)' },
    });
    expect(JSON.stringify(r)).not.toContain(TOKEN);
  });

  interface DeleteRow {
    rule: string;
    reply: Reply;
    expected: unknown;
  }
  const DELETE_ROWS: DeleteRow[] = [
    { rule: '200: deleted', reply: DELETED, expected: { ok: true, value: undefined } },
    { rule: '422 with error 2053 (no such reservation): already deleted', reply: DELETE_GONE, expected: { ok: true, value: undefined } },
    {
      rule: 'a 500 with another error is a problem',
      reply: { status: 500, body: { errors: [{ description: 'Failure to delete reservation', error_number: 9001, error: 'Unspecified error', source: 'slurm_delete_reservation' }], warnings: [] } },
      expected: { ok: false, problem: { kind: 'server', message: 'deleting Slurm reservation kmaint_ns1_req1: slurmrestd answered 500: Unspecified error: Failure to delete reservation (error 9001)' } },
    },
    { rule: 'a 500 without a body is a problem saying its status', reply: { status: 500, body: 'internal error' }, expected: { ok: false, problem: { kind: 'server', message: 'deleting Slurm reservation kmaint_ns1_req1: slurmrestd answered 500: HTTP 500: internal error' } } },
    {
      rule: '2053 next to another error is a problem, not a deletion',
      reply: { status: 422, body: { errors: [...(DELETE_GONE.body as { errors: unknown[] }).errors, { description: 'Failure to delete reservation', error_number: 9001, error: 'Unspecified error' }], warnings: [] } },
      expected: { ok: false, problem: { kind: 'server', message: 'deleting Slurm reservation kmaint_ns1_req1: slurmrestd answered 422: Requested reservation is invalid: Error deleting reservation kmaint_ns1_req1 (error 2053)' } },
    },
    {
      rule: 'a bad token is a token problem',
      reply: { status: 200, body: { errors: [{ description: 'Failure to delete reservation', error_number: 1007, error: 'Protocol authentication error' }], warnings: [] } },
      expected: { ok: false, problem: { kind: 'token', message: 'deleting Slurm reservation kmaint_ns1_req1: slurmrestd rejected the token (200 Protocol authentication error: Failure to delete reservation (error 1007)): check spec.slurm.tokenEnv / tokenSecret' } },
    },
  ];

  it.each(DELETE_ROWS)('deleteReservation: $rule', async (row) => {
    seen.length = 0;
    route = offering(SLURM_26_05, (path) => (path === `/reservation/${RESV}` ? row.reply : undefined));
    const r = await client().deleteReservation(RESV);
    expect(r).toEqual(row.expected);
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    expect(seen).toEqual(['GET /slurm/v0.0.45/ping token', `DELETE /slurm/v0.0.45/reservation/${RESV} token`]);
  });

  it("applySlurmWrites sends the planners' reserve and unreserve and counts them; failures carry the write's line", async () => {
    seen.length = 0;
    let held = false;
    route = offering(SLURM_26_05, (path, body) => {
      if (path === '/reservation' && body === CREATE_BODY) return held ? CREATE_INVALID : ((held = true), CREATED);
      if (path === `/reservation/${RESV}`) return held ? ((held = false), DELETED) : DELETE_GONE;
      return undefined;
    });
    const result = await applySlurmWrites(client(), [RESERVE, RESERVE, UNRESERVE, UNRESERVE], guard(fresh(WANTING)));
    expect(result).toEqual({
      applied: { slurmReserve: 1, slurmUnreserve: 2 },
      withheld: [],
      errors: [
        {
          action: 'slurm reservation kmaint_ns1_req1 (MAINT) on n1 from 2026-11-27T10:14:24Z to 2026-11-27T14:14:24Z for ns1/req1: kmaint.io/not-before 2026-11-27T10:14:24Z',
          error: 'creating Slurm reservation kmaint_ns1_req1: slurmrestd answered 422: Requested reservation is invalid: Start time cannot be after end time.  No reservation created. (error 2053)',
        },
      ],
    });
    expect(seen).toEqual([
      'GET /slurm/v0.0.45/ping token',
      `POST /slurm/v0.0.45/reservation token ${CREATE_BODY}`,
      `POST /slurm/v0.0.45/reservation token ${CREATE_BODY}`,
      `DELETE /slurm/v0.0.45/reservation/${RESV} token`,
      `DELETE /slurm/v0.0.45/reservation/${RESV} token`,
    ]);
    expect(await applySlurmWrites(undefined, [UNRESERVE], guard(undefined))).toEqual({
      applied: {},
      withheld: [],
      errors: [{ action: 'slurm delete reservation kmaint_ns1_req1 for ns1/req1: ns1/req1 deleted; kmaint created it', error: 'no slurmrestd client this pass' }],
    });
  });
});

// The guard (guard.ts) on the wire: what it withholds never reaches slurmrestd.
const MAINTENANCE = { namespace: 'ns1', name: 'req1' };
const RESERVE = { kind: 'slurmReserve' as const, reservation: RESV, nodes: ['n1'], startTime: START, endTime: END, users: ['root'], comment: 'kmaint: upgrade.acme.com ns1/req1', maintenance: MAINTENANCE, why: 'kmaint.io/not-before 2026-11-27T10:14:24Z' };
const UNRESERVE = { kind: 'slurmUnreserve' as const, reservation: RESV, maintenance: MAINTENANCE, why: 'ns1/req1 deleted; kmaint created it' };
const DRAIN = { kind: 'slurmDrain' as const, node: 'n1', reason: 'kmaint: upgrade.acme.com ns1/req1', maintenance: MAINTENANCE, why: 'before evicting pod slurm/slurm-n1' };
const SWEEP_UNDRAIN = { kind: 'slurmUndrain' as const, node: 'n1', maintenance: MAINTENANCE, why: 'kmaint drained it for ns1/req1, which no longer exists', sweep: true as const };
/** An hour before START: not-before is ahead. */
const GUARD_NOW = new Date((START - 3600) * 1000);

function aFreshRequest(annotations: Record<string, string>, more: { deleting?: boolean; uid?: string; phase?: string } = {}): NodeMaintenance {
  return {
    metadata: { name: 'req1', namespace: 'ns1', uid: more.uid ?? 'u1', annotations, ...(more.deleting ? { deletionTimestamp: '2026-11-27T09:00:00Z' } : {}) },
    spec: { requestorID: 'upgrade.acme.com', nodeName: 'w1' },
    status: { conditions: [{ type: 'Ready', status: 'False', reason: more.phase ?? 'Pending', message: '', lastTransitionTime: '2026-11-27T08:00:00Z' }] },
  };
}
/** Pending, not-before ahead, the reservation recorded: it still wants it. */
const WANTING = aFreshRequest({ 'kmaint.io/not-before': '2026-11-27T10:14:24Z', 'kmaint.io/slurm-reservation': RESV });
const DRAINING = aFreshRequest({ 'kmaint.io/slurm-drained': 'n1' }, { phase: 'Draining' });
const fresh = (...nms: NodeMaintenance[]): FreshRequests => ({ kind: 'read', byKey: new Map(nms.map((nm) => [`${nm.metadata.namespace ?? ''}/${nm.metadata.name}`, nm])) });
function guard(read: FreshRequests | undefined, stopped: string[] = []): SlurmWriteGuard {
  return { stopped, planned: new Map([['ns1/req1', WANTING]]), fresh: read, now: GUARD_NOW };
}

interface GuardRow {
  rule: string;
  write: SlurmWrite;
  guard: SlurmWriteGuard;
  why: string;
}
const GUARD_ROWS: GuardRow[] = [
  { rule: 'a reservation whose request was deleted since the plan is not created', write: RESERVE, guard: guard(fresh({ ...WANTING, metadata: { ...WANTING.metadata, deletionTimestamp: '2026-11-27T09:00:00Z' } })), why: 'ns1/req1 is being deleted' },
  { rule: 'a reservation whose request is gone (cleanup let it go) is not created', write: RESERVE, guard: guard(fresh()), why: 'ns1/req1 is gone' },
  { rule: 'a reservation whose request was replaced (same name, new uid) is not created', write: RESERVE, guard: guard(fresh(aFreshRequest(WANTING.metadata.annotations ?? {}, { uid: 'u2' }))), why: 'ns1/req1 was replaced (uid u2)' },
  { rule: 'a reservation its request no longer wants (not-before removed) is not created', write: RESERVE, guard: guard(fresh(aFreshRequest({ 'kmaint.io/slurm-reservation': RESV }))), why: 'ns1/req1 no longer wants Slurm reservation kmaint_ns1_req1' },
  { rule: 'the requests could not be read again: nothing is created', write: RESERVE, guard: guard({ kind: 'unreadable', message: 'HTTP 503' }), why: 'cannot read ns1/req1 again before the write: HTTP 503' },
  { rule: 'a drain whose request was deleted since the plan is not sent', write: DRAIN, guard: guard(fresh({ ...DRAINING, metadata: { ...DRAINING.metadata, deletionTimestamp: '2026-11-27T09:00:00Z' } })), why: 'ns1/req1 is being deleted' },
  { rule: 'a drain its request no longer records is not sent', write: DRAIN, guard: guard(fresh(aFreshRequest({}, { phase: 'Draining' }))), why: 'ns1/req1 no longer records Slurm node n1' },
  { rule: "a request whose Kubernetes writes stopped this pass sends none of its Slurm writes (a delete neither)", write: UNRESERVE, guard: guard(undefined, ['nm/ns1/req1']), why: 'the Kubernetes writes of ns1/req1 stopped this pass' },
  { rule: 'a sweep whose owner exists again (created after the snapshot) is not sent', write: SWEEP_UNDRAIN, guard: guard(fresh(DRAINING)), why: 'ns1/req1 exists again: it owns this state' },
];

describe('applySlurmWrites: the guard', () => {
  it.each(GUARD_ROWS)('$rule', async (row) => {
    seen.length = 0;
    route = offering(SLURM_26_05, () => CREATED);
    const result = await applySlurmWrites(client(), [row.write], row.guard);
    expect({ result, seen }).toEqual({ result: { applied: {}, errors: [], withheld: [{ action: describeSlurmWrite(row.write), why: row.why }] }, seen: [] });
  });

  it('a drain its request still records, and a sweep whose owner is still gone, are sent', async () => {
    seen.length = 0;
    route = offering(['v0.0.40'], (path) => (path === '/node/n1' ? DELETED : undefined));
    const drained = await applySlurmWrites(client('v0.0.40'), [DRAIN], guard(fresh(DRAINING)));
    const swept = await applySlurmWrites(client('v0.0.40'), [SWEEP_UNDRAIN], guard(fresh()));
    expect({ drained, swept }).toEqual({ drained: { applied: { slurmDrain: 1 }, errors: [], withheld: [] }, swept: { applied: { slurmUndrain: 1 }, errors: [], withheld: [] } });
    expect(seen).toEqual([
      'POST /slurm/v0.0.40/node/n1 token {"state":["DRAIN"],"reason":"kmaint: upgrade.acme.com ns1/req1"}',
      'POST /slurm/v0.0.40/node/n1 token {"state":["UNDRAIN"]}',
    ]);
  });
});
