// Errors of the reaper: an instance provider that could not terminate the machine behind a providerID.
import { KmaintError } from '../errors/index.ts';

export class ReaperProviderError extends KmaintError {
  override name = 'ReaperProviderError';
  readonly providerID: string;
  constructor(providerID: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.providerID = providerID;
  }
}
