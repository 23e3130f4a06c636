// CLI usage errors: exit code 2 with a one-line reason.
import { KmaintError } from '../shared/errors/index.ts';

export class UsageError extends KmaintError {
  override name = 'UsageError';
}
