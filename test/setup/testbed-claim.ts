// Vitest setup file of the testbed and e2e projects: before the test file is collected, it takes this worker's claim on
// one of the control planes the global setup started (test/support/testbed-claim.ts workerClaim). The worker keeps it
// for the files it runs after this one, one at a time, and the kernel frees it when the worker exits.
import { inject } from 'vitest';
import { useClaimedTestbed } from '../support/cluster.ts';
import { workerClaim } from '../support/testbed-claim.ts';

const claim = await workerClaim(inject('testbeds'));
useClaimedTestbed(claim.info);
