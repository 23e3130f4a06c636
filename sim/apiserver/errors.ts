// metav1.Status failures with the real API server's reasons, codes and wording (apimachinery errors + field errors).

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A request the simulated API server answers with a Status body (and Retry-After when the status says so). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly status: StatusBody) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
  }
  get code(): number {
    return this.status.code;
  }
}

/** Which resource an error is about: `pods`, or `nodemaintenances` in group `maintenance.nvidia.com`. */
export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function failure(code: number, reason: string | undefined, message: string, details?: StatusDetails): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  });
}

function grDetails(gr: GroupResource, name: string): StatusDetails {
  return { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource };
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return failure(404, 'NotFound', `${qualified(gr)} "${name}" not found`, grDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return failure(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, grDetails(gr, name));
}

export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, detail: string = OBJECT_MODIFIED): ApiError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${detail}`, grDetails(gr, name));
}

export function badRequest(message: string): ApiError {
  return failure(400, 'BadRequest', message);
}

export function forbidden(gr: GroupResource, name: string, detail: string): ApiError {
  return failure(403, 'Forbidden', `${qualified(gr)} "${name}" is forbidden: ${detail}`, grDetails(gr, name));
}

export function methodNotAllowed(): ApiError {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function resourceNotFound(): ApiError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function unsupportedMediaType(accepted: readonly string[]): ApiError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** 415 with a message of our own: what the body was and what to send instead. */
export function unsupportedBody(message: string): ApiError {
  return failure(415, 'UnsupportedMediaType', message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number, causes: StatusCause[] = []): ApiError {
  const details: StatusDetails = {};
  if (causes.length > 0) details.causes = causes;
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return failure(429, 'TooManyRequests', message, details);
}

export function internalError(message: string): ApiError {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** A Status whose code and message are given verbatim (e.g. eviction's 500 without a reason). */
export function rawFailure(code: number, message: string): ApiError {
  return failure(code, undefined, message);
}

/** The JSON patch/merge failures the API server reports as 422 with a generic message. */
export function patchRejected(): ApiError {
  return failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate';

/** One field.Error: `field` is the dotted path (`<nil>` for none), `body` is ErrorBody(). */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  body: string;
}

/** Go's rendering of a bad value in field errors: %q for strings, %v for numbers and booleans, JSON otherwise. */
export function formatBadValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return 'null';
  return JSON.stringify(value);
}

export const fieldErrors = {
  invalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, body: `Invalid value: ${formatBadValue(value)}${detail ? `: ${detail}` : ''}` }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, body: `Invalid value: ${formatBadValue(value)}: ${detail}` }),
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, body: `Required value${detail ? `: ${detail}` : ''}` }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    body: `Unsupported value: ${formatBadValue(value)}${supported.length > 0 ? `: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : ''}`,
  }),
  tooLong: (field: string, max: number): FieldError => ({ type: 'FieldValueTooLong', field, body: `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` }),
  /** field.TooMany, as the API server reports a CRD's maxItems (test/attacks-input.test.ts shows the text). */
  tooMany: (field: string, actual: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field, body: `Too many: ${actual}: must have at most ${max} items` }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, body: `Forbidden: ${detail}` }),
};

/** 422 Invalid: `Kind.group "name" is invalid: field: body` (several errors in brackets), each one a cause. */
export function invalid(kind: string, group: string, name: string, errors: readonly FieldError[]): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  // The message lists each distinct error once (an aggregate's Error()); the causes keep every one.
  const texts = [...new Set(errors.map((e) => `${e.field}: ${e.body}`))];
  const joined = texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
  return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    // Empty fields are left out (omitempty), as for a create without a name.
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
  });
}

/** A success Status: eviction and binding answer with a code, DELETE with the deleted object's details. */
export function successStatus(code: number | undefined, details?: StatusDetails): Omit<StatusBody, 'code'> & { code?: number } {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', ...(details ? { details } : {}), ...(code !== undefined ? { code } : {}) };
}
