// Errors of shared/metrics: a push the Pushgateway did not take.
import { KmaintError } from '../errors/index.ts';

export class MetricsPushError extends KmaintError {
  override name = 'MetricsPushError';
  /** The group's URL the push went to. */
  readonly url: string;
  /** The HTTP status, or undefined when no answer came (connection refused, timeout). */
  readonly status: number | undefined;
  constructor(url: string, status: number | undefined, message: string, options?: ErrorOptions) {
    super(message, options);
    this.url = url;
    this.status = status;
  }
}
