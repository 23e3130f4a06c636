// Live takeover between the upstream NVIDIA maintenance operator and kmaint (bench/takeover.ts, `npm run takeover`),
// on a fresh testbed of its own. Runs where the operator is built (or KMAINT_NVIDIA_OPERATOR_GIT lets it be built)
// and the testbed binaries are; elsewhere it says so and is counted as skipped.
import { describe, expect, it } from 'vitest';
import type { TakeoverResult } from '../../bench/takeover.ts';
import { binariesAreCurrent } from '../build.ts';
import { NVIDIA_GIT_VARIABLE, ensureNvidiaOperator, nvidiaGitHint, nvidiaOperatorIsBuilt } from './build-nvidia.ts';

const OPERATOR = nvidiaOperatorIsBuilt() !== undefined || (process.env[NVIDIA_GIT_VARIABLE] ?? '') !== '';
const TESTBED = binariesAreCurrent();
const CAN_RUN = OPERATOR && TESTBED;
if (!CAN_RUN) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  const needs = [!OPERATOR ? `the upstream operator built (${nvidiaGitHint()})` : '', !TESTBED ? 'the testbed binaries (npm run testbed:build)' : ''].filter(Boolean);
  process.stderr.write(`[testbed/peers/takeover] NOT RUN: the live takeover test needs ${needs.join(' and ')}; it is counted as skipped\n`);
}

describe.skipIf(!CAN_RUN)('live takeover between the NVIDIA maintenance operator and kmaint (one testbed, two nodes)', () => {
  let result: TakeoverResult;

  it('upstream → kmaint, then kmaint → upstream: each request released, node cordoned once and uncordoned once, no pod evicted twice, finalizer removed once', { timeout: 900_000 }, async () => {
    // Imported here, not at the top: where the test cannot run it costs npm test nothing (no client, no esbuild).
    const { runTakeover } = await import('../../bench/takeover.ts');
    const nvidia = await ensureNvidiaOperator({ log: () => undefined });
    result = await runTakeover({ nvidia, log: () => undefined });
    const [a, b] = [result.forward.node, result.reverse.node];
    const shape = (r: TakeoverResult['forward']) => ({
      released: r.released,
      cordons: r.cordons,
      uncordons: r.uncordons,
      finalizerAdded: r.finalizerAdded,
      finalizerRemoved: r.finalizerRemoved,
      evictions: r.evictions,
      evictionsBefore: r.evictionsBefore,
      evictionsAfter: r.evictionsAfter,
      unschedulableAtEnd: r.unschedulableAtEnd,
    });
    expect(shape(result.forward)).toEqual({
      released: true,
      cordons: 1,
      uncordons: 1,
      finalizerAdded: 1,
      finalizerRemoved: 1,
      evictions: { [`web-${a}`]: 1, [`db-${a}`]: 1 },
      evictionsBefore: 1,
      evictionsAfter: 1,
      unschedulableAtEnd: false,
    });
    expect(shape(result.reverse)).toEqual({
      released: true,
      cordons: 1,
      uncordons: 1,
      finalizerAdded: 1,
      finalizerRemoved: 1,
      evictions: { [`web-${b}`]: 1, [`db-${b}`]: 1 },
      evictionsBefore: 1,
      evictionsAfter: 1,
      unschedulableAtEnd: false,
    });
  });
});
