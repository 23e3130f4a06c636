// LIST/WATCH selectors: label selectors from shared/selectors, field selectors parsed as apimachinery's fields.ParseSelector.
import { EVERYTHING, matchesLabels, parseLabelSelector, type LabelSelector } from '../../shared/selectors/index.ts';
import { badRequest } from './errors.ts';
import { isObject, type JsonObject } from './json-value.ts';
import type { KindInfo } from './kinds.ts';

export interface FieldRequirement {
  field: string;
  /** `=` and `==` both mean equality. */
  negate: boolean;
  value: string;
}

/** What LIST and WATCH filter on, parsed once per request. */
export interface ObjectFilter {
  namespace: string | undefined;
  labels: LabelSelector;
  fields: readonly FieldRequirement[];
}

export const MATCH_ALL: ObjectFilter = { namespace: undefined, labels: EVERYTHING, fields: [] };

export function parseLabels(text: string | null): LabelSelector {
  if (!text) return EVERYTHING;
  const parsed = parseLabelSelector(text);
  if (!parsed.ok) throw badRequest(`unable to parse requirement: ${parsed.error}`);
  return parsed.selector;
}

/** Splits on commas not escaped with a backslash, keeping escapes for the value decoder. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] as string);
      i++;
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  terms.push(current);
  return terms;
}

function unescapeValue(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

/** fields.ParseSelector: `a=b`, `a==b`, `a!=b` joined by commas; the first operator found splits a term. */
export function parseFieldSelector(text: string | null): FieldRequirement[] {
  if (!text) return [];
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(text)) {
    if (term === '') continue;
    let found: FieldRequirement | undefined;
    for (let i = 0; i < term.length && !found; i++) {
      const rest = term.slice(i);
      for (const op of ['!=', '==', '='] as const) {
        if (rest.startsWith(op)) {
          found = { field: term.slice(0, i), negate: op === '!=', value: unescapeValue(term.slice(i + op.length)) };
          break;
        }
      }
    }
    if (!found) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    out.push(found);
  }
  return out;
}

/** Rejects field labels the kind cannot select on, as the API server does (400 "field label not supported"). */
export function checkFieldLabels(kind: KindInfo, requirements: readonly FieldRequirement[]): void {
  for (const r of requirements) {
    if (r.field === 'metadata.name' || r.field === 'metadata.namespace') continue;
    if (!kind.fieldLabels.includes(r.field)) throw badRequest(`field label not supported: ${r.field}`);
  }
}

/** Boolean field labels read "false" when the field is absent. */
const BOOLEAN_FIELDS = new Set(['spec.unschedulable', 'spec.hostNetwork']);

function valueAtPath(obj: JsonObject, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  if (typeof cur === 'string') return cur === '' ? undefined : cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return undefined;
}

/** The kind's selectable field values of `obj`, aligned with `kind.fieldLabels` (undefined = the default). */
export function fieldValuesOf(kind: KindInfo, obj: JsonObject): (string | undefined)[] {
  return kind.fieldLabels.map((label) => (label === 'source' ? valueAtPath(obj, 'source.component') : valueAtPath(obj, label)));
}

export interface Selectable {
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  fields: readonly (string | undefined)[];
}

export function fieldValue(kind: KindInfo, obj: Selectable, field: string): string {
  if (field === 'metadata.name') return obj.name;
  if (field === 'metadata.namespace') return obj.namespace;
  const i = kind.fieldLabels.indexOf(field);
  const v = i >= 0 ? obj.fields[i] : undefined;
  return v ?? (BOOLEAN_FIELDS.has(field) ? 'false' : '');
}

export function matchesFilter(kind: KindInfo, filter: ObjectFilter, obj: Selectable): boolean {
  if (filter.namespace !== undefined && obj.namespace !== filter.namespace) return false;
  for (const r of filter.fields) {
    if ((fieldValue(kind, obj, r.field) === r.value) === r.negate) return false;
  }
  return filter.labels.requirements.length === 0 || matchesLabels(filter.labels, obj.labels);
}

/** `spec.nodeName=X` with X not empty: LIST can read the node index instead of every pod. */
export function nodeNameEquality(filter: ObjectFilter): string | undefined {
  const value = filter.fields.find((r) => r.field === 'spec.nodeName' && !r.negate)?.value;
  return value === '' ? undefined : value;
}
