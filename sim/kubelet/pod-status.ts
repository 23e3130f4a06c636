// Pod status bodies the simulated kubelet patches: running (ready or not) and succeeded.
import { rfc3339Seconds } from '../../shared/api/index.ts';
import type { PodView } from './pod-view.ts';

const PAUSE_DIGEST = 'sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a';

/** A stable fake container id: 64 hex digits from the pod uid and container name (FNV-1a rounds). */
export function containerId(podUid: string, container: string): string {
  let out = '';
  let hash = 0x811c9dc5;
  for (let round = 0; out.length < 64; round++) {
    for (const ch of `${round}/${podUid}/${container}`) {
      hash ^= ch.charCodeAt(0);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    out += hash.toString(16).padStart(8, '0');
  }
  return `containerd://${out.slice(0, 64)}`;
}

function imageId(image: string): string {
  return `${image.split(':')[0]}@${PAUSE_DIGEST}`;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason?: string;
}

function condition(type: string, ok: boolean, at: string, reason?: string): Condition {
  return { type, status: ok ? 'True' : 'False', lastTransitionTime: at, ...(reason ? { reason } : {}) };
}

export interface RunningStatusInput {
  now: number;
  /** When the pod started; `now` for the first start. */
  startedAt: number;
  ready: boolean;
  podIP: string;
  hostIP: string;
}

/**
 * A strategic-merge patch body for a running pod. Conditions merge by type, so PodScheduled
 * (written by the scheduler) is only added for pods bound at creation.
 */
export function runningStatusPatch(pod: PodView, input: RunningStatusInput): { status: Record<string, unknown> } {
  const now = rfc3339Seconds(input.now);
  const started = rfc3339Seconds(input.startedAt);
  const conditions: Condition[] = [
    condition('PodReadyToStartContainers', true, started),
    condition('Initialized', true, started),
    condition('ContainersReady', input.ready, now, input.ready ? undefined : 'ContainersNotReady'),
    condition('Ready', input.ready, now, input.ready ? undefined : 'ContainersNotReady'),
  ];
  if (!pod.scheduled) conditions.unshift(condition('PodScheduled', true, started));
  return {
    status: {
      phase: 'Running',
      conditions,
      hostIP: input.hostIP,
      hostIPs: [{ ip: input.hostIP }],
      podIP: input.podIP,
      podIPs: [{ ip: input.podIP }],
      startTime: started,
      ...(pod.generation !== undefined ? { observedGeneration: pod.generation } : {}),
      ...(pod.initContainers.length > 0
        ? {
            initContainerStatuses: pod.initContainers.map((c) => ({
              ...containerBase(pod, c),
              ready: true,
              started: false,
              state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: started, containerID: containerId(pod.uid, c.name) } },
            })),
          }
        : {}),
      containerStatuses: pod.containers.map((c) => ({
        ...containerBase(pod, c),
        ready: input.ready,
        started: true,
        state: { running: { startedAt: started } },
      })),
    },
  };
}

/** The patch for a pod whose containers all exited 0: phase Succeeded, no longer Ready. */
export function succeededStatusPatch(pod: PodView, input: { now: number; startedAt: number }): { status: Record<string, unknown> } {
  const now = rfc3339Seconds(input.now);
  const started = rfc3339Seconds(input.startedAt);
  return {
    status: {
      phase: 'Succeeded',
      conditions: [
        condition('PodReadyToStartContainers', false, now),
        condition('ContainersReady', false, now, 'PodCompleted'),
        condition('Ready', false, now, 'PodCompleted'),
      ],
      ...(pod.generation !== undefined ? { observedGeneration: pod.generation } : {}),
      containerStatuses: pod.containers.map((c) => ({
        ...containerBase(pod, c),
        ready: false,
        started: false,
        state: {
          terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: now, containerID: containerId(pod.uid, c.name) },
        },
      })),
    },
  };
}

export interface ExitedStatusInput {
  now: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  /** Why the container could not start (kept in the terminated state's message). */
  message?: string;
}

/**
 * The patch for a pod whose only container exited (restartPolicy Never): Succeeded on 0, else Failed; the terminated
 * state carries the exit code and reason Completed, Error, or StartError for a container that never ran.
 */
export function exitedStatusPatch(pod: PodView, input: ExitedStatusInput): { status: Record<string, unknown> } {
  const now = rfc3339Seconds(input.now);
  const reason = input.exitCode === 0 ? 'Completed' : input.message !== undefined ? 'StartError' : 'Error';
  const notReady = input.exitCode === 0 ? 'PodCompleted' : 'PodFailed';
  return {
    status: {
      phase: input.exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: [condition('PodReadyToStartContainers', false, now), condition('ContainersReady', false, now, notReady), condition('Ready', false, now, notReady)],
      ...(pod.generation !== undefined ? { observedGeneration: pod.generation } : {}),
      containerStatuses: pod.containers.map((c) => ({
        ...containerBase(pod, c),
        ready: false,
        started: false,
        state: {
          terminated: {
            exitCode: input.exitCode,
            reason,
            ...(input.message !== undefined ? { message: input.message } : {}),
            startedAt: rfc3339Seconds(input.startedAt),
            finishedAt: rfc3339Seconds(input.finishedAt),
            containerID: containerId(pod.uid, c.name),
          },
        },
      })),
    },
  };
}

function containerBase(pod: PodView, c: { name: string; image: string }) {
  return { name: c.name, image: c.image, imageID: imageId(c.image), containerID: containerId(pod.uid, c.name), restartCount: 0 };
}

/** The pod IP for the n-th pod started on a node: host part 2..251 of the node's /24. */
export function podIpFor(podCidr: string, ordinal: number): string {
  const base = podCidr.split('/')[0]?.split('.') ?? [];
  if (base.length !== 4) return `10.244.0.${2 + (ordinal % 250)}`;
  return `${base[0]}.${base[1]}.${base[2]}.${2 + (ordinal % 250)}`;
}
