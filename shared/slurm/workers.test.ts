// Which pods are Slurm workers (issue 31): a worker names the Slurm node kmaint drains, so with
// spec.slurm.workerNamespaces set only pods in those namespaces count, whatever labels or hostname a tenant's pod carries.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from '../selectors/index.ts';
import type { SlurmSettings } from './settings.ts';
import { slurmWorkersOf, type WorkersResult } from './workers.ts';

const selector = parseLabelSelector('app.kubernetes.io/name=slurmd');
if (!selector.ok) throw new Error(selector.error);
const POD_MODE: SlurmSettings = { source: 'slurmrestd', url: 'https://slurm:6820', apiVersion: 'auto', tokenEnv: 'SLURM_JWT', reasonPrefix: 'kmaint:', mode: 'pod', podSelector: selector.selector, nameFrom: 'hostname', drainTimeoutSeconds: 0, whenUnreachable: 'wait' };
const SLURM_ONLY: SlurmSettings = { ...POD_MODE, workerNamespaces: ['slurm'] };

const NODE: V1Node = { metadata: { name: 'w1' } };
function pod(namespace: string, name: string, hostname: string | undefined, phase = 'Running'): V1Pod {
  return { metadata: { name, namespace, labels: { 'app.kubernetes.io/name': 'slurmd' } }, spec: { containers: [], ...(hostname ? { hostname } : {}) }, status: { phase } };
}
const SLINKY_N1 = pod('slurm', 'slurm-n1', 'n1');
/** A tenant's pod on w1, labelled to match podSelector, claiming the Slurm node n5 that runs elsewhere. */
const TENANT_N5 = pod('team-a', 'imposter', 'n5');
const BY_LABEL: SlurmSettings = { ...POD_MODE, nameFrom: 'label', nameKey: 'slurm/node' };
const BY_LABEL_SLURM_ONLY: SlurmSettings = { ...BY_LABEL, workerNamespaces: ['slurm'] };
const LABELLED_N1: V1Pod = { ...SLINKY_N1, metadata: { ...SLINKY_N1.metadata, labels: { 'app.kubernetes.io/name': 'slurmd', 'slurm/node': 'n1' } } };

const names = (r: WorkersResult): string[] | string => (r.ok ? r.workers.map((w) => `${w.slurmNode} <- ${w.source}`) : r.error);

describe('slurmWorkersOf: pod mode', () => {
  it.each<{ rule: string; settings: SlurmSettings; pods: V1Pod[]; expected: string[] | string }>([
    { rule: "workerNamespaces set: a tenant's pod in another namespace matching podSelector names no Slurm node", settings: SLURM_ONLY, pods: [SLINKY_N1, TENANT_N5], expected: ['n1 <- pod slurm/slurm-n1'] },
    { rule: "workerNamespaces set: a tenant's pod alone leaves the node without Slurm workers", settings: SLURM_ONLY, pods: [TENANT_N5], expected: [] },
    { rule: "workerNamespaces set: a tenant's pod without the name label is no error either (it is no worker)", settings: BY_LABEL_SLURM_ONLY, pods: [LABELLED_N1, TENANT_N5], expected: ['n1 <- pod slurm/slurm-n1'] },
    { rule: "workerNamespaces unset: that pod holds the node's drain with an error", settings: BY_LABEL, pods: [LABELLED_N1, TENANT_N5], expected: 'Slurm worker pod team-a/imposter has no label slurm/node naming its Slurm node' },
    { rule: 'workerNamespaces with several namespaces: pods in each count', settings: { ...POD_MODE, workerNamespaces: ['slurm', 'slurm-b'] }, pods: [pod('slurm-b', 'b-n2', 'n2'), SLINKY_N1, TENANT_N5], expected: ['n1 <- pod slurm/slurm-n1', 'n2 <- pod slurm-b/b-n2'] },
    { rule: 'workerNamespaces unset: every namespace, as before the field (the config says so)', settings: POD_MODE, pods: [SLINKY_N1, TENANT_N5], expected: ['n1 <- pod slurm/slurm-n1', 'n5 <- pod team-a/imposter'] },
    { rule: 'a finished pod in a worker namespace runs no slurmd', settings: SLURM_ONLY, pods: [pod('slurm', 'old-n1', 'n1', 'Succeeded')], expected: [] },
    { rule: 'a pod without hostname in a worker namespace is named by its pod name', settings: SLURM_ONLY, pods: [pod('slurm', 'slurm-x', undefined)], expected: ['slurm-x <- pod slurm/slurm-x'] },
  ])('$rule', ({ settings, pods, expected }) => {
    expect(names(slurmWorkersOf(NODE, pods, settings))).toEqual(expected);
  });
});
