// Sets of phases (the Ready condition's reason) that several modules ask about, named for what they mean. The one
// place such a set is written (the lint rule of tools/lint/written-once.json refuses a new `new Set([Phase.…])`).
import { Phase, PHASE_REBOOTING } from './constants.ts';

/** Admitted and not yet drained: the drainer reads the node's pods for these. */
export const PHASES_NEEDING_PODS: ReadonlySet<string> = new Set([Phase.Scheduled, Phase.Cordon, Phase.WaitForPodCompletion, Phase.Draining]);

/** Drained and held (Ready), or held after the requestor reported failure: the node stays cordoned for the requestor. */
export const DRAINED_PHASES: ReadonlySet<string> = new Set([Phase.Ready, Phase.RequestorFailed]);

/** Phases the drainer moves (objects being deleted belong to cleanup): every admitted phase, drained or not, and kmaint's Rebooting (issue 43). */
export const DRAINER_PHASES: ReadonlySet<string> = new Set([...PHASES_NEEDING_PODS, PHASE_REBOOTING, ...DRAINED_PHASES]);

/** The drain has begun (the what-if observer's drain start): Draining, or already past it to Rebooting or Ready. */
export const DRAIN_STARTED_PHASES: ReadonlySet<string> = new Set([Phase.Draining, PHASE_REBOOTING, Phase.Ready]);

/** Phases whose Ready message says what the request waits for (the demo shows each new one). */
export const WAITING_PHASES: ReadonlySet<string> = new Set([Phase.Pending, Phase.WaitForPodCompletion, Phase.Draining]);
