// The Drained predicate over every state/flag combination seen on Slurm 24.11 (../shared/reference/slurm-notes.md).
import { describe, expect, it } from 'vitest';
import { formatState, hasDrainFlag, isDrained } from './state.ts';

interface Row {
  rule: string;
  state: string[];
  drainFlag: boolean;
  drained: boolean;
  shown: string;
}

const ROWS: Row[] = [
  { rule: 'an idle node is not drained (no DRAIN flag)', state: ['IDLE'], drainFlag: false, drained: false, shown: 'IDLE' },
  { rule: 'a node running a job while draining is not drained yet (sinfo: draining)', state: ['ALLOCATED', 'DRAIN'], drainFlag: true, drained: false, shown: 'ALLOCATED+DRAIN' },
  { rule: 'a node whose job ended but whose epilog runs is not drained yet (COMPLETING)', state: ['IDLE', 'DRAIN', 'COMPLETING'], drainFlag: true, drained: false, shown: 'IDLE+DRAIN+COMPLETING' },
  { rule: 'an idle node with the DRAIN flag is drained (sinfo: drained)', state: ['IDLE', 'DRAIN'], drainFlag: true, drained: true, shown: 'IDLE+DRAIN' },
  { rule: 'a down, not responding node with the DRAIN flag is drained (sinfo: drained*)', state: ['DOWN', 'DRAIN', 'NOT_RESPONDING'], drainFlag: true, drained: true, shown: 'DOWN+DRAIN+NOT_RESPONDING' },
  { rule: 'an idle node that stopped responding, without DRAIN, is not drained', state: ['IDLE', 'NOT_RESPONDING'], drainFlag: false, drained: false, shown: 'IDLE+NOT_RESPONDING' },
  { rule: 'a down node without DRAIN (after undrain) is not drained', state: ['DOWN', 'NOT_RESPONDING'], drainFlag: false, drained: false, shown: 'DOWN+NOT_RESPONDING' },
  { rule: 'a partly allocated node while draining is not drained yet (MIXED)', state: ['MIXED', 'DRAIN'], drainFlag: true, drained: false, shown: 'MIXED+DRAIN' },
  { rule: 'an allocated node without DRAIN is not drained', state: ['ALLOCATED'], drainFlag: false, drained: false, shown: 'ALLOCATED' },
  { rule: 'a mixed node without DRAIN is not drained', state: ['MIXED'], drainFlag: false, drained: false, shown: 'MIXED' },
  { rule: 'COMPLETING without DRAIN is not drained', state: ['IDLE', 'COMPLETING'], drainFlag: false, drained: false, shown: 'IDLE+COMPLETING' },
  { rule: 'allocated and completing while draining is not drained', state: ['ALLOCATED', 'DRAIN', 'COMPLETING'], drainFlag: true, drained: false, shown: 'ALLOCATED+DRAIN+COMPLETING' },
  { rule: 'an empty state array is not drained and shows as UNKNOWN', state: [], drainFlag: false, drained: false, shown: 'UNKNOWN' },
];

describe('Slurm node state', () => {
  it.each(ROWS)('$rule', (row) => {
    expect({ drainFlag: hasDrainFlag(row.state), drained: isDrained(row.state), shown: formatState(row.state) }).toEqual({ drainFlag: row.drainFlag, drained: row.drained, shown: row.shown });
  });
});
