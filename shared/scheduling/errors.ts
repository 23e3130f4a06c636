// The error the scheduling invariant checker throws: a plan that would break a limit or a rule.
import { KmaintError } from '../errors/index.ts';

/** A plan violates a scheduling invariant; `violations` lists every broken rule, one sentence each. */
export class SchedulingInvariantError extends KmaintError {
  override name = 'SchedulingInvariantError';
  readonly violations: readonly string[];

  constructor(violations: readonly string[]) {
    super(`checking scheduling invariants: ${violations.join('; ')}`);
    this.violations = violations;
  }
}
