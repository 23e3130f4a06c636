// The seed README's example request on one gpu node: cordon, wait for app=important pods to finish, then
// force-drain only the pods that request nvidia.com/gpu-* or nvidia.com/rdma* resources.
import { seedExampleSpec } from '../../../sim/demo/requestors.ts';
import { DRAIN_LABEL, type BenchPod, type Scenario } from '../scenario.ts';

const RUN_SECONDS = 10;
const STOP_SECONDS = 3;
/** The job's pod, once done, is removed by the TTL controller and takes 1 s to stop. */
const JOB_GONE_SECONDS = 1;

export const seedReadme: Scenario = {
  name: 'seed-readme',
  title: 'seed README example, 1 node',
  clusterNodes: 6,
  pool: 'gpu',
  maintained: 1,
  requestors: 1,
  maxParallelOperations: 1,
  // The seed README's request as the demo makes it; the requestor and node are the bench's.
  spec: (({ nodeName: _node, requestorID: _requestor, ...rest }) => rest)(seedExampleSpec('')),
  pods: (node): BenchPod[] => [
    // A Job's pod: once it succeeds the TTL controller removes it (a Succeeded pod that is kept would block upstream forever).
    { name: `important-${node}`, labels: { app: 'important' }, terminationSeconds: JOB_GONE_SECONDS, job: { runSeconds: RUN_SECONDS } },
    { name: `trainer-${node}`, labels: { [DRAIN_LABEL]: 'yes' }, terminationSeconds: STOP_SECONDS, requests: { 'nvidia.com/gpu': '1' } },
    { name: `rdma-${node}`, labels: { [DRAIN_LABEL]: 'yes' }, terminationSeconds: STOP_SECONDS, requests: { 'nvidia.com/rdma_shared_device_a': '1' } },
    // Requests no gpu/rdma resource: the eviction filters leave it running.
    { name: `logger-${node}`, labels: { app: 'logger' }, terminationSeconds: STOP_SECONDS },
  ],
  kubectl: { podSelector: `${DRAIN_LABEL}=yes`, waitForDeleteSelector: 'app=important' },
  nominalMakespanSeconds: RUN_SECONDS + JOB_GONE_SECONDS + STOP_SECONDS,
  nominalSequentialSeconds: RUN_SECONDS + JOB_GONE_SECONDS + STOP_SECONDS,
  timeoutSeconds: 240,
};
