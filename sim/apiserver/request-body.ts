// The request body as the JSON text the handlers read: JSON as sent, kubectl's protobuf for the built-in kinds it
// creates decoded into the JSON it stands for, and a 415 saying what to send instead for what cannot be decoded.
import { badRequest, unsupportedBody, type ApiError } from './errors.ts';
import { decodeKubernetesProtobuf } from './protobuf/decode.ts';
import { UndecodableProtobufError, WireFormatError } from './protobuf/errors.ts';

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';
const CBOR_TYPES = ['application/cbor', 'application/cbor-seq'];

/** The advice every refusal ends with: kubectl's `create -f` and `apply` send JSON, whatever the kind. */
export const SEND_JSON =
  'send the object as JSON instead: `kubectl create … --dry-run=client -o yaml | kubectl create -f -` (kubectl create -f and kubectl apply send JSON), or Content-Type: application/json from another client';

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function refuse(err: unknown): ApiError {
  if (err instanceof WireFormatError) return badRequest(`the request body is not valid Kubernetes protobuf: ${err.message}`);
  if (err instanceof UndecodableProtobufError) return unsupportedBody(`the embedded API server cannot decode this protobuf body: ${err.message}; ${SEND_JSON}`);
  throw err;
}

/** The body as JSON text and the content type it now has (a decoded protobuf body is JSON from here on). */
export function requestBodyText(body: Buffer, contentType: string | undefined): { text: string; contentType: string | undefined } {
  if (body.length === 0) return { text: '', contentType };
  const type = mediaType(contentType);
  if (type === PROTOBUF_TYPE) {
    try {
      return { text: JSON.stringify(decodeKubernetesProtobuf(body)), contentType: 'application/json' };
    } catch (err) {
      throw refuse(err);
    }
  }
  if (CBOR_TYPES.includes(type)) {
    throw unsupportedBody(`the embedded API server does not read CBOR (kubectl sends it when KUBE_FEATURE_ClientsPreferCBOR is true: unset it); ${SEND_JSON}`);
  }
  return { text: body.toString('utf8'), contentType };
}
