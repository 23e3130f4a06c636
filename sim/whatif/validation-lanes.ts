// Issue 44 point 1 in what-if: a released request's node that validates before its uncordon. The Node says so
// (validation.kmaint.io/job and /for for that request, no outcome yet); the observer draws a `Validating` span on the
// node's lane from the first sight of that record until the uncordon, or, when the validation failed and the node
// stayed cordoned, a `ValidationFailed: stayed cordoned` span from the failure until the node is uncordoned (or the run
// ends). Every attempt seen is kept for the report: node, request, start, end, outcome.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_VALIDATION_CORDONED_BY, ANNOTATION_VALIDATION_FOR, ANNOTATION_VALIDATION_JOB, ANNOTATION_VALIDATION_OUTCOME } from '../../shared/api/index.ts';

export const PHASE_VALIDATING = 'Validating';
export const PHASE_VALIDATION_FAILED_CORDONED = 'ValidationFailed: stayed cordoned';

export type ValidationOutcome = 'running' | 'Passed' | 'Failed' | 'TimedOut';

export interface ValidationAttempt {
  node: string;
  /** namespace/name of the released request the attempt validates. */
  request: string;
  /** Run ms when the Node first carried the attempt's record. */
  startMs: number;
  /** Run ms of the uncordon after it passed, or of the failure; absent while it runs. */
  endMs?: number;
  outcome: ValidationOutcome;
  /** Failed or timed out and the node stayed cordoned. */
  stayedCordoned: boolean;
}

/** What the Node's validation records say, as what-if needs it. */
interface NodeRecord {
  request: string;
  outcome: ValidationOutcome;
}

function readRecord(node: V1Node): NodeRecord | undefined {
  const a = node.metadata?.annotations ?? {};
  const forId = a[ANNOTATION_VALIDATION_FOR];
  if (forId === undefined) return undefined;
  // namespace/name/uid: the request is the first two parts.
  const request = forId.split('/').slice(0, 2).join('/');
  const outcome = a[ANNOTATION_VALIDATION_OUTCOME];
  if (outcome === 'Passed' || outcome === 'Failed' || outcome === 'TimedOut') return { request, outcome };
  return a[ANNOTATION_VALIDATION_JOB] !== undefined ? { request, outcome: 'running' } : undefined;
}

/** How the lanes change: the observer forwards these to its TimelineRecorder. */
export interface LaneSink {
  /** The request's span on `node` turns to `phase` (Validating, the failed span, or back to deleting). */
  phase(request: string, node: string, phase: string, atMs: number): void;
  /** The request's span ends (its failed span, once the node is uncordoned). */
  end(request: string, atMs: number): void;
  /** The request was released already (its own lane span ended). */
  released(request: string): boolean;
}

export class ValidationLanes {
  readonly attempts: ValidationAttempt[] = [];
  /** The attempt on a node whose Validating span is open (it runs, or passed and the uncordon is to come). */
  private readonly open = new Map<string, ValidationAttempt>();
  /** The request whose failed validation keeps the node cordoned, by node. */
  private readonly failedCordoned = new Map<string, string>();

  constructor(private readonly sink: LaneSink) {}

  /** The phase to draw for a request being deleted on `node`: Validating while its node validates for it. */
  deletingPhase(request: string, node: string): string {
    if (this.open.get(node)?.request === request) return PHASE_VALIDATING;
    if (this.failedCordoned.get(node) === request) return PHASE_VALIDATION_FAILED_CORDONED;
    return 'deleting';
  }

  /** Whether the request's span outlives its release (the failed validation keeps its node cordoned). */
  keepsSpan(request: string, node: string): boolean {
    return this.failedCordoned.get(node) === request;
  }

  /**
   * The request was released. A Validating span still open ends: after a pass the uncordon was not kmaint's to do;
   * after a failure with the node still cordoned, the node stayed cordoned and its failed span starts here.
   */
  onReleased(request: string, node: string, cordoned: boolean, atMs: number): void {
    const a = this.open.get(node);
    if (a?.request !== request) return;
    this.open.delete(node);
    if (a.outcome === 'running') a.outcome = 'Passed';
    a.endMs ??= atMs;
    if (a.outcome !== 'Passed' && cordoned) this.stayCordoned(a, atMs);
  }

  onNode(node: V1Node, atMs: number): void {
    const name = node.metadata?.name ?? '';
    const cordoned = node.spec?.unschedulable === true;
    const record = readRecord(node);
    const kept = this.failedCordoned.get(name);
    if (kept !== undefined && (!cordoned || (record?.outcome === 'running' && record.request !== kept))) {
      this.failedCordoned.delete(name);
      this.sink.end(kept, atMs);
    }
    let a = this.open.get(name);
    if (record?.outcome === 'running' && a?.request !== record.request) {
      a = { node: name, request: record.request, startMs: atMs, outcome: 'running', stayedCordoned: false };
      this.attempts.push(a);
      this.open.set(name, a);
      if (!this.sink.released(a.request)) this.sink.phase(a.request, name, PHASE_VALIDATING, atMs);
    }
    if (!a) return;
    if (record?.request === a.request && record.outcome !== 'running' && a.outcome === 'running') {
      a.outcome = record.outcome;
      // Passed: the attempt ends with the uncordon after it; failed: it ended now.
      if (record.outcome !== 'Passed') a.endMs = atMs;
      // keepCordoned moved kmaint's cordon record to the validation's: the node stays cordoned.
      if (record.outcome !== 'Passed' && cordoned && node.metadata?.annotations?.[ANNOTATION_VALIDATION_CORDONED_BY] !== undefined) {
        this.open.delete(name);
        this.stayCordoned(a, atMs);
        return;
      }
    }
    if (a.outcome === 'running' || cordoned) return;
    // Uncordoned after the outcome: the Validating span ends.
    a.endMs ??= atMs;
    this.open.delete(name);
    if (!this.sink.released(a.request)) this.sink.phase(a.request, name, 'deleting', atMs);
  }

  private stayCordoned(a: ValidationAttempt, atMs: number): void {
    a.stayedCordoned = true;
    this.failedCordoned.set(a.node, a.request);
    this.sink.phase(a.request, a.node, PHASE_VALIDATION_FAILED_CORDONED, atMs);
  }
}
