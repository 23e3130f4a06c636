// Live takeover between the upstream NVIDIA maintenance operator and kmaint (bench/takeover.ts, `npm run takeover`),
// on a fresh testbed of its own. Runs only when asked for with KMAINT_NVIDIA_OPERATOR_GIT (the git copy the operator is
// built from, or was: a cached build is used) and the testbed binaries are current: it takes about 80 s and a testbed
// of its own, too much to add to every npm test on 2 cores. Elsewhere it says so and is counted as skipped.
import { describe, expect, it } from 'vitest';
import type { TakeoverResult } from '../../bench/takeover.ts';
import { binariesAreCurrent } from '../build.ts';
import { NVIDIA_GIT_VARIABLE, ensureNvidiaOperator, nvidiaGitHint, nvidiaOperatorIsBuilt } from './build-nvidia.ts';

const OPERATOR = (process.env[NVIDIA_GIT_VARIABLE] ?? '') !== '';
const TESTBED = binariesAreCurrent();
const CAN_RUN = OPERATOR && TESTBED;
if (!CAN_RUN) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  const needs = [!OPERATOR ? `${NVIDIA_GIT_VARIABLE} set (${nvidiaGitHint()}; built ${nvidiaOperatorIsBuilt() !== undefined ? 'and cached' : 'on first use'})` : '', !TESTBED ? 'the testbed binaries (npm run testbed:build)' : ''].filter(Boolean);
  process.stderr.write(`[testbed/peers/takeover] NOT RUN: the live takeover test needs ${needs.join(' and ')}; it is counted as skipped\n`);
}

describe.skipIf(!CAN_RUN)('live takeover between the NVIDIA maintenance operator and kmaint (one testbed, two nodes)', () => {
  let result: TakeoverResult;

  it('upstream → kmaint: released, node cordoned once and uncordoned once, finalizer removed once, each pod evicted once; kmaint → upstream: the same, but upstream evicts again the pod kmaint left stopping and leaves kmaint\'s node record', { timeout: 900_000 }, async () => {
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
      evictionsOfTerminating: r.evictionsOfTerminating,
      evictionsBefore: r.evictionsBefore,
      evictionsAfter: r.evictionsAfter,
      nodeLeftovers: r.nodeLeftovers,
      unschedulableAtEnd: r.unschedulableAtEnd,
    });
    expect([a, b]).toEqual(['node-001', 'node-002']);
    expect(result.forward.phases).toEqual(['Pending', 'Scheduled', 'Cordon', 'WaitForPodCompletion', 'Draining', 'Ready']);
    expect(shape(result.forward)).toEqual({
      released: true,
      cordons: 1,
      uncordons: 1,
      finalizerAdded: 1,
      finalizerRemoved: 1,
      // upstream evicted web, kmaint db once the PDB let it; web was still stopping at the switch and kmaint left it be.
      evictions: { 'web-node-001': 1, 'db-node-001': 1 },
      evictionsOfTerminating: {},
      evictionsBefore: 1,
      evictionsAfter: 1,
      nodeLeftovers: {},
      unschedulableAtEnd: false,
    });
    expect(shape(result.reverse)).toEqual({
      released: true,
      cordons: 1,
      uncordons: 1,
      finalizerAdded: 1,
      finalizerRemoved: 1,
      // Upstream keeps no drain progress: it evicts web again while web is still stopping (the second 201 changes nothing).
      evictions: { 'web-node-002': 2, 'db-node-002': 1 },
      evictionsOfTerminating: { 'web-node-002': 1 },
      evictionsBefore: 1,
      evictionsAfter: 2,
      // Upstream uncordons by the initial-state annotation and leaves kmaint's records (README "Going back"): the cordon's
      // and the admission's (issue 40), which names the request's uid.
      nodeLeftovers: {
        'kmaint.io/admitted': expect.stringMatching(/^bench\/takeover-kmaint-to-nvidia-operator\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) as unknown as string,
        'kmaint.io/cordon-reason': 'NodeMaintenance bench/takeover-kmaint-to-nvidia-operator (requestor takeover.kmaint.example)',
        'kmaint.io/cordoned-by': 'kmaint/bench/takeover-kmaint-to-nvidia-operator',
      },
      unschedulableAtEnd: false,
    });
  });
});
