// Claims on the testbed project's control planes (abstract Unix sockets; no cluster needed). Claimants in this process
// stand for the test files of other workers: the kernel refuses a held name to any socket, whichever process asks.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { claimSocketName, claimTestbed, workerClaim } from './testbed-claim.ts';
import type { TestbedInfo } from './testbed-info.ts';

/** `n` testbeds' info for the claim, each with a directory of its own, removed when the test ends. */
function testbeds(n: number): TestbedInfo[] {
  const dirs = Array.from({ length: n }, (_, i) => mkdtempSync(join(tmpdir(), `kmaint-claim-${i}-`)));
  onTestFinished(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return dirs.map((dir, i) => ({
    cluster: 'testbed',
    dir,
    server: `https://127.0.0.1:${6443 + i}`,
    caFile: '',
    kubeconfigPath: '',
    kmaintKubeconfigPath: '',
    kmaintUser: '',
    auditPath: '',
    kubectl: 'kubectl',
    nodes: [],
  }));
}

describe('claimTestbed', () => {
  it('gives two claimants different testbeds; a third waits until one is released, then gets that one', async () => {
    const tbs = testbeds(2);
    const a = await claimTestbed(tbs);
    const b = await claimTestbed(tbs);
    expect([a.info.server, b.info.server]).toEqual(['https://127.0.0.1:6443', 'https://127.0.0.1:6444']);
    let third: string | undefined;
    // The third claimant reports each time it found both held; after its third refusal, a is given back.
    let heldRounds = 0;
    let thirdRefused: () => void = () => undefined;
    const refusedThrice = new Promise<void>((r) => (thirdRefused = r));
    const waiting = claimTestbed(tbs, {
      pollMs: 10,
      onAllHeld: (round) => {
        heldRounds = round;
        if (round === 3) thirdRefused();
      },
    }).then((c) => {
      third = c.info.server;
      return c;
    });
    await refusedThrice;
    expect([third, heldRounds]).toEqual([undefined, 3]);
    a.release();
    const c = await waiting;
    expect(third).toBe('https://127.0.0.1:6443');
    b.release();
    c.release();
  });

  it('waits while every testbed is held, and fails after its timeout naming the count', async () => {
    const tbs = testbeds(2);
    const held = [await claimTestbed(tbs), await claimTestbed(tbs)];
    await expect(claimTestbed(tbs, { timeoutMs: 150, pollMs: 20 })).rejects.toThrow('no testbed came free in 0.15 s: all 2 are claimed by live processes');
    for (const h of held) h.release();
  });

  it('a claim held by another process keeps the testbed from this one until that process is killed (SIGKILL: no hook runs), then it is free at once', async () => {
    const tbs = testbeds(1);
    const name = claimSocketName(tbs[0]?.dir ?? '');
    const script = `require('node:net').createServer().listen({ path: ${JSON.stringify(name)} }, () => process.stdout.write('bound\\n'))`;
    const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('bound')) resolve();
      });
      holder.once('exit', (code) => reject(new Error(`the holder exited with ${String(code)} before binding`)));
    });
    await expect(claimTestbed(tbs, { timeoutMs: 200, pollMs: 20 })).rejects.toThrow('no testbed came free in 0.2 s: all 1 are claimed by live processes');
    const exited = new Promise((r) => holder.once('exit', r));
    holder.kill('SIGKILL');
    await exited;
    const claim = await claimTestbed(tbs, { timeoutMs: 1000, pollMs: 20 });
    expect(claim.info.server).toBe('https://127.0.0.1:6443');
    claim.release();
  });

  it('eight claimants asking at the same moment for the last free testbed: exactly one gets it', async () => {
    const tbs = testbeds(1);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => claimTestbed(tbs, { timeoutMs: 100, pollMs: 20 })));
    const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect([won.length, outcomes.filter((o) => o.status === 'rejected').length]).toEqual([1, 7]);
    for (const w of won) w.release();
  });
});

describe('workerClaim', () => {
  it("keeps the worker's claim from file to file: the same testbed, still refused to others; a new project's testbeds replace it", async () => {
    const tbs = testbeds(2);
    const first = await workerClaim(tbs);
    const second = await workerClaim(tbs);
    expect([second, second.info.dir]).toEqual([first, tbs[0]?.dir]);
    // Another worker gets the other testbed, and none is left.
    const other = await claimTestbed(tbs);
    expect(other.info.dir).toBe(tbs[1]?.dir);
    await expect(claimTestbed(tbs, { timeoutMs: 100, pollMs: 20 })).rejects.toThrow('no testbed came free in 0.1 s: all 2 are claimed by live processes');
    // Testbeds of another run: the old claim goes back, and a testbed of the new list is claimed.
    const next = testbeds(1);
    const moved = await workerClaim(next);
    expect(moved.info.dir).toBe(next[0]?.dir);
    const freed = await claimTestbed(tbs, { timeoutMs: 1000, pollMs: 20 });
    expect(freed.info.dir).toBe(tbs[0]?.dir);
    for (const c of [moved, other, freed]) c.release();
  });
});
