// Public surface of shared/slurm: the slurmrestd client, the Drained predicate, drain ownership, and the pure
// drain-gate, maintenance-reservation and release steps the drainer, scheduler and cleanup planners call.
export { SlurmRestClient } from './client.ts';
export type { SlurmClientOptions, SlurmNodeInfo, SlurmProblem, SlurmProblemKind, SlurmReservationInfo, SlurmReservationSpec, SlurmResult } from './client.ts';
export { BUSY_STATES, formatState, hasDrainFlag, isDrained } from './state.ts';
export { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, drainOwner, drainReason, formatRecord, mayUndrain, recordedSlinkyNodes, recordedSlurmNodes } from './ownership.ts';
export { RESERVATION_API_VERSIONS, SLURM_API_VERSIONS, WORKER_NAMESPACES_UNSET_NOTE, loadSlurmSettings, slurmConfigNotes, slurmConfigProblems } from './settings.ts';
export { SLURM_TOKEN_ENV_PATTERN, SLURM_TOKEN_SECRET_PREFIX } from './token-sources.ts';
export type { LoadedSlurm, ReservationApiVersion, SlurmApiVersion, SlurmSettings, SlurmSpec } from './settings.ts';
export { slurmWorkersOf } from './workers.ts';
export type { SlurmWorker, WorkersResult } from './workers.ts';
export { describeSlurmWrite, isSweep } from './view.ts';
export type { SlurmContext, SlurmReservations, SlurmView, SlurmWrite } from './view.ts';
export { EVENT_REASON_SLURM_DRAIN_TIMEOUT, EVENT_REASON_SLURM_PROBLEM, planSlurmGate, planSlurmGateWithWait, type SlurmGateWithWait } from './gate.ts';
export type { SlurmGate } from './gate.ts';
export { planSlurmRelease } from './release.ts';
export { planSlurmReservations } from './reservation.ts';
export {
  ANNOTATION_SLURM_RESERVATION,
  ANNOTATION_SLURM_RESERVATION_PROBLEM,
  EVENT_REASON_SLURM_RESERVATION,
  needsReservation,
  needsReservationRead,
  RESERVATION_EXTEND_BELOW_SECONDS,
  RESERVATION_HORIZON_SECONDS,
  RESERVATION_PREFIX,
  RESERVATION_WINDOW_SECONDS,
  reservationOwner,
  recordedReservation,
  reservationToCheck,
  reservationName,
  wantsReservation,
} from './reservation-rules.ts';
export type { ReservationInput, ReservationPlan } from './reservation.ts';
export { chooseReservations, DEFAULT_RESERVATIONS_PER_NAMESPACE, nodesToReserve } from './reservation-choice.ts';
export type { ReservationChoice } from './reservation-choice.ts';
export type { SlurmRelease } from './release.ts';
export { readSlurm } from './read.ts';
export type { SecretKeyReader, SlurmRead, SlurmReadOptions } from './read.ts';
export { applySlurmWrites } from './apply.ts';
export type { SlurmApplyResult } from './apply.ts';
export { guardSlurmWrites, needsFreshRead } from './guard.ts';
export type { FreshRequests, GuardedWrites, SlurmWriteGuard } from './guard.ts';
export { planSlurmSweep } from './sweep.ts';
export { hasOurCordonReason, isSlinkyPod, KMAINT_CORDON_REASON_PREFIX, isSlinkyReason, slinkyCordonReason, slinkyDrainReason, slurmNodeFromConditions } from './slinky.ts';
