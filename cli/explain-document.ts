// `kmaint explain -o json|yaml`: one object per explained request with typed fields, built from the same sections the
// text prints (cli/explain.ts explainSections, cli/explain-sections.ts): the request, its node and phase, the stage
// that holds it, every check of each section with its kind, the waits and the pods held, and what has to happen next.
import { maintenanceKey, maintenancePhase, readyCondition } from '../shared/api/index.ts';
import { malformedMessage } from '../shared/pass/index.ts';
import { explainSections, type ExplainSnapshot } from './explain.ts';
import { nextByPhase, type ExplainSection } from './explain-sections.ts';

/** One line of a section: its marker (`ok`, `WAIT`, `HELD`, `evict`, `stays`, `gone`, `gang`, `rank`, `note`, `verdict`) and its text. */
export interface ExplainCheck {
  kind: string;
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
  /** The title's first word of the section that says what comes next (`admission`, `pods`, `waiting`, …), or `phase` when none does. */
  stage: string;
  sections: Array<{ title: string; checks: ExplainCheck[] }>;
  /** Every WAIT line, with the section (gate) it sits in. */
  waits: Array<{ gate: string; kind: 'WAIT'; text: string }>;
  /** Pods the drain cannot evict yet, with why (`HELD` lines). */
  holders: Array<{ pod: string; text: string }>;
  next: string[];
}

/** `WAIT  text` → { kind: 'WAIT', text }; `verdict: text` → { kind: 'verdict', text }; a claim line under a pod keeps kind `claim`. */
function check(line: string): ExplainCheck {
  const verdict = /^verdict: (.*)$/.exec(line);
  if (verdict) return { kind: 'verdict', text: verdict[1] ?? '' };
  const m = /^(\S+)\s+(.*)$/.exec(line.trim());
  return m ? { kind: m[1] ?? '', text: m[2] ?? '' } : { kind: '', text: line.trim() };
}

const gateOf = (section: ExplainSection): string => section.title.split(/[\s(:]/)[0] ?? section.title;

/** The request's explanation as one object. Pure. */
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
  const parsed = sections.map((x) => ({ title: x.title, gate: gateOf(x), checks: x.lines.map(check) }));
  return {
    ...base,
    stage: giving !== undefined ? gateOf(giving) : 'phase',
    sections: parsed.map(({ title, checks }) => ({ title, checks })),
    waits: parsed.flatMap((x) => x.checks.filter((c) => c.kind === 'WAIT').map((c) => ({ gate: x.gate, kind: 'WAIT' as const, text: c.text }))),
    holders: parsed.flatMap((x) => x.checks.filter((c) => c.kind === 'HELD').map((c) => ({ pod: c.text.split(' ')[0] ?? '', text: c.text.slice((c.text.split(' ')[0] ?? '').length + 1) }))),
    next: [giving?.next ?? nextByPhase(nm)],
  };
}
