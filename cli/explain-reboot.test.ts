// kmaint explain's next step for a request in the Rebooting phase (issue 43).
import { describe, expect, it } from 'vitest';
import { aLifecycleMaintenance } from '../shared/lifecycle/test-builders.ts';
import { nextByPhase } from './explain-sections.ts';

describe('explain: Rebooting', () => {
  it('says what the drainer waits for and what a timeout leaves', () => {
    const nm = aLifecycleMaintenance({ name: 'nm-a', nodeName: 'node-1', phase: 'Rebooting' });
    expect(nextByPhase(nm)).toBe('node node-1 reboots (issue 43): the drainer marks the request Ready once the node reports a new boot ID and Ready, or reports a timeout after spec.reboot.timeoutSeconds (the node stays cordoned)');
  });
});
