// What a Slurm start that never got every node IDLE says it last saw.
import { describe, expect, it } from 'vitest';
import { nodeStates } from './cluster.ts';

describe('nodeStates', () => {
  it('names each expected node with its states joined, and one slurmrestd did not list', () => {
    expect(nodeStates(['n1', 'n2', 'n3'], [{ name: 'n2', state: ['IDLE', 'NOT_RESPONDING'] }, { name: 'n1', state: ['IDLE'] }, { name: 'n9', state: ['DOWN'] }])).toBe(
      'n1 IDLE, n2 IDLE+NOT_RESPONDING, n3 (not listed)',
    );
  });
});
