// Errors of the Lambda surface: an event we refuse, and an environment we cannot run with.
import { KmaintError } from '../../shared/errors/index.ts';

export interface EventIssue {
  /** Dotted path of the offending field, "" for the event itself. */
  path: string;
  message: string;
}

/** The event is not one of the three kmaint accepts; answered with a RejectedEvent, never retried. */
export class InvalidEventError extends KmaintError {
  override name = 'InvalidEventError';
  constructor(
    message: string,
    readonly issues: readonly EventIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The function's environment variables are missing or invalid; the invocation fails. */
export class LambdaSettingsError extends KmaintError {
  override name = 'LambdaSettingsError';
  constructor(
    message: string,
    readonly issues: readonly EventIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The next function of a chain cannot be started: its function name is not configured. */
export class ChainStartError extends KmaintError {
  override name = 'ChainStartError';
  constructor(
    /** The function that was to be started. */
    readonly target: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A run failed with a message that had to be masked; the original error is the cause. */
export class RunFailedError extends KmaintError {
  override name = 'RunFailedError';
}
