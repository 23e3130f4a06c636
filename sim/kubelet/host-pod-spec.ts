// Which pods the simulated kubelet runs as host processes (kmaint's own), and the command line and environment a
// real kubelet would give their container: pure functions of the pod, the API server's address and the bundle, or of
// the image's config when the pod's image is pulled from a registry (image-pull.ts).
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_SIM_RUN_SECONDS } from '../generator/sim-keys.ts';
import type { ImageConfig } from './image-pull.ts';

/** On a pod: "true" makes the simulated kubelet run its containers as host processes, whatever their image. */
export const LABEL_SIM_HOST_PROCESS = 'kmaint.io/sim-host-process';

export interface HostPodMatch {
  /**
   * Image names (without registry, repository path or tag) whose containers run as host processes.
   * @default ['kmaint'] (the chart's and infra/base's image: `kmaint:<tag>`)
   */
  images?: readonly string[];
}

/** `registry:5000/team/kmaint:1.2@sha256:…` → `kmaint`. */
export function imageName(image: string): string {
  const withoutDigest = image.split('@')[0] ?? '';
  const last = withoutDigest.split('/').pop() ?? '';
  return last.split(':')[0] ?? '';
}

/**
 * A pod is run for real when labelled kmaint.io/sim-host-process=true, or when one of its containers uses a matching
 * image; a pod annotated kmaint.io/sim-run-seconds asks for the simulated run and keeps it (tests that only need the
 * CronJobs' pods bound say so).
 */
export function isHostPod(pod: V1Pod, match: HostPodMatch = {}): boolean {
  const meta = pod.metadata ?? {};
  if (meta.labels?.[LABEL_SIM_HOST_PROCESS] === 'true') return true;
  if (meta.annotations?.[ANNOTATION_SIM_RUN_SECONDS] !== undefined) return false;
  const images = match.images ?? ['kmaint'];
  return (pod.spec?.containers ?? []).some((c) => images.includes(imageName(c.image ?? '')));
}

/**
 * The registry an image reference names, or undefined for none (`kmaint:latest`, infra/base's). As Docker and
 * containerd read a reference: the first path component is a registry host when it has a '.' or a ':' or is
 * `localhost`.
 */
export function imageRegistry(image: string): string | undefined {
  const slash = image.indexOf('/');
  if (slash < 0) return undefined;
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : undefined;
}

/** A registry on this machine's loopback (the tests' registry): the only ones the simulated kubelet pulls from. */
export function isLoopbackRegistry(host: string): boolean {
  return /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
}

/** Where the apiserver is reachable from the host: what the kubelet substitutes for the `kubernetes` Service. */
export interface ApiServerAddress {
  host: string;
  port: number;
}

/** `https://127.0.0.1:6443` → host and port (443 when the URL has none). */
export function apiServerAddress(server: string): ApiServerAddress {
  const url = new URL(server);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : 443 };
}

/** The variables a kubelet injects for the `default/kubernetes` Service, pointing at the apiserver on loopback. */
export function serviceEnv(api: ApiServerAddress): Record<string, string> {
  const url = `tcp://${api.host}:${api.port}`;
  return {
    KUBERNETES_SERVICE_HOST: api.host,
    KUBERNETES_SERVICE_PORT: String(api.port),
    KUBERNETES_SERVICE_PORT_HTTPS: String(api.port),
    KUBERNETES_PORT: url,
    [`KUBERNETES_PORT_${api.port}_TCP`]: url,
    [`KUBERNETES_PORT_${api.port}_TCP_PROTO`]: 'tcp',
    [`KUBERNETES_PORT_${api.port}_TCP_PORT`]: String(api.port),
    [`KUBERNETES_PORT_${api.port}_TCP_ADDR`]: api.host,
  };
}

export class HostPodSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostPodSpecError';
  }
}

/** `metadata.labels['k']` → the label k. */
function mapKey(path: string, prefix: string): string | undefined {
  const m = new RegExp(`^${prefix.replace('.', '\\.')}\\['(.+)'\\]$`).exec(path);
  return m?.[1];
}

/** The downward API value of a fieldRef, as the kubelet resolves it (status.* from what it reported). */
export function fieldRefValue(pod: V1Pod, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  const status = pod.status ?? {};
  const simple: Record<string, string | undefined> = {
    'metadata.name': meta.name,
    'metadata.namespace': meta.namespace,
    'metadata.uid': meta.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName ?? 'default',
    'status.hostIP': status.hostIP,
    'status.hostIPs': status.hostIPs?.map((i) => i.ip).join(','),
    'status.podIP': status.podIP,
    'status.podIPs': status.podIPs?.map((i) => i.ip).join(','),
  };
  if (fieldPath in simple) return simple[fieldPath] ?? '';
  const label = mapKey(fieldPath, 'metadata.labels');
  if (label !== undefined) return meta.labels?.[label] ?? '';
  const annotation = mapKey(fieldPath, 'metadata.annotations');
  if (annotation !== undefined) return meta.annotations?.[annotation] ?? '';
  throw new HostPodSpecError(`env fieldRef ${fieldPath} is not supported by the downward API`);
}

/**
 * The container's environment: the kubelet's service variables first, then the container's own `env` in order
 * (literal values and fieldRefs; `$(VAR)` references are expanded as a kubelet does). Nothing of the host's
 * environment but PATH, and HOME set to `home`: no KUBECONFIG reaches the process.
 */
export function containerEnv(pod: V1Pod, container: V1Container, api: ApiServerAddress, home: string, imageEnv: readonly string[] = []): Record<string, string> {
  const env: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home };
  // The image's own variables (its PATH among them) come under the kubelet's and the container's, as a runtime sets them.
  for (const kv of imageEnv) {
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  Object.assign(env, { HOSTNAME: pod.metadata?.name ?? '' }, serviceEnv(api));
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
    else if (e.valueFrom?.fieldRef) env[e.name] = fieldRefValue(pod, e.valueFrom.fieldRef.fieldPath);
    else if (e.valueFrom) throw new HostPodSpecError(`env ${e.name}: only value and fieldRef are supported for host processes`);
    else env[e.name] = '';
  }
  if (container.envFrom && container.envFrom.length > 0) throw new HostPodSpecError('envFrom is not supported for host processes');
  return env;
}

/**
 * The command line: the image's entrypoint `kmaint` (infra/Dockerfile: `exec node /app/kmaint.mjs "$@"`) becomes
 * node running `bundle`; the image's default arguments (`--help`) apply when the pod gives no command or args.
 */
export function containerArgv(container: V1Container, node: string, bundle: string): string[] {
  const command = container.command ?? ['kmaint'];
  const args = container.args ?? (container.command ? [] : ['--help']);
  if (command[0] !== 'kmaint') throw new HostPodSpecError(`command ${JSON.stringify(command[0] ?? '')}: a host process can only run the image's kmaint command`);
  return [node, bundle, ...command.slice(1), ...args];
}

/**
 * The command line of a container run from its pulled image, as Kubernetes composes it: `command` replaces the image's
 * Entrypoint and drops its Cmd; `args` replaces the Cmd.
 */
export function imageArgv(container: V1Container, config: ImageConfig): string[] {
  const command = container.command ?? config.Entrypoint ?? [];
  const args = container.args ?? (container.command ? [] : (config.Cmd ?? []));
  const argv = [...command, ...args];
  if (argv.length === 0) throw new HostPodSpecError(`image ${container.image ?? ''}: no command (the pod gives none and the image has no Entrypoint or Cmd)`);
  return argv;
}

/** The image config's `User` as uid and gid: numeric only (`1000` or `1000:1000`); empty is root. */
export function imageUser(user: string | undefined): { uid: number; gid: number } {
  if (user === undefined || user === '') return { uid: 0, gid: 0 };
  const m = /^(\d+)(?::(\d+))?$/.exec(user);
  if (!m) throw new HostPodSpecError(`image user ${JSON.stringify(user)}: only a numeric uid[:gid] is supported for host processes`);
  const uid = Number(m[1]);
  return { uid, gid: m[2] !== undefined ? Number(m[2]) : uid };
}

/**
 * uid and gid the container runs as: the container's securityContext over the pod's, else the image's user (`image`,
 * from its config when pulled; infra/Dockerfile's 1000:1000 otherwise).
 */
export function containerUser(pod: V1Pod, container: V1Container, image: { uid: number; gid: number } = { uid: 1000, gid: 1000 }): { uid: number; gid: number } {
  const podCtx = pod.spec?.securityContext;
  const ctx = container.securityContext;
  return { uid: ctx?.runAsUser ?? podCtx?.runAsUser ?? image.uid, gid: ctx?.runAsGroup ?? podCtx?.runAsGroup ?? image.gid };
}
