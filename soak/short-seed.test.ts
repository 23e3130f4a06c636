// Issue 30 point 4: a short seed of the all-features soak in `npm test`. The long seeds (three on the testbed, with a
// real Slurm) are `npm run soak -- --profile all-features …` (docs/benchmarks.md "Soak: every feature together"); this
// one runs every feature but Slurm (the sim has none) on the embedded simulated cluster: 12 nodes, 6 s of requestors
// and an administrator at work, 5% API faults, passes killed mid-way, then the wind-down. It must end with no invariant
// broken, every request created released, the passes quiet, and nothing left that the owner table says must go (the
// checker's end rules: soak/feature-invariants.ts checkLeftovers and checkEnd, reported as violations).
// About 33-40 s on a quiet 2-core machine (16-21 s of CPU); the wind-down ends as soon as every request is released,
// its 5-minute cap only leaves room for a loaded machine (at load ~20 a seed once needed more than 3 minutes).
import { describe, expect, it } from 'vitest';
import { runSoakOnSim } from './on-sim.ts';

describe('the all-features soak, short seed 3 on the embedded simulated cluster', () => {
  it('no violation, every request created completed, the passes quiet at the end', async () => {
    const report = await runSoakOnSim(12, { seed: 3, activeMs: 6_000, windDownMs: 300_000, kmaintNamespace: 'kmaint', profile: 'all-features' });
    expect({
      violations: report.violations,
      completedAll: report.completed === report.created && report.created > 0,
      quiet: report.features?.quiet.quiet,
      slurm: report.features?.slurm.problem,
    }).toEqual({ violations: [], completedAll: true, quiet: true, slurm: 'no Slurm given (the sim has none)' });
  }, 600_000);
});
