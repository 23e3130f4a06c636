// One node whose pod is guarded by a PodDisruptionBudget that allows no disruption for the first 60 s
// after the request (then its owner relaxes it).
import { DRAIN_LABEL, type Scenario } from '../scenario.ts';

const BLOCK_SECONDS = 60;
const STOP_SECONDS = 3;

export const pdb60s: Scenario = {
  name: 'pdb-60s',
  title: 'PDB blocks eviction for 60 s, 1 node',
  clusterNodes: 6,
  pool: 'general',
  maintained: 1,
  requestors: 1,
  maxParallelOperations: 1,
  spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, podSelector: `${DRAIN_LABEL}=yes`, timeoutSeconds: 0 } },
  pods: (node) => [
    { name: `db-${node}`, labels: { [DRAIN_LABEL]: 'yes', app: 'db' }, terminationSeconds: STOP_SECONDS },
    { name: `web-${node}`, labels: { [DRAIN_LABEL]: 'yes', app: 'web' }, terminationSeconds: STOP_SECONDS },
  ],
  pdb: { selector: { app: 'db' }, minAvailable: 1, blockSeconds: BLOCK_SECONDS },
  kubectl: { podSelector: `${DRAIN_LABEL}=yes` },
  nominalMakespanSeconds: BLOCK_SECONDS + STOP_SECONDS,
  nominalSequentialSeconds: BLOCK_SECONDS + STOP_SECONDS,
  timeoutSeconds: 400,
};
