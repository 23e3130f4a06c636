import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { HostPodSpecError, apiServerAddress, containerArgv, containerEnv, containerUser, imageArgv, imageName, imageRegistry, imageUser, isHostPod, isLoopbackRegistry } from './host-pod-spec.ts';

/** A CronJob pod as the chart renders it (charts/kmaint/templates/cronjobs.yaml), bound and given addresses. */
function aKmaintPod(over: { image?: string; labels?: Record<string, string>; annotations?: Record<string, string> } = {}): V1Pod {
  return {
    metadata: { name: 'kmp-kmaint-scheduler-29900000-abcde', namespace: 'ops', uid: 'u-1', labels: { 'app.kubernetes.io/name': 'kmaint', ...over.labels }, ...(over.annotations ? { annotations: over.annotations } : {}) },
    spec: {
      nodeName: 'node-002',
      serviceAccountName: 'kmp-kmaint',
      securityContext: { runAsUser: 1000, runAsGroup: 1000 },
      containers: [
        {
          name: 'kmaint',
          image: over.image ?? 'kmaint:0.1.0',
          command: ['kmaint', 'run', 'scheduler', '--timeout', '50s'],
          env: [{ name: 'KMAINT_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
        },
      ],
    },
    status: { podIP: '10.64.2.7', podIPs: [{ ip: '10.64.2.7' }], hostIP: '172.18.0.3', hostIPs: [{ ip: '172.18.0.3' }] },
  };
}

describe('which pods run as host processes', () => {
  it.each([
    ["the chart's image", aKmaintPod(), true],
    ["infra/base's image", aKmaintPod({ image: 'kmaint:latest' }), true],
    ['the image from a registry, with a digest', aKmaintPod({ image: 'ghcr.io/acme/kmaint:1.2@sha256:abc' }), true],
    ['another image', aKmaintPod({ image: 'registry.k8s.io/pause:3.10' }), false],
    ['an image whose name only contains kmaint', aKmaintPod({ image: 'kmaint-exporter:1' }), false],
    ['another image labelled kmaint.io/sim-host-process=true', aKmaintPod({ image: 'busybox', labels: { 'kmaint.io/sim-host-process': 'true' } }), true],
    ['kmaint\'s image with a simulated run time asked for', aKmaintPod({ annotations: { 'kmaint.io/sim-run-seconds': '3600' } }), false],
  ] as const)('%s: %s', (_rule, pod, expected) => {
    expect(isHostPod(pod)).toBe(expected);
  });

  it('the images are configurable', () => expect(isHostPod(aKmaintPod({ image: 'acme/maint:2' }), { images: ['maint'] })).toBe(true));
  it('imageName drops registry, path, tag and digest', () => expect(imageName('localhost:5000/a/b/kmaint:v1@sha256:00')).toBe('kmaint'));
});

describe("the container's command line, user and environment", () => {
  const api = apiServerAddress('https://127.0.0.1:31234');

  it('the image entrypoint kmaint becomes node running the bundle with the pod\'s arguments', () => {
    const container = aKmaintPod().spec?.containers[0];
    expect(containerArgv(container ?? { name: 'x' }, '/usr/bin/node', '/repo/dist/kmaint.mjs')).toEqual(['/usr/bin/node', '/repo/dist/kmaint.mjs', 'run', 'scheduler', '--timeout', '50s']);
  });

  it.each<[string, V1Container, string[]]>([
    ['no command: the image default --help', { name: 'k' }, ['node', 'b.mjs', '--help']],
    ['args after the command', { name: 'k', command: ['kmaint'], args: ['status'] }, ['node', 'b.mjs', 'status']],
  ])('%s', (_rule, container, argv) => expect(containerArgv(container, 'node', 'b.mjs')).toEqual(argv));

  it('a command other than kmaint is refused with the reason', () => {
    expect(() => containerArgv({ name: 'k', command: ['sh', '-c', 'id'] }, 'node', 'b.mjs')).toThrow(new HostPodSpecError('command "sh": a host process can only run the image\'s kmaint command'));
  });

  it('the user is the container\'s, else the pod\'s, else the image\'s 1000:1000', () => {
    const pod = aKmaintPod();
    expect(containerUser(pod, { name: 'k', securityContext: { runAsUser: 2000 } })).toEqual({ uid: 2000, gid: 1000 });
    expect(containerUser({ spec: { containers: [] } }, { name: 'k' })).toEqual({ uid: 1000, gid: 1000 });
  });

  it('the env: service variables on loopback, downward API values, HOME, and nothing of the host (no KUBECONFIG)', () => {
    const pod = aKmaintPod();
    const container = {
      name: 'kmaint',
      env: [
        { name: 'KMAINT_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'HOST_IPS', valueFrom: { fieldRef: { fieldPath: 'status.hostIPs' } } },
        { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app.kubernetes.io/name']" } } },
        { name: 'GREETING', value: 'hello $(POD) $(NOPE)' },
      ],
    };
    expect(containerEnv(pod, container, api, '/tmp/home')).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/tmp/home',
      HOSTNAME: 'kmp-kmaint-scheduler-29900000-abcde',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: '31234',
      KUBERNETES_SERVICE_PORT_HTTPS: '31234',
      KUBERNETES_PORT: 'tcp://127.0.0.1:31234',
      KUBERNETES_PORT_31234_TCP: 'tcp://127.0.0.1:31234',
      KUBERNETES_PORT_31234_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_31234_TCP_PORT: '31234',
      KUBERNETES_PORT_31234_TCP_ADDR: '127.0.0.1',
      KMAINT_NAMESPACE: 'ops',
      POD: 'kmp-kmaint-scheduler-29900000-abcde',
      NODE: 'node-002',
      IP: '10.64.2.7',
      HOST_IPS: '172.18.0.3',
      SA: 'kmp-kmaint',
      APP: 'kmaint',
      GREETING: 'hello kmp-kmaint-scheduler-29900000-abcde $(NOPE)',
    });
  });

  it.each([
    ['an unknown fieldRef', { name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } }, 'env fieldRef spec.hostname is not supported by the downward API'],
    ['a secretKeyRef', { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, 'env X: only value and fieldRef are supported for host processes'],
  ] as const)('%s is refused with the reason', (_rule, env, message) => {
    expect(() => containerEnv(aKmaintPod(), { name: 'k', env: [env] }, api, '/h')).toThrow(new HostPodSpecError(message));
  });

  it('apiServerAddress reads host and port; 443 when the URL has none', () => {
    expect([apiServerAddress('https://127.0.0.1:6443'), apiServerAddress('https://[::1]'), apiServerAddress('https://api.example')]).toEqual([
      { host: '127.0.0.1', port: 6443 },
      { host: '::1', port: 443 },
      { host: 'api.example', port: 443 },
    ]);
  });
});

describe('a container run from its pulled image', () => {
  it.each<[string, string | undefined]>([
    ['kmaint:latest', undefined],
    ['acme/kmaint:1', undefined],
    ['127.0.0.1:41234/kmaint:0.1.0', '127.0.0.1:41234'],
    ['localhost/kmaint:0.1.0', 'localhost'],
    ['ghcr.io/acme/kmaint:1.2@sha256:abc', 'ghcr.io'],
  ])('the registry of %s: %s', (image, registry) => expect(imageRegistry(image)).toBe(registry));

  it.each<[string, boolean]>([
    ['127.0.0.1:41234', true],
    ['localhost:5000', true],
    ['[::1]:5000', true],
    ['127.0.0.2:5000', false],
    ['ghcr.io', false],
  ])('%s is on loopback: %s', (host, loopback) => expect(isLoopbackRegistry(host)).toBe(loopback));

  const config = { Entrypoint: ['kmaint'], Cmd: ['--help'], Env: ['PATH=/usr/local/bin:/usr/bin', 'NODE_ENV=production'], User: '1000:1000', WorkingDir: '/app' };
  it.each<[string, V1Container, string[]]>([
    ['neither command nor args: Entrypoint and Cmd', { name: 'k' }, ['kmaint', '--help']],
    ['args only: Entrypoint with the args', { name: 'k', args: ['status'] }, ['kmaint', 'status']],
    ['command only: the Cmd is dropped', { name: 'k', command: ['kmaint', 'run', 'scheduler'] }, ['kmaint', 'run', 'scheduler']],
    ['command and args', { name: 'k', command: ['node', '-p'], args: ['1'] }, ['node', '-p', '1']],
  ])('the command line, %s', (_rule, container, argv) => expect(imageArgv(container, config)).toEqual(argv));

  it('an image without Entrypoint or Cmd and a pod without command is refused', () => {
    expect(() => imageArgv({ name: 'k', image: 'r:1/x' }, {})).toThrow(new HostPodSpecError('image r:1/x: no command (the pod gives none and the image has no Entrypoint or Cmd)'));
  });

  it.each<[string | undefined, { uid: number; gid: number } | string]>([
    ['1000:1000', { uid: 1000, gid: 1000 }],
    ['1000', { uid: 1000, gid: 1000 }],
    ['65532:2000', { uid: 65532, gid: 2000 }],
    ['', { uid: 0, gid: 0 }],
    [undefined, { uid: 0, gid: 0 }],
    ['kmaint', 'image user "kmaint": only a numeric uid[:gid] is supported for host processes'],
  ])('the image user %s', (user, expected) => {
    if (typeof expected === 'string') expect(() => imageUser(user)).toThrow(new HostPodSpecError(expected));
    else expect(imageUser(user)).toEqual(expected);
  });

  it("the user: the pod's securityContext over the image's", () => {
    expect(containerUser(aKmaintPod(), { name: 'k' }, { uid: 0, gid: 0 })).toEqual({ uid: 1000, gid: 1000 });
    expect(containerUser({ spec: { containers: [] } }, { name: 'k' }, { uid: 65532, gid: 2000 })).toEqual({ uid: 65532, gid: 2000 });
  });

  it("the env: the image's variables under the kubelet's and the container's", () => {
    const env = containerEnv(aKmaintPod(), { name: 'k', env: [{ name: 'NODE_ENV', value: 'test' }] }, apiServerAddress('https://127.0.0.1:6443'), '/', ['PATH=/usr/local/bin:/usr/bin', 'NODE_ENV=production', 'KUBERNETES_SERVICE_HOST=ignored', 'EMPTY=']);
    expect([env['PATH'], env['NODE_ENV'], env['KUBERNETES_SERVICE_HOST'], env['EMPTY'], env['HOME']]).toEqual(['/usr/local/bin:/usr/bin', 'test', '127.0.0.1', '', '/']);
  });
});
