// A real host process (as root, in its own mount namespace) with a stand-in for the bundle that reports what it sees.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { HostProcesses, SERVICE_ACCOUNT_DIR, hostProcessUnsupported, type TokenSource } from './host-process.ts';
import { silentLogger } from './logger.ts';

const unsupported = hostProcessUnsupported();
if (unsupported !== undefined) process.stderr.write(`[sim/kubelet/host-process] NOT RUN: ${unsupported}; counted as skipped\n`);

const BUNDLE = `
import { readFileSync, writeFileSync } from 'node:fs';
const dir = '${SERVICE_ACCOUNT_DIR}';
const [mode, code] = process.argv.slice(2);
if (mode === 'wait') { setInterval(() => undefined, 1000); }
else {
  let write = 'allowed';
  try { writeFileSync(dir + '/token', 'x'); } catch (e) { write = e.code; }
  const file = (f) => readFileSync(dir + '/' + f, 'utf8');
  console.log(JSON.stringify({ argv: process.argv.slice(2), uid: process.getuid(), gid: process.getgid(), token: file('token'), ca: file('ca.crt'), namespace: file('namespace'),
    kubeconfig: process.env.KUBECONFIG ?? null, home: process.env.HOME, host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, ns: process.env.KMAINT_NAMESPACE, write }));
  process.exit(Number(code));
}
`;

function aPod(uid: string, command: string[]): V1Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: 'ops', uid },
    spec: {
      nodeName: 'node-001',
      serviceAccountName: 'kmp-kmaint',
      securityContext: { runAsUser: 1000, runAsGroup: 1000 },
      containers: [{ name: 'kmaint', image: 'kmaint:0.1.0', command, env: [{ name: 'KMAINT_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }] }],
    },
  };
}

describe.skipIf(unsupported !== undefined)('a kmaint pod run as a host process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-host-process-test-'));
  chmodSync(dir, 0o755);
  const bundle = join(dir, 'bundle.mjs');
  writeFileSync(bundle, BUNDLE, { mode: 0o644 });
  const asked: string[] = [];
  const tokens: TokenSource = {
    createPodToken: (namespace, serviceAccount, pod) => {
      asked.push(`${namespace}/${serviceAccount} for ${pod.name} ${pod.uid}`);
      return Promise.resolve(`token-of-${pod.uid}`);
    },
    readConfigMapKey: (namespace, name, key) => Promise.resolve(`${namespace}/${name}/${key}`),
  };
  const exits: string[] = [];
  const exited = (uid: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => (exits.includes(uid) ? resolve() : void setTimeout(check, 50));
      check();
    });
  const hosts = new HostProcesses(tokens, { bundle, logDir: dir, apiServer: { host: '127.0.0.1', port: 31234 } }, silentLogger, (uid) => exits.push(uid));

  afterAll(async () => {
    await hosts.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gets the pod's token, CA and namespace at the in-cluster path, read-only and for it alone, as the pod's user, and its exit code", async () => {
    await hosts.start(aPod('u-1', ['kmaint', 'check', '3']));
    await exited('u-1');
    expect(hosts.state('u-1')).toMatchObject({ state: 'exited', exitCode: 3 });
    const seen = JSON.parse(readFileSync(join(dir, 'pods', 'ops_pod-u-1_u-1', 'kmaint', '0.log'), 'utf8')) as Record<string, unknown>;
    expect(seen).toEqual({
      argv: ['check', '3'],
      uid: 1000,
      gid: 1000,
      token: 'token-of-u-1',
      ca: 'ops/kube-root-ca.crt/ca.crt',
      namespace: 'ops',
      kubeconfig: null,
      home: expect.stringMatching(/\/home$/),
      host: '127.0.0.1',
      port: '31234',
      ns: 'ops',
      write: 'EROFS',
    });
    expect(asked).toEqual(['ops/kmp-kmaint for pod-u-1 u-1']);
    // The host's own /run never saw the mount.
    expect(existsSync(join(SERVICE_ACCOUNT_DIR, 'token'))).toBe(false);
  });

  it('stop sends SIGTERM: a process that does not handle it ends 143', async () => {
    await hosts.start(aPod('u-2', ['kmaint', 'wait']));
    expect(hosts.facts('u-2')).toEqual({ state: 'running' });
    hosts.stop('u-2', 30);
    expect(hosts.facts('u-2')).toEqual({ state: 'stopping' });
    await exited('u-2');
    expect(hosts.facts('u-2')).toMatchObject({ state: 'exited', exitCode: 143 });
  });

  it('a pod it cannot start ends 128 with the reason', async () => {
    await hosts.start(aPod('u-3', ['sh', '-c', 'id']));
    expect(hosts.facts('u-3')).toMatchObject({ state: 'exited', exitCode: 128, message: 'command "sh": a host process can only run the image\'s kmaint command' });
  });

  it.each([
    ['u-4', 'ghcr.io/acme/kmaint:0.1.0', 'image ghcr.io/acme/kmaint:0.1.0: the simulated kubelet pulls only from a registry on loopback'],
    ['u-5', '127.0.0.1:5000/kmaint:0.1.0', 'image 127.0.0.1:5000/kmaint:0.1.0: no image tool to pull it with (npm run image:build builds it)'],
  ])('a pod whose image names a registry it cannot pull from ends 128 with the reason (%s %s)', async (uid, image, message) => {
    const pod = aPod(uid, ['kmaint', 'run', 'scheduler']);
    const container = pod.spec?.containers[0];
    if (container) container.image = image;
    await hosts.start(pod);
    expect(hosts.facts(uid)).toEqual({ state: 'exited', finishedMs: expect.any(Number) as number, exitCode: 128, message });
  });
});
