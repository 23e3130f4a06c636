import { rfc3339Seconds } from '../../shared/api/index.ts';
import { describe, expect, it } from 'vitest';
import { containerId, exitedStatusPatch, podIpFor, runningStatusPatch, succeededStatusPatch } from './pod-status.ts';
import type { PodView } from './pod-view.ts';

const T0 = Date.parse('2025-03-01T10:00:00.750Z');
const pod: PodView = {
  uid: 'u1',
  namespace: 'web',
  name: 'p',
  resourceVersion: '1',
  generation: 1,
  nodeName: 'node-001',
  labels: {},
  phase: 'Pending',
  ready: false,
  scheduled: false,
  deleting: false,
  terminationGraceSeconds: 30,
  mirror: false,
  job: false,
  containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
  initContainers: [],
};

describe('pod status bodies', () => {
  it('rfc3339Seconds writes RFC 3339 seconds', () => expect(rfc3339Seconds(T0)).toBe('2025-03-01T10:00:00Z'));

  it('a running, ready pod', () => {
    const { status } = runningStatusPatch(pod, { now: T0, startedAt: T0, ready: true, podIP: '10.64.1.2', hostIP: '10.1.0.11' });
    expect(status).toMatchObject({
      phase: 'Running',
      podIP: '10.64.1.2',
      podIPs: [{ ip: '10.64.1.2' }],
      hostIP: '10.1.0.11',
      hostIPs: [{ ip: '10.1.0.11' }],
      startTime: '2025-03-01T10:00:00Z',
      observedGeneration: 1,
      containerStatuses: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          imageID: expect.stringMatching(/^registry\.k8s\.io\/pause@sha256:[0-9a-f]{64}$/),
          containerID: expect.stringMatching(/^containerd:\/\/[0-9a-f]{64}$/),
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: '2025-03-01T10:00:00Z' } },
        },
      ],
    });
    const conditions = (status.conditions as Array<{ type: string; status: string }>).map((c) => `${c.type}=${c.status}`);
    expect(conditions).toEqual(['PodScheduled=True', 'PodReadyToStartContainers=True', 'Initialized=True', 'ContainersReady=True', 'Ready=True']);
  });

  it('a pod the scheduler placed keeps its own PodScheduled condition', () => {
    const { status } = runningStatusPatch({ ...pod, scheduled: true }, { now: T0, startedAt: T0, ready: false, podIP: 'x', hostIP: 'y' });
    const conditions = (status.conditions as Array<{ type: string; status: string }>).map((c) => `${c.type}=${c.status}`);
    expect(conditions).toEqual(['PodReadyToStartContainers=True', 'Initialized=True', 'ContainersReady=False', 'Ready=False']);
  });

  it('init containers are reported completed', () => {
    const { status } = runningStatusPatch({ ...pod, initContainers: [{ name: 'init', image: 'pause' }] }, { now: T0, startedAt: T0, ready: true, podIP: 'x', hostIP: 'y' });
    expect(status.initContainerStatuses).toMatchObject([{ name: 'init', ready: true, state: { terminated: { exitCode: 0, reason: 'Completed' } } }]);
  });

  it('a succeeded pod: containers exited 0, not Ready', () => {
    const { status } = succeededStatusPatch(pod, { now: T0 + 60_000, startedAt: T0 });
    expect(status).toMatchObject({
      phase: 'Succeeded',
      containerStatuses: [{ ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: '2025-03-01T10:01:00Z' } } }],
    });
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'False', reason: 'PodCompleted' }));
  });

  it.each([
    ['exit 0: Succeeded, Completed', 0, undefined, 'Succeeded', { exitCode: 0, reason: 'Completed' }, 'PodCompleted'],
    ['exit 1: Failed, Error', 1, undefined, 'Failed', { exitCode: 1, reason: 'Error' }, 'PodFailed'],
    ['never started: Failed, StartError with the reason', 128, 'no ConfigMap', 'Failed', { exitCode: 128, reason: 'StartError', message: 'no ConfigMap' }, 'PodFailed'],
  ] as const)('a host process that exited, %s', (_rule, exitCode, message, phase, terminated, notReady) => {
    const { status } = exitedStatusPatch(pod, { now: T0 + 61_000, startedAt: T0, finishedAt: T0 + 60_000, exitCode, ...(message ? { message } : {}) });
    expect(status).toMatchObject({
      phase,
      containerStatuses: [{ name: 'main', ready: false, started: false, state: { terminated: { ...terminated, startedAt: '2025-03-01T10:00:00Z', finishedAt: '2025-03-01T10:01:00Z' } } }],
    });
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'False', reason: notReady }));
  });

  it('container ids are stable per pod and container', () => {
    expect(containerId('u1', 'main')).toBe(containerId('u1', 'main'));
    expect(containerId('u1', 'main')).not.toBe(containerId('u2', 'main'));
  });

  it.each([
    ['10.64.3.0/24', 0, '10.64.3.2'],
    ['10.64.3.0/24', 249, '10.64.3.251'],
    ['10.64.3.0/24', 250, '10.64.3.2'],
    ['garbage', 1, '10.244.0.3'],
  ])('pod IP from %s #%i is %s', (cidr, n, ip) => expect(podIpFor(cidr, n)).toBe(ip));
});
