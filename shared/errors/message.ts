// The text of a caught value for a message: an Error's message (optionally with its name, stack or cause), anything
// else as String() gives it. The one place `err instanceof Error ? err.message : String(err)` is written (the lint rule
// in eslint.config.js refuses a new copy).

export interface ErrorMessageOptions {
  /** `AccessDenied: …`: the error's name before its message (AWS SDK errors name their code). @default false */
  name?: boolean;
  /** The stack when there is one, else the message (for a command's last words). @default false */
  stack?: boolean;
  /** `…: <cause's message>` when the cause is an Error (fetch's `fetch failed` says why only in its cause). @default false */
  cause?: boolean;
}

/** What went wrong, as one string; a value that is not an Error is shown as String() shows it. */
export function errorMessage(err: unknown, opts: ErrorMessageOptions = {}): string {
  if (!(err instanceof Error)) return String(err);
  const text = opts.stack ? (err.stack ?? err.message) : opts.name ? `${err.name}: ${err.message}` : err.message;
  return opts.cause && err.cause instanceof Error ? `${text}: ${err.cause.message}` : text;
}
