// The scheduler's add-ons are applied in the order ADD_ONS lists them: the order is part of their meaning (the config
// report before the refusals it explains, the handshakes after the admissions they follow, Slurm last).
import { describe, expect, it } from 'vitest';
import { ADD_ONS } from './pass-scheduler.ts';

describe('the scheduler pass: ADD_ONS', () => {
  it('lists the scheduler-pass features in the order their writes are applied', () => {
    expect(ADD_ONS.map((a) => a.name)).toEqual(['config report', 'foreign CRDs', 'admission', 'deadlines', 'node-annotation handshake', 'SR-IOV handshake', 'cloud events off', 'reboot sentinel', 'malformed requests', 'Slurm reservations']);
  });
});
