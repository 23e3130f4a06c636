// Issue 44 point 1 in what-if: the text report (and so the HTML report's summary) names the nodes that validated before
// their uncordon, each node's wait and how it ended.
import { expect, it } from 'vitest';
import { summaryRows } from '../report-file.ts';
import { validationLine } from './render.ts';

it('names each validating node with its wait and outcome, and the longest wait', () => {
  const line = validationLine([
    { node: 'n1', request: 'default/whatif-n1', startMs: 3000, waitMs: 30_000, outcome: 'Passed', stayedCordoned: false },
    { node: 'n2', request: 'default/whatif-n2', startMs: 5000, waitMs: 60_000, outcome: 'TimedOut', stayedCordoned: true },
    { node: 'n3', request: 'default/whatif-n3', startMs: 9000, waitMs: 4500, outcome: 'running', stayedCordoned: false },
  ]);
  expect(line).toBe('validation before uncordon: 3 nodes, longest wait 1m 00s: n1 30s passed, n2 1m 00s timed out (stayed cordoned), n3 4.5s still validating');
  expect(summaryRows([line])).toEqual([['validation before uncordon', '3 nodes, longest wait 1m 00s: n1 30s passed, n2 1m 00s timed out (stayed cordoned), n3 4.5s still validating']]);
});
