// Public surface of sim/controllers: the controllers' loop and their pure planners.
export { SimControllers, CONTROLLER_NAMES, type ControllerName, type SimControllersOptions, type SimControllersStats, type RoundResult } from './controllers.ts';
export { describeControllerAction, type ControllerAction, type ControllerActionKind } from './actions.ts';
export { planDeployment } from './deployment.ts';
export { planReplicaSet, deletionOrder } from './replicaset.ts';
export { planStatefulSet } from './statefulset.ts';
export { planDaemonSet, shouldRun, DAEMON_POD_TOLERATIONS } from './daemonset.ts';
export { planJob } from './job.ts';
export { planScheduling, isPendingScheduling } from './scheduler.ts';
export { unfitReasons, unschedulableMessage } from './node-fit.ts';
export { planPdb, nextPdbStatus, expectedPodCount, expectedScale, scaledValue, buildScaleIndex, DELETION_TIMEOUT_MS } from './disruption.ts';
export { templateHash } from './pod-template.ts';
export { parseQuantity } from './quantity.ts';
