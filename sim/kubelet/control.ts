// A loopback HTTP handle on a running simulated kubelet, for tests in other processes (vitest workers) than the one
// that runs it (the testbed's global setup): make one Node's kubelet report NotReady, or Ready again; hold its
// periodic status posts, or let them go.
//
//   POST /nodes/<name>/ready          {"ready": false, "stopHeartbeats": false, "freezePods": false, "reason": "...", "message": "..."}
//   POST /nodes/<name>/status-posts   {"held": true}
//   POST /nodes/<name>/reboots        {"comesBack": false}   (its reboots by kmaint's reboot pod never come back)
//   POST /nodes/<name>/reboot-now     {}                     (the machine is rebooted from outside, as by EC2 RebootInstances)
//   -> 204; 404 {"error"} for a node this kubelet does not run; 400 {"error"} for a body that is not as above.
import { errorMessage } from '../../shared/errors/index.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** What the handle needs of the kubelet (SimKubelet has it). */
export interface KubeletControls {
  setNodeReady(name: string, ready: boolean, options?: { stopHeartbeats?: boolean; freezePods?: boolean; reason?: string; message?: string }): Promise<void>;
  holdStatusPosts(name: string, held: boolean): Promise<void>;
  setRebootComesBack(name: string, comesBack: boolean): Promise<void>;
  /** The node reboots now, as the reboot pod makes it (a cloud API's reboot in tests: the fake EC2 calls this). */
  rebootNode(name: string): Promise<void>;
  hasNode(name: string): boolean;
}

export interface KubeletControlServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

const readyBody = z.strictObject({
  ready: z.boolean(),
  stopHeartbeats: z.boolean().optional(),
  freezePods: z.boolean().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

const statusPostsBody = z.strictObject({ held: z.boolean() });

const rebootsBody = z.strictObject({ comesBack: z.boolean() });

const rebootNowBody = z.strictObject({});

const MAX_BODY = 64 * 1024;

function reply(res: ServerResponse, code: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(code).end();
    return;
  }
  res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new RangeError(`body larger than ${MAX_BODY} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The body as `schema` says, or undefined once a 400 is answered. */
async function parseBody<T>(req: IncomingMessage, res: ServerResponse, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    const r = schema.safeParse(JSON.parse(await readBody(req)));
    if (!r.success) throw new Error(r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
    return r.data;
  } catch (err) {
    reply(res, 400, { error: `body: ${errorMessage(err)}` });
    return undefined;
  }
}

async function handle(controls: KubeletControls, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = /^\/nodes\/([^/]+)\/(ready|status-posts|reboots|reboot-now)$/.exec(req.url ?? '');
  if (req.method !== 'POST' || !match) return reply(res, 404, { error: `no route ${req.method ?? ''} ${req.url ?? ''} (POST /nodes/<name>/ready, /status-posts, /reboots or /reboot-now)` });
  const name = decodeURIComponent(match[1] as string);
  if (match[2] === 'reboot-now') {
    if (!(await parseBody(req, res, rebootNowBody))) return;
    if (!controls.hasNode(name)) return reply(res, 404, { error: `the simulated kubelet does not run node ${name}` });
    await controls.rebootNode(name);
    return reply(res, 204);
  }
  if (match[2] === 'reboots') {
    const parsed = await parseBody(req, res, rebootsBody);
    if (!parsed) return;
    if (!controls.hasNode(name)) return reply(res, 404, { error: `the simulated kubelet does not run node ${name}` });
    await controls.setRebootComesBack(name, parsed.comesBack);
    return reply(res, 204);
  }
  if (match[2] === 'status-posts') {
    const parsed = await parseBody(req, res, statusPostsBody);
    if (!parsed) return;
    if (!controls.hasNode(name)) return reply(res, 404, { error: `the simulated kubelet does not run node ${name}` });
    await controls.holdStatusPosts(name, parsed.held);
    return reply(res, 204);
  }
  const parsed = await parseBody(req, res, readyBody);
  if (!parsed) return;
  if (!controls.hasNode(name)) return reply(res, 404, { error: `the simulated kubelet does not run node ${name}` });
  const { ready, ...options } = parsed;
  await controls.setNodeReady(name, ready, options);
  reply(res, 204);
}

/** Serves `controls` on 127.0.0.1 (any free port). */
export async function serveKubeletControl(controls: KubeletControls): Promise<KubeletControlServer> {
  const server = createServer((req, res) => {
    handle(controls, req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: errorMessage(err) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Client side: one Node's kubelet reports Ready=`ready` (NotReady keeps heartbeats unless told otherwise). */
export async function setKubeletNodeReady(url: string, node: string, ready: boolean, options: { stopHeartbeats?: boolean; freezePods?: boolean; reason?: string; message?: string } = {}): Promise<void> {
  const res = await fetch(`${url}/nodes/${encodeURIComponent(node)}/ready`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ready, ...options }) });
  if (res.status !== 204) throw new Error(`simulated kubelet control: node ${node} ready=${ready}: HTTP ${res.status} ${await res.text()}`);
}

/** Client side: hold one Node's periodic status posts (its Lease is still renewed), or let them go. */
export async function holdKubeletStatusPosts(url: string, node: string, held: boolean): Promise<void> {
  const res = await fetch(`${url}/nodes/${encodeURIComponent(node)}/status-posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ held }) });
  if (res.status !== 204) throw new Error(`simulated kubelet control: node ${node} status posts held=${held}: HTTP ${res.status} ${await res.text()}`);
}

/** Client side: one Node's reboots by kmaint's reboot pod come back (true) or leave it NotReady (false). */
export async function setKubeletRebootComesBack(url: string, node: string, comesBack: boolean): Promise<void> {
  const res = await fetch(`${url}/nodes/${encodeURIComponent(node)}/reboots`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ comesBack }) });
  if (res.status !== 204) throw new Error(`simulated kubelet control: node ${node} reboots come back=${comesBack}: HTTP ${res.status} ${await res.text()}`);
}

/** Client side: one Node's machine reboots now, as a cloud API's reboot would make it (the fake EC2 of tests). */
export async function rebootKubeletNode(url: string, node: string): Promise<void> {
  const res = await fetch(`${url}/nodes/${encodeURIComponent(node)}/reboot-now`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status !== 204) throw new Error(`simulated kubelet control: node ${node} reboot now: HTTP ${res.status} ${await res.text()}`);
}
