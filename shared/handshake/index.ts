// Public surface of shared/handshake: the node-annotation handshake (SR-IOV design) as a pure planner.
export { loadHandshakeConfig, drainTemplateFor } from './config.ts';
export type { HandshakeConfig, HandshakePool, TemplateChoice } from './config.ts';
export { REBOOT_DRAIN_SPEC, createRequestAction, handshakeRequestName, isHandshakeRequestFor, requestIntent, requestorOf } from './request.ts';
export type { RequiredState } from './request.ts';
export { planHandshake } from './plan.ts';
export type { HandshakePlan, HandshakeSnapshot } from './plan.ts';
export { loadSriovHandshakeConfig, planSriovHandshake, sriovDrainSpec, sriovRequestName, isOwnSriovRequest, isSriovRequest, isSriovRequestFor } from './sriov-plan.ts';
export { planSriovProblemsOff, planSriovRequestsOff, sriovProtocolOf } from './sriov-off.ts';
export type { SriovHandshakeConfig, SriovHandshakePlan, SriovHandshakeSnapshot } from './sriov-plan.ts';
export { resolveSriovPools, sriovMaxUnavailable, SRIOV_DEFAULT_POOL } from './sriov-pools.ts';
