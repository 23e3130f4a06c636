// 24 nodes requested at once by 3 requestors, at most 3 in maintenance at a time; 2 pods per node that
// take 3 s to stop.
import { DRAIN_LABEL, type Scenario } from '../scenario.ts';

const STOP_SECONDS = 3;
const NODES = 24;
const PARALLEL = 3;

export const parallel24: Scenario = {
  name: 'parallel-24',
  title: '24 nodes, 3 requestors, maxParallelOperations 3',
  clusterNodes: 30,
  pool: 'general',
  maintained: NODES,
  requestors: 3,
  maxParallelOperations: PARALLEL,
  spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, podSelector: `${DRAIN_LABEL}=yes`, timeoutSeconds: 0 } },
  pods: (node) => [0, 1].map((i) => ({ name: `app-${node}-${i}`, labels: { [DRAIN_LABEL]: 'yes' }, terminationSeconds: STOP_SECONDS })),
  kubectl: { podSelector: `${DRAIN_LABEL}=yes` },
  nominalMakespanSeconds: Math.ceil(NODES / PARALLEL) * STOP_SECONDS,
  nominalSequentialSeconds: NODES * STOP_SECONDS,
  timeoutSeconds: 900,
};
