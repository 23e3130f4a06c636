// Pulling a container image for a host process, as a kubelet's runtime would: by reference from the registry the
// reference names, unpacked into one root filesystem (layers in order, whiteouts applied) under
// <dir>/images/<digest>/rootfs, with the image's runtime config beside it. The pull itself is the image tool's
// (image/tools: go-containerregistry); only registries on loopback are spoken to (plain HTTP, the tests' registry).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The image config's runtime part (OCI image-spec config.md; the keys as go-containerregistry writes them). */
export interface ImageConfig {
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Env?: string[] | null;
  User?: string;
  WorkingDir?: string;
}

export interface PulledImage {
  ref: string;
  /** The manifest's digest, `sha256:…`. */
  digest: string;
  /** The unpacked root filesystem; shared by the pods of the image, which mount it read-only. */
  rootfs: string;
  config: ImageConfig;
}

export class ImagePullError extends Error {
  override readonly name = 'ImagePullError';
}

function waitExit(child: ReturnType<typeof spawn>, what: string, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(new ImagePullError(`${what}: ${err.message}`, { cause: err })));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new ImagePullError(`${what} failed (exit ${code}): ${stderr().trim().split('\n').slice(-3).join(' | ')}`))));
  });
}

export class ImagePuller {
  private readonly pulls = new Map<string, Promise<PulledImage>>();
  private seq = 0;

  constructor(
    /** The image tool's binary (image/tool.ts). */
    private readonly tool: string,
    private readonly dir: string,
  ) {}

  /**
   * The image, pulled once per reference for the kubelet's life (what imagePullPolicy IfNotPresent does; the chart's
   * default). A failed pull is forgotten, so the next pod tries again, as a kubelet retries after ErrImagePull.
   */
  pull(ref: string): Promise<PulledImage> {
    let p = this.pulls.get(ref);
    if (!p) {
      p = this.fetch(ref);
      this.pulls.set(ref, p);
      p.catch(() => this.pulls.delete(ref));
    }
    return p;
  }

  private async fetch(ref: string): Promise<PulledImage> {
    const images = join(this.dir, 'images');
    const staging = join(images, `pulling-${process.pid}-${++this.seq}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(join(staging, 'rootfs'), { recursive: true });
    const configFile = join(staging, 'config.json');
    try {
      let pullErr = '';
      let tarErr = '';
      const puller = spawn(this.tool, ['pull', '--config-out', configFile, ref], { stdio: ['ignore', 'pipe', 'pipe'] });
      // As root: owners, modes and device nodes as the layers say.
      const tar = spawn('tar', ['-xpf', '-', '--numeric-owner', '-C', join(staging, 'rootfs')], { stdio: ['pipe', 'ignore', 'pipe'] });
      puller.stderr?.on('data', (d: Buffer) => (pullErr += d.toString()));
      tar.stderr?.on('data', (d: Buffer) => (tarErr += d.toString()));
      if (!puller.stdout || !tar.stdin) throw new ImagePullError(`pulling ${ref}: no pipe between the image tool and tar`);
      puller.stdout.pipe(tar.stdin);
      await Promise.all([waitExit(puller, `pulling ${ref}`, () => pullErr), waitExit(tar, `unpacking ${ref}`, () => tarErr)]);
      const pulled = JSON.parse(readFileSync(configFile, 'utf8')) as { digest: string; config: ImageConfig };
      const final = join(images, pulled.digest.replace(':', '-'));
      // Another reference to the same digest may have unpacked it already.
      if (existsSync(final)) rmSync(staging, { recursive: true, force: true });
      else renameSync(staging, final);
      return { ref, digest: pulled.digest, rootfs: join(final, 'rootfs'), config: pulled.config };
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
  }

  /** Removes every unpacked image (the kubelet stops; no pod runs from them any more). */
  async removeAll(): Promise<void> {
    await Promise.allSettled(this.pulls.values());
    this.pulls.clear();
    rmSync(join(this.dir, 'images'), { recursive: true, force: true });
  }
}
