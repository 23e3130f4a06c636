// kmaint explain decides from values (typed refusals, cleanup's table), never from the words of a message: no string
// matching in cli/explain*.ts, and none at all on the scheduler's refusal texts (shared/scheduling/wait-reasons.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitReason } from '../shared/scheduling/index.ts';

const CLI = import.meta.dirname;
const SOURCES = readdirSync(CLI).filter((f) => f.startsWith('explain') && f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();

/** A call that matches text: includes/startsWith/endsWith/match/search with a literal, a regex literal's test, a RegExp built, any exec. */
const MATCHING = /\.(includes|startsWith|endsWith|match|matchAll|search)\(\s*['"`/]|\/[^/\n]+\/[a-z]*\.test\(|new RegExp\(|\.exec\(/;

/**
 * What may still match text, with why: parseRequestRef and parseNodeRef read the user's `namespace/name` and `node/<name>` arguments, not a message. The
 * drainer's waits on other systems (REPORTED_WAITS) are read by their kind (kmaint.io/wait-kind), never by their words.
 */
const ALLOWED: ReadonlyArray<{ file: string; from: string; to: string }> = [
  { file: 'explain.ts', from: 'export function parseRequestRef', to: '\n}' },
  { file: 'explain-node.ts', from: 'export function parseNodeRef', to: '\n}' },
];

/** The fixed words of every refusal text the scheduler writes (each waitReason with placeholder values, split on them). */
function refusalFragments(): string[] {
  const texts = Object.values(waitReason).map((say) => (say as (...args: unknown[]) => string)('@@', '@@', '@@', '@@'));
  return [...new Set(texts.flatMap((t) => t.split(/@@|\d+/)).map((s) => s.replace(/^[^a-zA-Z]+|[^a-zA-Z]+$/g, '')).filter((s) => s.length >= 8))].sort();
}

function matchingLines(file: string, text: string): string[] {
  const allowed = ALLOWED.filter((a) => a.file === file).map((a) => {
    const start = text.indexOf(a.from);
    return [start, text.indexOf(a.to, start)] as const;
  });
  const out: string[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    const inAllowed = allowed.some(([from, to]) => from >= 0 && at >= from && at <= to);
    if (MATCHING.test(line) && !inAllowed) out.push(`${file}: ${line.trim()}`);
    at += line.length + 1;
  }
  return out;
}

describe('no text matching in kmaint explain', () => {
  it('the detector finds what explain did before refusals were typed', () => {
    expect(matchingLines('explain-admission.ts', "  if (refusal.includes('admits nothing')) return `fix ${refusal}`;")).toEqual(["explain-admission.ts: if (refusal.includes('admits nothing')) return `fix ${refusal}`;"]);
    expect(matchingLines('explain-admission.ts', '  if (/admits nothing/.test(refusal)) return x;')).toHaveLength(1);
    // -o json read its own printed lines back before they were typed (cli/explain-document.ts).
    expect(matchingLines('explain-document.ts', "  const verdict = /^verdict: (.*)$/.exec(line);")).toHaveLength(1);
  });

  it('cli/explain*.ts match no text outside the one read allowed above', () => {
    expect(SOURCES).toEqual(['explain-admission.ts', 'explain-cleanup.ts', 'explain-document.ts', 'explain-node.ts', 'explain-sections.ts', 'explain.ts']);
    expect(SOURCES.flatMap((f) => matchingLines(f, readFileSync(join(CLI, f), 'utf8')))).toEqual([]);
  });

  it("no line of cli/explain*.ts that matches text names a word of the scheduler's refusals", () => {
    const fragments = refusalFragments();
    expect(fragments).toContain('admits nothing');
    const offending = SOURCES.flatMap((f) =>
      readFileSync(join(CLI, f), 'utf8')
        .split('\n')
        .filter((line) => MATCHING.test(line) && fragments.some((w) => line.includes(w)))
        .map((line) => `${f}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });
});
