// Chaining decisions: which function starts next, and every reason it does not.
import { describe, expect, it } from 'vitest';
import type { PassFunction } from '../pass/index.ts';
import { decideChain, type ChainDecision, type ChainFacts, type ChainSettings } from './chain.ts';

const FACTS: ChainFacts = { admitted: 0, becameReady: 0, awaitingCleanup: 0, dryRun: false };
const ON: ChainSettings = { enabled: true, depth: 0, maxDepth: 3 };

describe('decideChain', () => {
  it.each<[string, PassFunction, Partial<ChainFacts>, Partial<ChainSettings>, ChainDecision]>([
    ['the scheduler admitting requests starts the drainer one level deeper', 'scheduler', { admitted: 2 }, {}, { kind: 'invoke', target: 'drainer', depth: 1, reason: 'scheduler admitted 2' }],
    ['a scheduler that admitted nothing starts nothing', 'scheduler', { becameReady: 1, awaitingCleanup: 1 }, {}, { kind: 'none', reason: 'nothing for the next function to do after scheduler' }],
    ['the drainer making a request Ready starts cleanup', 'drainer', { becameReady: 1 }, { depth: 1 }, { kind: 'invoke', target: 'cleanup', depth: 2, reason: 'drainer made 1 Ready' }],
    ['the drainer seeing deleted requests starts cleanup', 'drainer', { awaitingCleanup: 3 }, {}, { kind: 'invoke', target: 'cleanup', depth: 1, reason: '3 deleted requests await cleanup' }],
    ['cleanup ends every chain', 'cleanup', { admitted: 1, becameReady: 1, awaitingCleanup: 1 }, {}, { kind: 'none', reason: 'nothing for the next function to do after cleanup' }],
    ['chaining off starts nothing', 'scheduler', { admitted: 1 }, { enabled: false }, { kind: 'none', reason: 'chaining is off' }],
    ['a dry run starts nothing', 'scheduler', { admitted: 1, dryRun: true }, {}, { kind: 'none', reason: 'a dry run starts nothing' }],
    ['depth 2 of 3 may still start depth 3', 'scheduler', { admitted: 1 }, { depth: 2 }, { kind: 'invoke', target: 'drainer', depth: 3, reason: 'scheduler admitted 1' }],
    ['the depth bound stops a chain at maxDepth', 'scheduler', { admitted: 1 }, { depth: 3 }, { kind: 'none', reason: 'chain depth bound 3 reached (would start drainer: scheduler admitted 1)' }],
    ['maxDepth 0 disables chaining by depth', 'drainer', { becameReady: 1 }, { maxDepth: 0 }, { kind: 'none', reason: 'chain depth bound 0 reached (would start cleanup: drainer made 1 Ready)' }],
    ['a negative depth fails closed', 'scheduler', { admitted: 1 }, { depth: -1 }, { kind: 'none', reason: 'chain depth bound 3 reached (would start drainer: scheduler admitted 1)' }],
  ])('%s', (_rule, fn, facts, settings, expected) => {
    expect(decideChain(fn, { ...FACTS, ...facts }, { ...ON, ...settings })).toEqual(expected);
  });
});
