// The scheduler's read of kured's blockers (issue 43): both alerts APIs' shapes, the RE2 name filters, and a real
// loopback server for a read that answers, one that fails and one that is not there (unreachable: blocks).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlockerSettings } from './reboot-blockers-config.ts';
import { blockingAlertNames, blockingPodsByNode, parseAlerts, readAlerts } from './reboot-blockers-read.ts';

const AM_BODY = [
  { labels: { alertname: 'NodeDiskFull', severity: 'critical' }, status: { state: 'active' } },
  { labels: { alertname: 'Watchdog' }, status: { state: 'active' } },
  { labels: { alertname: 'Silenced' }, status: { state: 'suppressed' } },
];
const PROM_BODY = { status: 'success', data: { alerts: [{ labels: { alertname: 'KubeNodeNotReady' }, state: 'firing' }, { labels: { alertname: 'Soon' }, state: 'pending' }] } };

describe('alerts as either API gives them', () => {
  it('reads Alertmanager v2 and Prometheus v1 shapes; anything else is undefined', () => {
    expect(parseAlerts('alertmanager', AM_BODY)).toEqual([{ name: 'NodeDiskFull', firing: true }, { name: 'Watchdog', firing: true }, { name: 'Silenced', firing: false }]);
    expect(parseAlerts('prometheus', PROM_BODY)).toEqual([{ name: 'KubeNodeNotReady', firing: true }, { name: 'Soon', firing: false }]);
    expect(parseAlerts('prometheus', AM_BODY)).toBeUndefined();
    expect(parseAlerts('alertmanager', PROM_BODY)).toBeUndefined();
  });

  const seen = [{ name: 'NodeDiskFull', firing: true }, { name: 'Watchdog', firing: true }, { name: 'Silenced', firing: false }, { name: 'NodeDiskFull', firing: true }];
  it.each([
    { rule: 'no filter, firing only: every firing alert, unique and sorted', settings: { firingOnly: true }, names: ['NodeDiskFull', 'Watchdog'] },
    { rule: 'firingOnly false counts the others too', settings: { firingOnly: false }, names: ['NodeDiskFull', 'Silenced', 'Watchdog'] },
    { rule: 'ignoreNameRegexp drops matching names (kured --alert-filter-regexp)', settings: { firingOnly: true, ignoreNameRegexp: '^Watchdog$' }, names: ['NodeDiskFull'] },
    { rule: 'nameRegexp keeps only matching names', settings: { firingOnly: true, nameRegexp: 'Disk' }, names: ['NodeDiskFull'] },
  ])('$rule', ({ settings, names }) => {
    expect(blockingAlertNames(seen, settings)).toEqual(names);
  });

  it('blocking pods per node: finished pods and unbound pods block nothing', () => {
    const pod = (ns: string, name: string, node: string, phase: string) => ({ metadata: { namespace: ns, name }, spec: { nodeName: node }, status: { phase } });
    expect(blockingPodsByNode([pod('db', 'z', 'n1', 'Running'), pod('db', 'a', 'n1', 'Pending'), pod('db', 'done', 'n2', 'Succeeded'), pod('db', 'x', '', 'Pending')])).toEqual(new Map([['n1', ['db/a', 'db/z']]]));
  });

  it('spec.rebootBlockers with its defaults; absent is undefined', () => {
    const config = (spec: Record<string, unknown>) => ({ metadata: { name: 'default', namespace: 'kmaint' }, spec });
    expect(loadBlockerSettings(config({}))).toBeUndefined();
    expect(loadBlockerSettings(config({ rebootBlockers: { blockingPodSelector: 'app=db', alerts: { url: 'http://am:9093/' } } }))).toEqual({
      podSelector: 'app=db',
      alerts: { url: 'http://am:9093', api: 'alertmanager', firingOnly: true, timeoutSeconds: 5 },
    });
  });
});

describe('readAlerts against a loopback server', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/api/v2/alerts') return void res.setHeader('content-type', 'application/json').end(JSON.stringify(AM_BODY));
      if (req.url === '/api/v1/alerts') return void res.writeHead(503).end('down');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('firing names; an HTTP error, a bad regexp and a closed port are unreachable with why', async () => {
    const base = { api: 'alertmanager' as const, firingOnly: true, timeoutSeconds: 5 };
    expect(await readAlerts({ ...base, url, ignoreNameRegexp: 'Watchdog' })).toEqual({ kind: 'firing', url, names: ['NodeDiskFull'] });
    expect(await readAlerts({ ...base, url, nameRegexp: 'Nothing' })).toEqual({ kind: 'quiet', url });
    expect(await readAlerts({ ...base, url, api: 'prometheus' })).toEqual({ kind: 'unreachable', url, problem: '/api/v1/alerts answered HTTP 503' });
    expect((await readAlerts({ ...base, url, nameRegexp: '(' })).kind).toBe('unreachable');
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const closed = await readAlerts({ ...base, url: `http://127.0.0.1:${port}` });
    expect(closed.kind).toBe('unreachable');
    expect(closed.kind === 'unreachable' ? closed.problem : '').toMatch(/^fetch failed: .*ECONNREFUSED/);
  });
});
