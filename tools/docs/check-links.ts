// The link check of README.md and docs/: every relative link names a file of the repository (and a heading of it, for
// an anchor), and nothing points out of the repository except a public http(s) URL. Which files exist is read from
// the disk at the time of the check, so pages other branches add count once they are merged.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { extractLinks, headingAnchors } from './markdown-links.ts';

/** A link that does not resolve, with where it is written and why. */
export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/** The pages the check covers: README.md and every .md under docs/, as paths relative to the root, sorted. */
export function documentationPages(root: string): string[] {
  const pages = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return pages.sort();
}

/** Why a target is not acceptable, or null when it resolves. `anchorsOf` reads a page's anchors (cached by the caller). */
export function judgeTarget(root: string, page: string, target: string, anchorsOf: (page: string) => Set<string>): string | null {
  if (/^https?:\/\/[^/\s]+/i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return 'only http(s) URLs may leave the repository';
  if (target.startsWith('/')) return 'an absolute path: write it relative to this page';
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? page : normalize(join(dirname(page), pathPart));
  if (resolved === '..' || resolved.startsWith(`..${sep}`)) return 'points outside the repository';
  if (!existsSync(join(root, resolved))) return `${resolved.split(sep).join('/')} does not exist`;
  if (anchor === null || anchor === '') return null;
  if (!resolved.endsWith('.md') || statSync(join(root, resolved)).isDirectory()) return null;
  return anchorsOf(resolved).has(anchor) ? null : `no heading in ${resolved.split(sep).join('/')} makes the anchor #${anchor}`;
}

/** Every link problem in the given pages (paths relative to `root`), in page and line order. */
export function checkLinks(root: string, pages: string[]): LinkProblem[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = (page: string): Set<string> => {
    let found = anchors.get(page);
    if (found === undefined) {
      found = headingAnchors(readFileSync(join(root, page), 'utf8'));
      anchors.set(page, found);
    }
    return found;
  };
  const problems: LinkProblem[] = [];
  for (const page of pages) {
    for (const { target, line } of extractLinks(readFileSync(join(root, page), 'utf8'))) {
      const problem = judgeTarget(root, normalize(page), target, anchorsOf);
      if (problem !== null) problems.push({ file: relative(root, join(root, page)), line, target, problem });
    }
  }
  return problems;
}
