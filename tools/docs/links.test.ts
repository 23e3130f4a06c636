// The link check (issue 33): its rules as tables, then the repository's own README.md and docs/ held to them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLinks, documentationPages, judgeTarget } from './check-links.ts';
import { extractLinks, githubSlug, headingAnchors } from './markdown-links.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('extractLinks', () => {
  it.each([
    { rule: 'an inline link', md: 'see [install](docs/install.md) first', targets: ['docs/install.md'] },
    { rule: 'an image', md: '![report](docs/report.png)', targets: ['docs/report.png'] },
    { rule: 'a link with a title', md: '[a](b.md "the b page")', targets: ['b.md'] },
    { rule: 'an anchor of the same page', md: '[up](#the-picture)', targets: ['#the-picture'] },
    { rule: 'two links on one line, in order', md: '[a](a.md) and [b](https://example.com/b)', targets: ['a.md', 'https://example.com/b'] },
    { rule: 'a link inside a code span is an example, not a link', md: 'write `[a](../shared/x.md)` like this', targets: [] },
    { rule: 'a link inside a fenced block is not a link', md: '```md\n[a](../x.md)\n```\n[b](b.md)', targets: ['b.md'] },
    { rule: 'a tilde fence is closed only by tildes', md: '~~~\n```\n[a](a.md)\n~~~\n[b](b.md)', targets: ['b.md'] },
    { rule: 'a reference definition', md: '[install]: docs/install.md', targets: ['docs/install.md'] },
    { rule: 'an autolink', md: 'at <https://github.com/SlinkyProject/slurm-operator>', targets: ['https://github.com/SlinkyProject/slurm-operator'] },
    { rule: 'raw HTML href and src', md: '<a href="docs/a.md"><img src="docs/b.png"></a>', targets: ['docs/a.md', 'docs/b.png'] },
    { rule: 'a path in backticks alone is no link', md: 'read `../shared/DESIGN.md`', targets: [] },
  ])('$rule', ({ md, targets }) => {
    expect(extractLinks(md).map((l) => l.target)).toEqual(targets);
  });

  it('reports the line each link is on', () => {
    expect(extractLinks('# t\n\n[a](a.md)\n```\n[x](x.md)\n```\n[b](b.md)')).toEqual([
      { target: 'a.md', line: 3 },
      { target: 'b.md', line: 7 },
    ]);
  });
});

describe('githubSlug', () => {
  it.each([
    { heading: 'Install', slug: 'install' },
    { heading: 'Alongside the NVIDIA network operator\'s chart', slug: 'alongside-the-nvidia-network-operators-chart' },
    { heading: 'What kmaint writes outside its own objects, and what removes it', slug: 'what-kmaint-writes-outside-its-own-objects-and-what-removes-it' },
    { heading: 'Advance notice: a Slurm maintenance reservation from `kmaint.io/not-before`', slug: 'advance-notice-a-slurm-maintenance-reservation-from-kmaintionot-before' },
    { heading: 'Compatibility with maintenance.nvidia.com/v1alpha1', slug: 'compatibility-with-maintenancenvidiacomv1alpha1' },
    { heading: '`spec.pools[].nodeSelector`', slug: 'specpoolsnodeselector' },
    { heading: 'Gangs: requests admitted together', slug: 'gangs-requests-admitted-together' },
    { heading: 'The [chart](docs/chart.md) values', slug: 'the-chart-values' },
    { heading: 'snake_case and a **bold** word', slug: 'snake_case-and-a-bold-word' },
    { heading: 'Node.js ≥ 20.19', slug: 'nodejs--2019' },
  ])('$heading -> #$slug', ({ heading, slug }) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe('headingAnchors', () => {
  it('numbers repeated headings as GitHub does, skips code blocks and takes HTML ids', () => {
    const md = '# Runs\n## Runs\n```\n# not a heading\n```\n### Runs ###\n<a id="legacy-name"></a>\n#nospace';
    expect([...headingAnchors(md)]).toEqual(['runs', 'runs-1', 'runs-2', 'legacy-name']);
  });
});

describe('judgeTarget', () => {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kmaint-links-'));
    mkdirSync(join(root, 'docs', 'integrations'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '# kmaint\n## The picture\n');
    writeFileSync(join(root, 'docs', 'install.md'), '# Installing\n## Helm\n### Upgrade\n');
    writeFileSync(join(root, 'docs', 'integrations', 'dra.md'), '# DRA\n');
    writeFileSync(join(root, 'docs', 'report.png'), '');
    writeFileSync(join(root, 'docs', 'a file.md'), '# A\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const anchorsOf = (page: string): Set<string> => headingAnchors(
    page === 'README.md' ? '# kmaint\n## The picture\n' : page === 'docs/install.md' ? '# Installing\n## Helm\n### Upgrade\n' : '# DRA\n',
  );

  it.each([
    { rule: 'an https URL may leave the repository', page: 'README.md', target: 'https://github.com/NVIDIA/k8s-device-plugin', problem: null },
    { rule: 'an http URL may leave the repository', page: 'README.md', target: 'http://example.com', problem: null },
    { rule: 'a file of the repository', page: 'README.md', target: 'docs/install.md', problem: null },
    { rule: 'a directory of the repository', page: 'README.md', target: 'docs/integrations', problem: null },
    { rule: 'an image next to the page', page: 'docs/install.md', target: 'report.png', problem: null },
    { rule: 'up from docs/integrations/ to docs/', page: 'docs/integrations/dra.md', target: '../install.md#helm', problem: null },
    { rule: 'up to the root README', page: 'docs/install.md', target: '../README.md#the-picture', problem: null },
    { rule: 'an anchor of the same page', page: 'docs/install.md', target: '#upgrade', problem: null },
    { rule: 'a percent-encoded space', page: 'docs/install.md', target: 'a%20file.md', problem: null },
    { rule: 'a missing file', page: 'README.md', target: 'docs/cli.md', problem: 'docs/cli.md does not exist' },
    { rule: 'a path relative to the wrong directory', page: 'docs/install.md', target: 'docs/report.png', problem: 'docs/docs/report.png does not exist' },
    { rule: 'a missing anchor', page: 'README.md', target: 'docs/install.md#kustomize', problem: 'no heading in docs/install.md makes the anchor #kustomize' },
    { rule: 'a missing anchor of the same page', page: 'README.md', target: '#install', problem: 'no heading in README.md makes the anchor #install' },
    { rule: 'the sibling directory ../shared is outside the repository', page: 'README.md', target: '../shared/DESIGN.md', problem: 'points outside the repository' },
    { rule: 'climbing out from docs/ is outside too', page: 'docs/install.md', target: '../../shared/x.md', problem: 'points outside the repository' },
    { rule: 'an absolute path', page: 'README.md', target: '/etc/passwd', problem: 'an absolute path: write it relative to this page' },
    { rule: 'a file: URL', page: 'README.md', target: 'file:///work/shared/x.md', problem: 'only http(s) URLs may leave the repository' },
    { rule: 'a mailto: URL', page: 'README.md', target: 'mailto:ops@example.com', problem: 'only http(s) URLs may leave the repository' },
    { rule: 'a protocol-relative URL', page: 'README.md', target: '//example.com/x', problem: 'only http(s) URLs may leave the repository' },
  ])('$rule: $target', ({ page, target, problem }) => {
    expect(judgeTarget(root, page, target, anchorsOf)).toBe(problem);
  });

  it('lists README.md and every page under docs/, sorted', () => {
    expect(documentationPages(root)).toEqual(['README.md', 'docs/a file.md', 'docs/install.md', 'docs/integrations/dra.md']);
  });
});

describe('the repository', () => {
  it('every link in README.md and docs/ resolves, and none leaves the repository but to an http(s) URL', () => {
    const pages = documentationPages(REPO);
    expect(pages).toContain('README.md');
    expect(checkLinks(REPO, pages)).toEqual([]);
  });

  it('covers the pages it should', () => {
    expect(documentationPages(REPO)).toEqual(expect.arrayContaining(['README.md', 'docs/install.md', 'docs/reference/config.md']));
  });
});
