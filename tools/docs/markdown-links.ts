// What a Markdown page links to and which anchors its headings make, as GitHub renders them: the pure half of the
// link check (tools/docs/check-links.ts reads the files).

/** One link target as written, with the 1-based line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** Lines outside fenced code blocks, each with its 1-based number; a fence closes only on the same character. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (opener?.[1] !== undefined) {
      const mark = opener[1];
      if (fence === null) fence = mark;
      else if (mark[0] === fence[0] && mark.length >= fence.length && text.trim() === mark) fence = null;
      return;
    }
    if (fence === null) out.push({ text, line: i + 1 });
  });
  return out;
}

/** A line with its code spans blanked out: a link written inside backticks is an example, not a link. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
}

// Inline links and images `[text](target "title")`, reference definitions `[id]: target`, autolinks `<https://…>`,
// and the href/src of raw HTML: every way a README or docs page on GitHub can point somewhere.
const PATTERNS: RegExp[] = [
  /\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/g,
  /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g,
  /<((?:https?|mailto|ftp|file):[^>\s]+)>/g,
  /\s(?:href|src)="([^"]+)"/g,
];

/** Every link target on the page, in order of appearance. */
export function extractLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = withoutCodeSpans(text);
    const found: { at: number; target: string }[] = [];
    for (const pattern of PATTERNS) {
      for (const m of prose.matchAll(pattern)) if (m[1] !== undefined) found.push({ at: m.index, target: m[1] });
    }
    found.sort((a, b) => a.at - b.at).forEach(({ target }) => links.push({ target, line }));
  }
  return links;
}

/**
 * GitHub's anchor for a heading's text: markup dropped, lower case, every character that is not a letter, a digit,
 * a space, `-` or `_` removed, spaces turned into `-` (github-slugger, which GitHub's renderer follows).
 */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '') // code and emphasis marks
    .trim();
  return text.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** The anchors a page offers: one per ATX heading (repeats get `-1`, `-2`, … as on GitHub) and each HTML id or name. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (heading?.[1] !== undefined) {
      const slug = githubSlug(heading[1]);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) if (m[1] !== undefined) anchors.add(m[1]);
  }
  return anchors;
}
