// The reaper's row of PASSES: how it starts (disabled, dry run, active), the cloud events it reads, its plan and the
// config report it shares with the scheduler.
import { buildSchedulingState, requestsHoldingNodes } from '../scheduling/index.ts';
import { schedulingLimitsOf } from './config.ts';
import { planConfigReport } from './config-report.ts';
import type { PassDefinition } from './pass-definition.ts';
import { terminationsEffect } from './pass-effects.ts';
import { planReaperPass, readScheduledEvents, reaperMode, reaperProviders, type ReaperReads } from './reaper-pass.ts';

export const REAPER_PASS: PassDefinition<ReaperReads> = {
  // A disabled reaper (with spec.cloudEvents off) costs one GET of the config (none when the round already read it):
  // no lease, no lists, no writes; its dryRun writes events only. spec.cloudEvents on reads the instances' events.
  start: async (opts, round) => {
    const mode = round ? round.config.reaperMode : await reaperMode(opts.client, opts.namespace);
    return mode === 'disabled' ? 'skip' : mode === 'dry-run' ? 'unleased' : 'leased';
  },
  read: (opts, base, config) => readScheduledEvents(base, config, reaperProviders(opts.reaperProviders), opts.signal),
  plan: ({ base, config, reads, namespace, crds, now }) => {
    // Issue 40: only a request that could start now keeps the reaper off its node (the scheduler's own rule).
    const holding = requestsHoldingNodes(buildSchedulingState({ nodes: base.nodeList, maintenances: base.maintenances }), schedulingLimitsOf(config, crds), now);
    const reaper = planReaperPass(base, config, namespace, reads, now, holding);
    const scopedProblems = [...config.problems.scoped, ...config.problems.features, ...(crds?.reportable ?? [])];
    const report = crds?.configWritable === false ? [] : planConfigReport(config.object, config.problems.limits, now, { scopedProblems, notes: config.slurmNotes });
    return { actions: [...report, ...reaper.actions], state: reaper.requested > 0 ? 'in-flight' : 'idle', report: reaper.repeatOffenders !== undefined ? { repeatOffenders: reaper.repeatOffenders } : {}, effects: terminationsEffect(reaper.terminations) };
  },
  reportsConfig: true,
  writesLeaveWork: false,
};
