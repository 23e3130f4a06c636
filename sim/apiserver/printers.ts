// Server-side printers of core kinds as pkg/printers/internalversion writes them: nodes, pods, events,
// namespaces, PodDisruptionBudgets (cells include the wide, priority-1 columns, as the server sends them).
import { arrayAt, isObject, numberAt, objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { AGE, NAME, age, col, humanDuration, type Printer } from './printer-kit.ts';

function nodeCells(node: JsonObject, now: number): Json[] {
  const status = objectAt(node, 'status') ?? {};
  const ready = (arrayAt(status, 'conditions') ?? []).filter(isObject).find((c) => c['type'] === 'Ready');
  const states = [ready ? (ready['status'] === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (objectAt(node, 'spec')?.['unschedulable'] === true) states.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(objectAt(objectAt(node, 'metadata'), 'labels') ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(String(v));
  }
  const info = objectAt(status, 'nodeInfo') ?? {};
  const address = (type: string) => stringAt((arrayAt(status, 'addresses') ?? []).filter(isObject).find((a) => a['type'] === type), 'address') ?? '<none>';
  const orUnknown = (k: string) => stringAt(info, k) || '<unknown>';
  return [
    stringAt(objectAt(node, 'metadata'), 'name') ?? '',
    states.join(','),
    [...roles].sort().join(',') || '<none>',
    age(node, now),
    stringAt(info, 'kubeletVersion') ?? '',
    address('InternalIP'),
    address('ExternalIP'),
    orUnknown('osImage'),
    orUnknown('kernelVersion'),
    orUnknown('containerRuntimeVersion'),
  ];
}

function podCells(pod: JsonObject, now: number): Json[] {
  const spec = objectAt(pod, 'spec') ?? {};
  const status = objectAt(pod, 'status') ?? {};
  const meta = objectAt(pod, 'metadata') ?? {};
  const phase = stringAt(status, 'phase') ?? '';
  let reason = stringAt(status, 'reason') || phase;
  const statuses = (arrayAt(status, 'containerStatuses') ?? []).filter(isObject);
  let ready = 0;
  let restarts = 0;
  let hasRunning = false;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i] as JsonObject;
    restarts += numberAt(c, 'restartCount') ?? 0;
    const state = objectAt(c, 'state') ?? {};
    const waiting = objectAt(state, 'waiting');
    const terminated = objectAt(state, 'terminated');
    if (waiting && stringAt(waiting, 'reason')) reason = stringAt(waiting, 'reason') as string;
    else if (terminated) reason = stringAt(terminated, 'reason') || `ExitCode:${numberAt(terminated, 'exitCode') ?? 0}`;
    else if (c['ready'] === true && objectAt(state, 'running')) {
      hasRunning = true;
      ready++;
    }
  }
  const podReady = (arrayAt(status, 'conditions') ?? []).some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
  if (reason === 'Completed' && hasRunning) reason = podReady ? 'Running' : 'NotReady';
  if (stringAt(meta, 'deletionTimestamp') && stringAt(status, 'reason') === 'NodeLost') reason = 'Unknown';
  else if (stringAt(meta, 'deletionTimestamp') && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const podIPs = (arrayAt(status, 'podIPs') ?? []).filter(isObject);
  const gates = (arrayAt(spec, 'readinessGates') ?? []).filter(isObject);
  const gateText =
    gates.length === 0
      ? '<none>'
      : `${gates.filter((g) => (arrayAt(status, 'conditions') ?? []).some((c) => isObject(c) && c['type'] === g['conditionType'] && c['status'] === 'True')).length}/${gates.length}`;
  return [
    stringAt(meta, 'name') ?? '',
    `${ready}/${(arrayAt(spec, 'containers') ?? []).length}`,
    reason,
    String(restarts),
    age(pod, now),
    stringAt(podIPs[0], 'ip') || '<none>',
    stringAt(spec, 'nodeName') || '<none>',
    stringAt(status, 'nominatedNodeName') || '<none>',
    gateText,
  ];
}

function since(ts: string | undefined, now: number): string {
  return ts ? humanDuration(now - Date.parse(ts)) : '<unknown>';
}

function eventCells(ev: JsonObject, now: number): Json[] {
  const first = since(stringAt(ev, 'firstTimestamp') ?? stringAt(ev, 'eventTime'), now);
  const last = stringAt(ev, 'lastTimestamp') ? since(stringAt(ev, 'lastTimestamp'), now) : first;
  const involved = objectAt(ev, 'involvedObject') ?? {};
  const kind = (stringAt(involved, 'kind') ?? '').toLowerCase();
  const name = stringAt(involved, 'name');
  const source = objectAt(ev, 'source') ?? {};
  const component = stringAt(source, 'component') || stringAt(ev, 'reportingComponent') || '';
  const host = stringAt(source, 'host') || stringAt(ev, 'reportingInstance') || '';
  return [
    last,
    stringAt(ev, 'type') ?? '',
    stringAt(ev, 'reason') ?? '',
    name ? `${kind}/${name}` : kind,
    stringAt(involved, 'fieldPath') ?? '',
    host ? `${component}, ${host}` : component,
    (stringAt(ev, 'message') ?? '').trim(),
    first,
    numberAt(ev, 'count') || 1,
    stringAt(objectAt(ev, 'metadata'), 'name') ?? '',
  ];
}

function intOrString(v: Json | undefined): string {
  return v === undefined || v === null ? 'N/A' : String(v);
}

export const CORE_PRINTERS: Readonly<Record<string, Printer>> = {
  nodes: {
    columns: [NAME, col('Status', 'The status of the node'), col('Roles', 'The roles of the node'), AGE, col('Version', 'Kubelet Version reported by the node.'), col('Internal-IP', 'List of addresses reachable to the node.', 1), col('External-IP', 'List of addresses reachable to the node.', 1), col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1), col('Kernel-Version', 'Kernel Version reported by the node.', 1), col('Container-Runtime', 'ContainerRuntime Version reported by the node.', 1)],
    cells: nodeCells,
  },
  pods: {
    columns: [NAME, col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'), col('Status', 'The aggregate status of the containers in this pod.'), col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'), AGE, col('IP', 'podIP address allocated to the pod.', 1), col('Node', 'NodeName indicates in which node this pod is scheduled.', 1), col('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1), col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', 1)],
    cells: podCells,
  },
  events: {
    columns: [col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'), col('Type', 'Type of this event (Normal, Warning).'), col('Reason', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'), col('Object', 'The object that this event is about.'), col('Subobject', 'The path to the field of the object the event is about.', 1), col('Source', 'The component reporting this event.', 1), col('Message', 'A human-readable description of the status of this operation.'), col('First Seen', 'The time at which the event was first recorded.', 1), col('Count', 'The number of times this event has occurred.', 1), { ...NAME, priority: 1 }],
    cells: eventCells,
  },
  namespaces: {
    columns: [NAME, col('Status', 'The status of the namespace'), AGE],
    cells: (ns, now) => [stringAt(objectAt(ns, 'metadata'), 'name') ?? '', stringAt(objectAt(ns, 'status'), 'phase') ?? '', age(ns, now)],
  },
  'policy/poddisruptionbudgets': {
    columns: [NAME, col('Min Available', 'The minimum number of pods that must be available simultaneously.'), col('Max Unavailable', 'The maximum number of pods that may be unavailable simultaneously.'), col('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', 0, 'integer'), AGE],
    cells: (pdb, now) => {
      const spec = objectAt(pdb, 'spec') ?? {};
      return [stringAt(objectAt(pdb, 'metadata'), 'name') ?? '', intOrString(spec['minAvailable']), intOrString(spec['maxUnavailable']), numberAt(objectAt(pdb, 'status'), 'disruptionsAllowed') ?? 0, age(pdb, now)];
    },
  },
};

