// `kmaint explain -o json|yaml`: one object per explained request with typed fields, built from the same sections the
// text prints (cli/explain.ts explainSections, cli/explain-sections.ts): the request, its node and phase, the stage
// that holds it, every check of each section with its kind, the waits and the pods held, and what has to happen next.
import { maintenanceKey, maintenancePhase, readyCondition } from '../shared/api/index.ts';
import { malformedMessage } from '../shared/pass/index.ts';
import { explainSections, type ExplainSnapshot } from './explain.ts';
import type { RefusalKind } from '../shared/scheduling/index.ts';
import { nextByPhase, type ExplainMark } from './explain-sections.ts';

/** One line of a section: its mark (`ok`, `WAIT`, `HELD`, `evict`, `stays`, `gone`, `claim`, `gang`, `rank`, `note`, `will`, `counts`, `verdict`, `text`) and its text. */
export interface ExplainCheck {
  kind: ExplainMark;
  text: string;
}

export interface ExplainJson {
  apiVersion: 'kmaint.io/v1';
  kind: 'Explanation';
  /** `namespace/name`. */
  request: string;
  node: string;
  requestor: string;
  /** The Ready condition's reason, `new` before any pass wrote one. */
  phase: string;
  deleting: boolean;
  /** The Ready condition's message, "" when none. */
  ready: string;
  /** Set when the request does not have the shape the CRD promises (then nothing else is judged). */
  malformed?: string;
  /** The stage of the section that says what comes next (`admission`, `pods`, `waiting`, `cleanup`, …), or `phase` when none does. */
  stage: string;
  sections: Array<{ title: string; checks: ExplainCheck[] }>;
  /**
   * Every WAIT line, with the stage (section) it sits in; an admission gate's also with the gate that refuses and the
   * kind of its refusal (shared/scheduling Refusal: `time`, `unusable`, `limit`, `external-limit`, `external-problem`, `blocked`).
   */
  waits: Array<{ gate: string; kind: 'WAIT'; text: string; refusal?: { gate: string; kind: RefusalKind } }>;
  /** Pods the drain cannot evict yet, with why (`HELD` lines). */
  holders: Array<{ pod: string; text: string }>;
  next: string[];
}

/** The request's explanation as one object, from the sections' typed lines (never from their printed words). Pure. */
export function explainDocument(s: ExplainSnapshot, now: Date): ExplainJson {
  const nm = s.maintenance;
  const base = {
    apiVersion: 'kmaint.io/v1' as const,
    kind: 'Explanation' as const,
    request: maintenanceKey(nm),
    node: nm.spec.nodeName,
    requestor: nm.spec.requestorID,
    phase: maintenancePhase(nm) || 'new',
    deleting: nm.metadata.deletionTimestamp !== undefined,
    ready: readyCondition(nm)?.message ?? '',
  };
  if (s.malformed !== undefined) return { ...base, malformed: malformedMessage(s.malformed), stage: 'malformed', sections: [], waits: [], holders: [], next: ['its requestor fixes the object (or deletes it)'] };
  const sections = explainSections(s, now);
  const giving = sections.find((x) => x.next !== undefined);
  return {
    ...base,
    stage: giving !== undefined ? giving.stage : 'phase',
    sections: sections.map((x) => ({ title: x.title, checks: x.lines.map((l) => ({ kind: l.mark, text: l.text })) })),
    waits: sections.flatMap((x) =>
      x.lines.filter((l) => l.mark === 'WAIT').map((l) => ({ gate: x.stage, kind: 'WAIT' as const, text: l.text, ...(l.refusal !== undefined ? { refusal: l.refusal } : {}) })),
    ),
    holders: sections.flatMap((x) => x.lines.flatMap((l) => (l.held !== undefined ? [{ pod: l.held.pod, text: l.held.why }] : []))),
    next: [giving?.next ?? nextByPhase(nm)],
  };
}
