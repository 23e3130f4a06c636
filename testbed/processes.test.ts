import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PICK_RANGE, freePort, portBindable } from './processes.ts';

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A random source that yields the given fractions of the pick range in turn. */
const sequence = (...ports: number[]): (() => number) => {
  let i = 0;
  return () => ((ports[i++ % ports.length] ?? PICK_RANGE.from) - PICK_RANGE.from + 0.5) / (PICK_RANGE.to - PICK_RANGE.from);
};

describe('freePort', () => {
  it('picks below the ephemeral range, so no outgoing connection can take the port before its component binds it', async () => {
    const [low, high] = (await import('node:fs')).readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    expect(PICK_RANGE.to <= (low ?? 0) || PICK_RANGE.from > (high ?? 0)).toBe(true);
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(PICK_RANGE.from);
    expect(port).toBeLessThan(PICK_RANGE.to);
  });

  it('skips a port something listens on and never hands out the same port twice in one process', async () => {
    // Two ports found free by a throwaway pick; the first is then bound by a server of this test.
    const a = await freePort();
    const b = await freePort();
    const server = createServer();
    held.push(server);
    await new Promise<void>((r) => server.listen(a + 1, '127.0.0.1', r));
    expect(await portBindable(a + 1, '127.0.0.1')).toBe(false);
    // Offered: a (handed out already), a + 1 (bound), then b + 1.
    const next = await freePort(sequence(a, a + 1, b + 1));
    expect(next).toBe(b + 1);
  });
});
