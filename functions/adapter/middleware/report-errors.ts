// middy middleware: a refused event becomes a RejectedEvent answer (no stack, no retry); any other failure is
// logged as one line and rethrown so Lambda counts it, with any secret in its message masked.
import type { MiddlewareObj } from '@middy/core';
import type { Logger } from 'pino';
import { InvalidEventError, RunFailedError, type EventIssue } from '../errors.ts';
import { scrubSecrets } from '../log.ts';

/** What a function answers to an event it does not accept. */
export interface RejectedEvent {
  error: { name: 'InvalidEventError'; message: string; issues: EventIssue[] };
}

export function reportErrors(opts: { logger: Logger }): MiddlewareObj<unknown, RejectedEvent> {
  return {
    onError: (request) => {
      const err = request.error;
      if (err instanceof InvalidEventError) {
        const rejected: RejectedEvent = { error: { name: 'InvalidEventError', message: err.message, issues: [...err.issues] } };
        opts.logger.warn(rejected, 'event refused');
        request.response = rejected;
        return;
      }
      const message = err?.message ?? String(err);
      const cause = err?.cause instanceof Error ? err.cause.message : undefined;
      opts.logger.error({ error: { name: err?.name, message, ...(cause ? { cause } : {}) } }, 'run failed');
      // Lambda prints a thrown error's message and stack itself, past our log redaction.
      const scrubbed = scrubSecrets(message);
      if (scrubbed !== message) request.error = new RunFailedError(scrubbed, { cause: err });
    },
  };
}
