// The base of every kmaint error: subclasses carry the fields a caller needs and always keep `cause`.
export class KmaintError extends Error {
  override name = 'KmaintError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
