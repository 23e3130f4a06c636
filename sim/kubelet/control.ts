// A loopback HTTP handle on a running simulated kubelet, for tests in other processes (vitest workers) than the one
// that runs it (the testbed's global setup): make one Node's kubelet report NotReady, or Ready again.
//
//   POST /nodes/<name>/ready   {"ready": false, "stopHeartbeats": false, "freezePods": false, "reason": "...", "message": "..."}
//   -> 204; 404 {"error"} for a node this kubelet does not run; 400 {"error"} for a body that is not as above.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** What the handle needs of the kubelet (SimKubelet has it). */
export interface KubeletControls {
  setNodeReady(name: string, ready: boolean, options?: { stopHeartbeats?: boolean; freezePods?: boolean; reason?: string; message?: string }): Promise<void>;
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

async function handle(controls: KubeletControls, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = /^\/nodes\/([^/]+)\/ready$/.exec(req.url ?? '');
  if (req.method !== 'POST' || !match) return reply(res, 404, { error: `no route ${req.method ?? ''} ${req.url ?? ''} (POST /nodes/<name>/ready)` });
  const name = decodeURIComponent(match[1] as string);
  let parsed: z.infer<typeof readyBody>;
  try {
    const r = readyBody.safeParse(JSON.parse(await readBody(req)));
    if (!r.success) return reply(res, 400, { error: `body: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` });
    parsed = r.data;
  } catch (err) {
    return reply(res, 400, { error: `body: ${err instanceof Error ? err.message : String(err)}` });
  }
  if (!controls.hasNode(name)) return reply(res, 404, { error: `the simulated kubelet does not run node ${name}` });
  const { ready, ...options } = parsed;
  await controls.setNodeReady(name, ready, options);
  reply(res, 204);
}

/** Serves `controls` on 127.0.0.1 (any free port). */
export async function serveKubeletControl(controls: KubeletControls): Promise<KubeletControlServer> {
  const server = createServer((req, res) => {
    handle(controls, req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: err instanceof Error ? err.message : String(err) });
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
