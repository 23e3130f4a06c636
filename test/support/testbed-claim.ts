// A test file's exclusive hold on one of the project's control planes: the testbed project runs as many files at once as
// it has testbeds, and each file claims a free one for its whole run, so no two files ever share a control plane.
//
// The claim is a Linux abstract Unix socket named after the testbed's directory, bound by the claiming process. The
// kernel gives a name to one socket at a time and frees it when the socket closes or its process dies, however it dies:
// there is no lock file to go stale, and no window in which two claimants can both take over a dead holder's claim.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { TestbedInfo } from './testbed-info.ts';

export interface TestbedClaim {
  info: TestbedInfo;
  release(): void;
}

/** The abstract socket name (leading NUL) that stands for a claim on the testbed in `dir`. */
export function claimSocketName(dir: string): string {
  return `\0kmaint-testbed-claim-${createHash('sha256').update(dir).digest('hex').slice(0, 32)}`;
}

/** Binds the claim socket of `info` if nobody holds it; undefined when it is held. */
function tryClaim(info: TestbedInfo): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(undefined);
      else reject(err);
    });
    server.listen({ path: claimSocketName(info.dir) }, () => {
      // The claim never keeps the process alive by itself.
      server.unref();
      resolve(server);
    });
  });
}

export interface ClaimOptions {
  timeoutMs?: number;
  pollMs?: number;
  /** Called each time every testbed was found held, before the claimant waits pollMs to ask again. */
  onAllHeld?: (round: number) => void;
}

/** Waits for a free control plane among `testbeds` (first free first) and holds it until `release()`. */
export async function claimTestbed(testbeds: readonly TestbedInfo[], opts: ClaimOptions = {}): Promise<TestbedClaim> {
  if (testbeds.length === 0) throw new Error('no testbed to claim: the project\'s global setup provided none');
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const deadline = Date.now() + timeoutMs;
  for (let round = 1; ; round++) {
    for (const info of testbeds) {
      const server = await tryClaim(info);
      if (server) {
        return {
          info,
          release: () => {
            server.close();
          },
        };
      }
    }
    if (Date.now() > deadline) throw new Error(`no testbed came free in ${timeoutMs / 1000} s: all ${testbeds.length} are claimed by live processes`);
    opts.onAllHeld?.(round);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
  }
}

/** The claim this worker process holds (test files run one after another in a worker: the project's `isolate: false`). */
let workerHeld: TestbedClaim | undefined;

/**
 * The claim for the file about to run in this worker: the worker's own, kept from its first file to its exit (the
 * kernel frees it when the process ends), or a new one the first time. A claim given back at each file's end was not
 * always given back before the worker's next file claimed: in one testbed project run a worker held two testbeds at
 * once and the files of other workers waited up to 168 s for one (329 s of the project's 1,510 s summed over files).
 * Files still never share a control plane: a worker runs one file at a time.
 */
export async function workerClaim(testbeds: readonly TestbedInfo[], opts: ClaimOptions = {}): Promise<TestbedClaim> {
  if (workerHeld !== undefined && testbeds.some((t) => t.dir === workerHeld?.info.dir)) return workerHeld;
  workerHeld?.release();
  workerHeld = await claimTestbed(testbeds, opts);
  return workerHeld;
}
