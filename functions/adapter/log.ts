// The functions' pino logger: JSON lines on stdout, the Lambda request id on every line, secrets never written.
import pino, { type DestinationStream, type Logger } from 'pino';

/** Fields whose values are replaced wherever they appear up to three levels deep. */
const SECRET_KEYS = ['token', 'bearerToken', 'authorization', 'Authorization', 'password', 'secret', 'secretAccessKey', 'sessionToken', 'caData', 'keyData'];
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

/** Secrets that could hide inside free text (an error message, a URL): bearer tokens, EKS tokens, presigned URL parts. */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]'],
  [/k8s-aws-v1\.[A-Za-z0-9_-]+/g, 'k8s-aws-v1.[redacted]'],
  [/(X-Amz-(?:Signature|Security-Token|Credential)=)[^&"\s]+/gi, '$1[redacted]'],
];

/** Last line of defence for text that reaches the log stream. Pure. */
export function scrubSecrets(line: string): string {
  return SECRET_PATTERNS.reduce((s, [re, by]) => s.replace(re, by), line);
}

export interface LambdaLogger {
  logger: Logger;
  /** Stamped on every following line until changed (one invocation at a time per container). */
  setRequestId(id: string | undefined): void;
}

export interface LambdaLoggerOptions {
  level: string;
  /** @default stdout, synchronously (Lambda freezes the process after the response) */
  destination?: DestinationStream;
}

export function createLambdaLogger(opts: LambdaLoggerOptions): LambdaLogger {
  let requestId: string | undefined;
  const logger = pino(
    {
      level: opts.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => (requestId ? { requestId } : {}),
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: scrubSecrets },
    },
    opts.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return { logger, setRequestId: (id) => (requestId = id) };
}
