// Server-side printers of workload kinds as pkg/printers/internalversion writes them: Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs, Services, Leases (wide columns included, as the server sends them).
import { formatLabelSelector, labelSelectorFromObject, type LabelSelectorObject } from '../../shared/selectors/index.ts';
import { arrayAt, isObject, numberAt, objectAt, stringAt, stringMapAt, type Json, type JsonObject } from './json-value.ts';
import { AGE, NAME, age, col, humanDuration, type Printer } from './printer-kit.ts';

const n = (obj: JsonObject, path: string): number => {
  const [a, b] = path.split('.') as [string, string];
  return numberAt(objectAt(obj, a), b) ?? 0;
};
const nameOf = (obj: JsonObject): string => stringAt(objectAt(obj, 'metadata'), 'name') ?? '';

/** layoutContainerCells: names and images joined with commas. */
function containerCells(obj: JsonObject): [string, string] {
  const containers = (arrayAt(objectAt(objectAt(objectAt(obj, 'spec'), 'template'), 'spec'), 'containers') ?? []).filter(isObject);
  return [containers.map((c) => stringAt(c, 'name') ?? '').join(','), containers.map((c) => stringAt(c, 'image') ?? '').join(',')];
}

function selectorText(obj: JsonObject): string {
  const selector = objectAt(objectAt(obj, 'spec'), 'selector');
  if (!selector) return '<none>';
  const parsed = labelSelectorFromObject(selector as LabelSelectorObject);
  if (!parsed.ok) return '<invalid>';
  return formatLabelSelector(parsed.selector) || '<none>';
}

/** labels.FormatLabels: sorted key=value pairs, or <none>. */
function formatLabels(labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${labels[k] ?? ''}`).join(',');
}

const WIDE = [col('Containers', 'Names of each container in the template.', 1), col('Images', 'Images referenced by each container in the template.', 1), col('Selector', 'A label query over pods.', 1)];
const int = (name: string, description: string) => col(name, description, 0, 'integer');

function hasCondition(obj: JsonObject, type: string): boolean {
  return (arrayAt(objectAt(obj, 'status'), 'conditions') ?? []).some((c) => isObject(c) && c['type'] === type && c['status'] === 'True');
}

function jobCells(job: JsonObject, now: number): Json[] {
  const spec = objectAt(job, 'spec') ?? {};
  const status = objectAt(job, 'status') ?? {};
  const succeeded = numberAt(status, 'succeeded') ?? 0;
  const completions = numberAt(spec, 'completions');
  const parallelism = numberAt(spec, 'parallelism') ?? 0;
  const done = completions !== undefined ? `${succeeded}/${completions}` : parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  const start = stringAt(status, 'startTime');
  const end = stringAt(status, 'completionTime');
  const duration = !start ? '' : humanDuration((end ? Date.parse(end) : now) - Date.parse(start));
  const state = hasCondition(job, 'Complete')
    ? 'Complete'
    : hasCondition(job, 'Failed')
      ? 'Failed'
      : stringAt(objectAt(job, 'metadata'), 'deletionTimestamp')
        ? 'Terminating'
        : hasCondition(job, 'Suspended')
          ? 'Suspended'
          : hasCondition(job, 'FailureTarget')
            ? 'FailureTarget'
            : hasCondition(job, 'SuccessCriteriaMet')
              ? 'SuccessCriteriaMet'
              : 'Running';
  return [nameOf(job), state, done, duration, age(job, now), ...containerCells(job), selectorText(job)];
}

function serviceCells(svc: JsonObject, now: number): Json[] {
  const spec = objectAt(svc, 'spec') ?? {};
  const ports = (arrayAt(spec, 'ports') ?? []).filter(isObject).map((p) => {
    const nodePort = numberAt(p, 'nodePort');
    return `${numberAt(p, 'port') ?? 0}${nodePort ? `:${nodePort}` : ''}/${stringAt(p, 'protocol') ?? 'TCP'}`;
  });
  const type = stringAt(spec, 'type') ?? '';
  const external = type === 'ExternalName' ? (stringAt(spec, 'externalName') ?? '<none>') : '<none>';
  const ip = (arrayAt(spec, 'clusterIPs') ?? [])[0];
  return [nameOf(svc), type, typeof ip === 'string' ? ip : '<none>', external, ports.join(',') || '<none>', age(svc, now), formatLabels(stringMapAt(spec, 'selector'))];
}

export const WORKLOAD_PRINTERS: Readonly<Record<string, Printer>> = {
  'apps/deployments': {
    columns: [NAME, col('Ready', 'Number of the pod with ready state'), col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'), col('Available', 'Total number of available pods targeted by this deployment.'), AGE, ...WIDE],
    cells: (d, now) => [nameOf(d), `${n(d, 'status.readyReplicas')}/${n(d, 'spec.replicas')}`, n(d, 'status.updatedReplicas'), n(d, 'status.availableReplicas'), age(d, now), ...containerCells(d), selectorText(d)],
  },
  'apps/replicasets': {
    columns: [NAME, int('Desired', 'Replicas is the number of desired pods.'), int('Current', 'Replicas is the most recently observed number of replicas.'), int('Ready', 'The number of ready replicas for this replica set.'), AGE, ...WIDE],
    cells: (rs, now) => [nameOf(rs), n(rs, 'spec.replicas'), n(rs, 'status.replicas'), n(rs, 'status.readyReplicas'), age(rs, now), ...containerCells(rs), selectorText(rs)],
  },
  'apps/statefulsets': {
    columns: [NAME, col('Ready', 'Number of the pod with ready state'), AGE, ...WIDE.slice(0, 2)],
    cells: (s, now) => [nameOf(s), `${n(s, 'status.readyReplicas')}/${n(s, 'spec.replicas')}`, age(s, now), ...containerCells(s)],
  },
  'apps/daemonsets': {
    columns: [NAME, int('Desired', 'The total number of nodes that should be running the daemon pod.'), int('Current', 'The number of nodes running at least one daemon pod.'), int('Ready', 'The number of nodes with a ready daemon pod.'), int('Up-to-date', 'The number of nodes running the updated daemon pod.'), int('Available', 'The number of nodes with an available daemon pod.'), col('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'), AGE, ...WIDE],
    cells: (ds, now) => [
      nameOf(ds),
      n(ds, 'status.desiredNumberScheduled'),
      n(ds, 'status.currentNumberScheduled'),
      n(ds, 'status.numberReady'),
      n(ds, 'status.updatedNumberScheduled'),
      n(ds, 'status.numberAvailable'),
      formatLabels(stringMapAt(objectAt(objectAt(objectAt(ds, 'spec'), 'template'), 'spec'), 'nodeSelector')),
      age(ds, now),
      ...containerCells(ds),
      selectorText(ds),
    ],
  },
  'batch/jobs': {
    columns: [NAME, col('Status', 'Status of the job.'), col('Completions', 'The number of pods which reached phase Succeeded.'), col('Duration', 'Time required to complete the job.'), AGE, ...WIDE],
    cells: jobCells,
  },
  services: {
    columns: [NAME, col('Type', 'type determines how the Service is exposed.'), col('Cluster-IP', 'clusterIP is the IP address of the service.'), col('External-IP', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'), col('Port(s)', 'The list of ports that are exposed by this service.'), AGE, col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1)],
    cells: serviceCells,
  },
  'coordination.k8s.io/leases': {
    columns: [NAME, col('Holder', 'holderIdentity contains the identity of the holder of a current lease.'), AGE],
    cells: (l, now) => [nameOf(l), stringAt(objectAt(l, 'spec'), 'holderIdentity') ?? '', age(l, now)],
  },
};
