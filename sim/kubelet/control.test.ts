// The kubelet control handle over loopback HTTP: what it passes to the kubelet, and its answers to bad requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdKubeletStatusPosts, rebootKubeletNode, serveKubeletControl, setKubeletNodeReady, setKubeletRebootComesBack, type KubeletControlServer, type KubeletControls } from './control.ts';

const calls: Array<[string, boolean, Record<string, unknown>]> = [];
const holds: Array<[string, boolean]> = [];
const reboots: Array<[string, boolean]> = [];
const rebootedNow: string[] = [];
const controls: KubeletControls = {
  hasNode: (name) => name === 'node-001',
  setNodeReady: (name, ready, options = {}) => {
    calls.push([name, ready, options]);
    return Promise.resolve();
  },
  holdStatusPosts: (name, held) => {
    holds.push([name, held]);
    return Promise.resolve();
  },
  setRebootComesBack: (name, comesBack) => {
    reboots.push([name, comesBack]);
    return Promise.resolve();
  },
  rebootNode: (name) => {
    rebootedNow.push(name);
    return Promise.resolve();
  },
};
let server: KubeletControlServer;

beforeAll(async () => {
  server = await serveKubeletControl(controls);
});
afterAll(async () => {
  await server.close();
});

async function post(path: string, body: string): Promise<[number, string]> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return [res.status, await res.text()];
}

describe('kubelet control handle', () => {
  it('listens on 127.0.0.1 and passes ready and its options to the kubelet', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    calls.length = 0;
    await setKubeletNodeReady(server.url, 'node-001', false, { stopHeartbeats: false, message: 'm' });
    await setKubeletNodeReady(server.url, 'node-001', true);
    expect(calls).toEqual([
      ['node-001', false, { stopHeartbeats: false, message: 'm' }],
      ['node-001', true, {}],
    ]);
  });

  it.each<[string, string, string, number, string]>([
    ['an unknown node', '/nodes/node-999/ready', '{"ready":false}', 404, '{"error":"the simulated kubelet does not run node node-999"}'],
    ['a body without ready', '/nodes/node-001/ready', '{"stopHeartbeats":true}', 400, '{"error":"body: ready: Invalid input: expected boolean, received undefined"}'],
    ['an unknown field', '/nodes/node-001/ready', '{"ready":true,"zone":"a"}', 400, '{"error":"body: (root): Unrecognized key: \\"zone\\""}'],
    ['a route it does not serve', '/nodes/node-001/cordon', '{}', 404, '{"error":"no route POST /nodes/node-001/cordon (POST /nodes/<name>/ready, /status-posts, /reboots or /reboot-now)"}'],
    ['status posts of an unknown node', '/nodes/node-999/status-posts', '{"held":true}', 404, '{"error":"the simulated kubelet does not run node node-999"}'],
    ['status posts without held', '/nodes/node-001/status-posts', '{"ready":true}', 400, '{"error":"body: held: Invalid input: expected boolean, received undefined; (root): Unrecognized key: \\"ready\\""}'],
  ])('refuses %s', async (_what, path, body, code, answer) => {
    calls.length = 0;
    holds.length = 0;
    expect(await post(path, body)).toEqual([code, answer]);
    expect(calls).toEqual([]);
    expect(holds).toEqual([]);
  });

  it('passes a hold of status posts, and its release, to the kubelet', async () => {
    holds.length = 0;
    await holdKubeletStatusPosts(server.url, 'node-001', true);
    await holdKubeletStatusPosts(server.url, 'node-001', false);
    expect(holds).toEqual([
      ['node-001', true],
      ['node-001', false],
    ]);
    await expect(holdKubeletStatusPosts(server.url, 'node-999', true)).rejects.toThrow('simulated kubelet control: node node-999 status posts held=true: HTTP 404 {"error":"the simulated kubelet does not run node node-999"}');
  });

  it('passes whether reboots come back to the kubelet, and refuses an unknown node', async () => {
    reboots.length = 0;
    await setKubeletRebootComesBack(server.url, 'node-001', false);
    await setKubeletRebootComesBack(server.url, 'node-001', true);
    expect(reboots).toEqual([
      ['node-001', false],
      ['node-001', true],
    ]);
    await expect(setKubeletRebootComesBack(server.url, 'node-999', false)).rejects.toThrow('simulated kubelet control: node node-999 reboots come back=false: HTTP 404 {"error":"the simulated kubelet does not run node node-999"}');
  });

  it('the client names the node and the answer on failure', async () => {
    await expect(setKubeletNodeReady(server.url, 'node-999', false)).rejects.toThrow('simulated kubelet control: node node-999 ready=false: HTTP 404 {"error":"the simulated kubelet does not run node node-999"}');
  });

  it('passes a reboot from outside (the fake EC2\'s) to the kubelet, and refuses an unknown node or a body', async () => {
    rebootedNow.length = 0;
    await rebootKubeletNode(server.url, 'node-001');
    expect(rebootedNow).toEqual(['node-001']);
    await expect(rebootKubeletNode(server.url, 'node-999')).rejects.toThrow('simulated kubelet control: node node-999 reboot now: HTTP 404 {"error":"the simulated kubelet does not run node node-999"}');
    expect(await post('/nodes/node-001/reboot-now', '{"comesBack":true}')).toEqual([400, '{"error":"body: (root): Unrecognized key: \\"comesBack\\""}']);
    expect(rebootedNow).toEqual(['node-001']);
  });
});
