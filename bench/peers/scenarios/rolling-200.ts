// 200 nodes rolled by one requestor, 10 at a time; one pod per node that takes 2 s to stop.
import { DRAIN_LABEL, type Scenario } from '../scenario.ts';

const STOP_SECONDS = 2;
const NODES = 200;
const PARALLEL = 10;

export const rolling200: Scenario = {
  name: 'rolling-200',
  title: '200 nodes rolling, maxParallelOperations 10',
  clusterNodes: 245,
  pool: 'general',
  maintained: NODES,
  requestors: 1,
  maxParallelOperations: PARALLEL,
  spec: { cordon: true, drainSpec: { force: true, deleteEmptyDir: true, podSelector: `${DRAIN_LABEL}=yes`, timeoutSeconds: 0 } },
  pods: (node) => [{ name: `app-${node}`, labels: { [DRAIN_LABEL]: 'yes' }, terminationSeconds: STOP_SECONDS }],
  kubectl: { podSelector: `${DRAIN_LABEL}=yes` },
  nominalMakespanSeconds: Math.ceil(NODES / PARALLEL) * STOP_SECONDS,
  nominalSequentialSeconds: NODES * STOP_SECONDS,
  timeoutSeconds: 1800,
};
