// CLI errors and the exit code each stands for: 2 for usage or configuration (fix the command line, the kubeconfig,
// the MaintenanceOperatorConfig or the AWS setup), 1 for a command that ran and failed.
import { errorMessage, KmaintError } from '../shared/errors/index.ts';
import { KubeConfigError } from '../shared/kube/index.ts';

/** A flag or argument the command cannot use. Exit 2. */
export class UsageError extends KmaintError {
  override name = 'UsageError';
}

/** Something to fix outside the command line: the MaintenanceOperatorConfig, AWS credentials or names. Exit 2. */
export class ConfigurationError extends KmaintError {
  override name = 'ConfigurationError';
}

/** The command ran and what it ran failed (a Lambda function error, a refused event). Exit 1. */
export class CommandFailedError extends KmaintError {
  override name = 'CommandFailedError';
}

export function exitCodeOf(err: unknown): 1 | 2 {
  return err instanceof UsageError || err instanceof ConfigurationError || err instanceof KubeConfigError ? 2 : 1;
}

/** The one line a failure prints on stderr (the first line of its message). */
export function reasonLine(err: unknown): string {
  const message = errorMessage(err);
  return `kmaint: ${message.split('\n')[0] ?? ''}`;
}

/**
 * The exit-2 error for a pass that found the MaintenanceOperatorConfig unusable (the scheduler admits nothing, or
 * a pool or window admits nothing, until it is fixed). `where` names the object when known.
 */
export function invalidConfigError(configProblems: readonly string[], where = 'MaintenanceOperatorConfig'): ConfigurationError | undefined {
  const problems = [...new Set(configProblems)];
  if (problems.length === 0) return undefined;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new ConfigurationError(`${where} is invalid: ${problems[0] ?? ''}${more}`);
}
