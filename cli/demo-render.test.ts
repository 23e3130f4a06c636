// The demo summary's line on the node an administrator cordoned before the demo (cli/demo-render.ts preCordonLine).
import { describe, expect, it } from 'vitest';
import { preCordonLine } from './demo-render.ts';

describe('preCordonLine', () => {
  it.each<[string, string[], string]>([
    ['no violation', [], '  node-006 was cordoned before the demo and is still cordoned'],
    ['only its request unfinished (a demo stopped by --timeout)', ['request default/os-upgrade-node-006 did not finish'], '  node-006 was cordoned before the demo and is still cordoned'],
    ['another node uncordoned', ['node node-0061 is schedulable, was cordoned'], '  node-006 was cordoned before the demo and is still cordoned'],
    ['its cordon lifted', ['request default/a did not finish', 'node node-006 is schedulable, was cordoned'], '  node-006 was cordoned before the demo and is NOT cordoned'],
    ['the node gone', ['node node-006 is gone'], '  node-006 was cordoned before the demo and is gone'],
  ])('%s', (_what, violations, line) => {
    expect(preCordonLine('node-006', violations)).toBe(line);
  });
});
