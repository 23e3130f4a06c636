// Why an admission gate refuses a request, as a value: explain, the gang trial and the walk read its gate and kind,
// never its text, which is only what the Ready condition's message says.
/**
 * What kind of refusal a gate made, so nothing reads it back from its text: `time` (only time frees it: a window, the
 * request's own not-before, the release delay), `unusable` (a value that cannot be used admits nothing until it is fixed), `limit` (a count
 * reached: something in its scope must finish, Gate.freedBy), `external-limit` / `external-problem` (another system's pool
 * is full / cannot be known), `blocked` (kured's blockers: a pod on the node or a firing alert; only what they watch frees it).
 */
export type RefusalKind = 'time' | 'unusable' | 'limit' | 'external-limit' | 'external-problem' | 'blocked';

/** A gate's refusal: which gate, what kind, and the wait reason it writes (the text of the Ready condition's message). */
export interface Refusal {
  readonly gate: string;
  readonly kind: RefusalKind;
  readonly text: string;
}

/** A refusal of `gate`, or undefined when it has no text (the gate lets the request through). */
export const refusal = (gate: string, kind: RefusalKind, text: string | undefined): Refusal | undefined => (text === undefined ? undefined : { gate, kind, text });

