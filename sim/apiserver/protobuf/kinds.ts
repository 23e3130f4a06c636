// The field tables of the built-in kinds kubectl sends as protobuf for `kubectl create namespace/configmap/deployment`,
// `kubectl run` and `kubectl drain` (field numbers from k8s.io/api v0.35 generated.proto, JSON names and omitempty
// from its types.go). Fields kubectl never sets for these commands are left out on purpose: a body that uses one
// is refused by name (decode.ts), never stored without it.
import { bool, int, intOrString, map, message, msg, msgs, str, strings, time, type MessageSchema } from './schema.ts';

const preconditions = (): MessageSchema => message('meta/v1 Preconditions', [str(1, 'uid', 'pointer'), str(2, 'resourceVersion', 'pointer')]);

const ownerReference = (): MessageSchema =>
  message('meta/v1 OwnerReference', [str(5, 'apiVersion', 'always'), str(1, 'kind', 'always'), str(3, 'name', 'always'), str(4, 'uid', 'always'), bool(6, 'controller', 'pointer'), bool(7, 'blockOwnerDeletion', 'pointer')]);

export const objectMeta = (): MessageSchema =>
  message('meta/v1 ObjectMeta', [
    str(1, 'name'),
    str(2, 'generateName'),
    str(3, 'namespace'),
    str(4, 'selfLink'),
    str(5, 'uid'),
    str(6, 'resourceVersion'),
    int(7, 'generation'),
    time(8, 'creationTimestamp'),
    time(9, 'deletionTimestamp', 'pointer'),
    int(10, 'deletionGracePeriodSeconds', 'pointer'),
    map(11, 'labels', 'string'),
    map(12, 'annotations', 'string'),
    msgs(13, 'ownerReferences', ownerReference),
    strings(14, 'finalizers'),
  ]);

export const deleteOptions = (): MessageSchema =>
  message('meta/v1 DeleteOptions', [
    int(1, 'gracePeriodSeconds', 'pointer'),
    msg(2, 'preconditions', preconditions),
    bool(3, 'orphanDependents', 'pointer'),
    str(4, 'propagationPolicy', 'pointer'),
    strings(5, 'dryRun'),
    bool(6, 'ignoreStoreReadErrorWithClusterBreakingPotential', 'pointer'),
  ]);

const labelSelectorRequirement = (): MessageSchema => message('meta/v1 LabelSelectorRequirement', [str(1, 'key', 'always'), str(2, 'operator', 'always'), strings(3, 'values')]);
const labelSelector = (): MessageSchema => message('meta/v1 LabelSelector', [map(1, 'matchLabels', 'string'), msgs(2, 'matchExpressions', labelSelectorRequirement)]);

const containerPort = (): MessageSchema =>
  message('core/v1 ContainerPort', [str(1, 'name'), int(2, 'hostPort'), int(3, 'containerPort', 'always'), str(4, 'protocol'), str(5, 'hostIP')]);
const envVar = (): MessageSchema => message('core/v1 EnvVar', [str(1, 'name', 'always'), str(2, 'value')]);
const resourceRequirements = (): MessageSchema => message('core/v1 ResourceRequirements', [map(1, 'limits', 'quantity'), map(2, 'requests', 'quantity')]);
/** `kubectl run --privileged` sets only this. */
const securityContext = (): MessageSchema => message('core/v1 SecurityContext', [bool(2, 'privileged', 'pointer')]);

const container = (): MessageSchema =>
  message('core/v1 Container', [
    str(1, 'name', 'always'),
    str(2, 'image'),
    strings(3, 'command'),
    strings(4, 'args'),
    str(5, 'workingDir'),
    msgs(6, 'ports', containerPort),
    msgs(7, 'env', envVar),
    msg(8, 'resources', resourceRequirements),
    str(13, 'terminationMessagePath'),
    str(20, 'terminationMessagePolicy'),
    str(14, 'imagePullPolicy'),
    msg(15, 'securityContext', securityContext),
    bool(16, 'stdin'),
    bool(17, 'stdinOnce'),
    bool(18, 'tty'),
  ]);

const podSpec = (): MessageSchema =>
  message('core/v1 PodSpec', [
    msgs(2, 'containers', container, 'always'),
    str(3, 'restartPolicy'),
    int(4, 'terminationGracePeriodSeconds', 'pointer'),
    str(6, 'dnsPolicy'),
    map(7, 'nodeSelector', 'string'),
    str(8, 'serviceAccountName'),
    str(9, 'serviceAccount'),
    str(10, 'nodeName'),
    bool(11, 'hostNetwork'),
    bool(12, 'hostPID'),
    bool(13, 'hostIPC'),
    str(16, 'hostname'),
    str(17, 'subdomain'),
    str(19, 'schedulerName'),
    str(24, 'priorityClassName'),
  ]);

const podTemplateSpec = (): MessageSchema => message('core/v1 PodTemplateSpec', [msg(1, 'metadata', objectMeta), msg(2, 'spec', podSpec)]);

const rollingUpdateDeployment = (): MessageSchema => message('apps/v1 RollingUpdateDeployment', [intOrString(1, 'maxUnavailable'), intOrString(2, 'maxSurge')]);
const deploymentStrategy = (): MessageSchema => message('apps/v1 DeploymentStrategy', [str(1, 'type'), msg(2, 'rollingUpdate', rollingUpdateDeployment)]);
const deploymentSpec = (): MessageSchema =>
  message('apps/v1 DeploymentSpec', [
    int(1, 'replicas', 'pointer'),
    msg(2, 'selector', labelSelector, 'always'),
    msg(3, 'template', podTemplateSpec, 'always'),
    msg(4, 'strategy', deploymentStrategy),
    int(5, 'minReadySeconds'),
    int(6, 'revisionHistoryLimit', 'pointer'),
    bool(7, 'paused'),
    int(9, 'progressDeadlineSeconds', 'pointer'),
  ]);

/** A status a client sends on create is empty (the server drops it anyway): any field set in it is refused. */
const emptyStatus = (name: string) => (): MessageSchema => message(name, []);

/** Top-level kinds by `apiVersion kind` as the envelope's typeMeta names them. */
export const TOP_LEVEL_KINDS: ReadonlyMap<string, () => MessageSchema> = new Map([
  ['v1 Namespace', () => message('core/v1 Namespace', [msg(1, 'metadata', objectMeta), msg(2, 'spec', () => message('core/v1 NamespaceSpec', [strings(1, 'finalizers')])), msg(3, 'status', () => message('core/v1 NamespaceStatus', [str(1, 'phase')]))])],
  ['v1 ConfigMap', () => message('core/v1 ConfigMap', [msg(1, 'metadata', objectMeta), bool(4, 'immutable', 'pointer'), map(2, 'data', 'string'), map(3, 'binaryData', 'bytes')])],
  ['v1 Pod', () => message('core/v1 Pod', [msg(1, 'metadata', objectMeta), msg(2, 'spec', podSpec), msg(3, 'status', emptyStatus('core/v1 PodStatus'))])],
  ['apps/v1 Deployment', () => message('apps/v1 Deployment', [msg(1, 'metadata', objectMeta), msg(2, 'spec', deploymentSpec), msg(3, 'status', emptyStatus('apps/v1 DeploymentStatus'))])],
  ['policy/v1 Eviction', () => message('policy/v1 Eviction', [msg(1, 'metadata', objectMeta), msg(2, 'deleteOptions', deleteOptions)])],
  // kubectl names DeleteOptions `v1` (the body of DELETE, e.g. `kubectl drain --disable-eviction`); meta.k8s.io/v1 is its own group.
  ['v1 DeleteOptions', deleteOptions],
  ['meta.k8s.io/v1 DeleteOptions', deleteOptions],
]);

/** For messages: `Namespace (v1), ConfigMap (v1), …`. */
export function decodedKindsText(): string {
  return [...TOP_LEVEL_KINDS.keys()].filter((k) => !k.startsWith('meta.k8s.io/')).map((k) => {
    const [apiVersion, kind] = k.split(' ');
    return `${kind ?? ''} (${apiVersion ?? ''})`;
  }).join(', ');
}
