// A local OCI registry on loopback for the tests (the image tool's `serve`: go-containerregistry's registry, blobs in
// memory), and pushing the built image there by tag.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LocalRegistry {
  /** `127.0.0.1:PORT`, the registry part of an image reference. */
  host: string;
  /** SIGTERM, awaited. */
  stop(): Promise<void>;
}

/** Starts the registry on 127.0.0.1 with a port the kernel picks; resolves once it answers /v2/. */
export async function startRegistry(tool: string, dir: string): Promise<LocalRegistry> {
  const portFile = join(dir, 'registry.port');
  rmSync(portFile, { force: true });
  const child: ChildProcess = spawn(tool, ['serve', '--addr', '127.0.0.1:0', '--port-file', portFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 15_000;
  // The port file is written once the socket listens (renamed in whole): polling it is the handshake.
  while (!existsSync(portFile)) {
    if (child.exitCode !== null) throw new Error(`the registry exited (${child.exitCode}): ${stderr.trim()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the registry did not listen within 15 s: ${stderr.trim()}`);
    }
    await sleep(50);
  }
  const host = `127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
  const res = await fetch(`http://${host}/v2/`);
  if (res.status !== 200) {
    await stop();
    throw new Error(`the registry at ${host} answered /v2/ with ${res.status}`);
  }
  return { host, stop };
}

/** Pushes the layout's image tagged `tag` to `ref`; returns the manifest digest. */
export function pushImage(tool: string, layout: string, tag: string, ref: string): string {
  const r = spawnSync(tool, ['push', '--layout', layout, '--tag', tag, ref], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pushing ${ref}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}
