// The few facts the kubelet keeps per pod, read from a typed V1Pod (Dates) or a raw watch object (strings).
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_MIRROR, ANNOTATION_SIM_RUN_SECONDS, ANNOTATION_SIM_TERMINATION_SECONDS, ENV_SIM_EXIT_CODE, ENV_SIM_RUN_SECONDS } from '../generator/sim-keys.ts';

/**
 * On a pod: "true" makes it run but never turn Ready, as a readiness probe that never succeeds (tests of the
 * eviction API's unhealthy-pod rules use it on both clusters).
 */
export const ANNOTATION_SIM_NEVER_READY = 'kmaint.io/sim-never-ready';

export interface PodView {
  uid: string;
  namespace: string;
  name: string;
  resourceVersion: string;
  generation?: number;
  nodeName: string;
  labels: Readonly<Record<string, string>>;
  phase: string;
  /** The pod's Ready condition is True. */
  ready: boolean;
  /** A PodScheduled=True condition exists (the scheduler wrote it; bound-at-creation pods lack it). */
  scheduled: boolean;
  startTimeMs?: number;
  podIP?: string;
  deleting: boolean;
  /** metadata.deletionGracePeriodSeconds, the grace the deleter granted. */
  deletionGraceSeconds?: number;
  /** spec.terminationGracePeriodSeconds, 30 when unset. */
  terminationGraceSeconds: number;
  mirror: boolean;
  /** Owned by a Job, or annotated with a run time: the container exits 0 after a while. */
  job: boolean;
  /** Annotation kmaint.io/sim-run-seconds (else env KMAINT_SIM_RUN_SECONDS): how long the simulated container runs. */
  runSeconds?: number;
  /** Env KMAINT_SIM_EXIT_CODE of the first container: a Job pod's exit code when its run ends (absent: 0). */
  exitCode?: number;
  /** Annotation kmaint.io/sim-termination-seconds. */
  terminationSeconds?: number;
  /** Annotation kmaint.io/sim-never-ready: "true". */
  neverReady?: boolean;
  containers: ReadonlyArray<{ name: string; image: string }>;
  initContainers: ReadonlyArray<{ name: string; image: string }>;
}

/** A timestamp from a typed object (Date) or a raw JSON one (RFC 3339 string), in epoch milliseconds. */
export function timeMs(value: Date | string | undefined | null): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function seconds(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

const DEFAULT_GRACE_SECONDS = 30;

export function toPodView(pod: V1Pod): PodView {
  const meta = pod.metadata ?? {};
  const annotations = meta.annotations ?? {};
  const conditions = pod.status?.conditions ?? [];
  const isJob = meta.ownerReferences?.some((o) => o.kind === 'Job') ?? false;
  const env = new Map((pod.spec?.containers?.[0]?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const runSeconds = seconds(annotations[ANNOTATION_SIM_RUN_SECONDS] ?? env.get(ENV_SIM_RUN_SECONDS));
  const exitCode = seconds(env.get(ENV_SIM_EXIT_CODE));
  const terminationSeconds = seconds(annotations[ANNOTATION_SIM_TERMINATION_SECONDS]);
  const startTimeMs = timeMs(pod.status?.startTime as Date | string | undefined);
  return {
    uid: meta.uid ?? '',
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
    nodeName: pod.spec?.nodeName ?? '',
    labels: meta.labels ?? {},
    phase: pod.status?.phase ?? 'Pending',
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    scheduled: conditions.some((c) => c.type === 'PodScheduled' && c.status === 'True'),
    ...(startTimeMs !== undefined ? { startTimeMs } : {}),
    ...(pod.status?.podIP ? { podIP: pod.status.podIP } : {}),
    deleting: meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null,
    ...(meta.deletionGracePeriodSeconds !== undefined ? { deletionGraceSeconds: meta.deletionGracePeriodSeconds } : {}),
    terminationGraceSeconds: pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS,
    mirror: ANNOTATION_CONFIG_MIRROR in annotations,
    job: isJob || runSeconds !== undefined,
    ...(runSeconds !== undefined ? { runSeconds } : {}),
    ...(exitCode !== undefined && Number.isInteger(exitCode) ? { exitCode } : {}),
    ...(terminationSeconds !== undefined ? { terminationSeconds } : {}),
    ...(annotations[ANNOTATION_SIM_NEVER_READY] === 'true' ? { neverReady: true } : {}),
    containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '' })),
    initContainers: (pod.spec?.initContainers ?? []).map((c) => ({ name: c.name, image: c.image ?? '' })),
  };
}

/**
 * True when `next` is older than `current`: watch events can trail a patch response already
 * applied. Resource versions are opaque, but the API server's are etcd revisions (integers).
 */
export function isStale(current: PodView | undefined, next: PodView): boolean {
  if (!current || current.uid !== next.uid) return false;
  const a = Number(current.resourceVersion);
  const b = Number(next.resourceVersion);
  return Number.isInteger(a) && Number.isInteger(b) && b < a;
}
