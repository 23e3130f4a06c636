// Vitest setup file of the testbed and e2e projects: before the test file is collected, it claims one of the control
// planes the global setup started (test/support/testbed-claim.ts) and holds it until the file's last hook has run
// (the hygiene check included: its afterAll was registered later, so it runs first).
import { afterAll, inject } from 'vitest';
import { useClaimedTestbed } from '../support/cluster.ts';
import { claimTestbed } from '../support/testbed-claim.ts';

const claim = await claimTestbed(inject('testbeds'));
useClaimedTestbed(claim.info);
afterAll(() => {
  claim.release();
});
