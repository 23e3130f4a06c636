import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { HostPodSpecError, apiServerAddress, containerArgv, containerEnv, containerUser, imageName, isHostPod } from './host-pod-spec.ts';

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
