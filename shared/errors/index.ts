// The base of every kmaint error (subclasses carry the fields a caller needs and always keep `cause`), and the text of a
// caught value for a message (errorMessage).
export class KmaintError extends Error {
  override name = 'KmaintError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

export type { ErrorMessageOptions } from './message.ts';
export { errorMessage } from './message.ts';
