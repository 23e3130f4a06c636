// charts/kmaint/README.md is what helm-docs (tools/helm-docs, pinned) writes from README.md.gotmpl and the `# --`
// comments in values.yaml, and every value in its table has a description. After editing values.yaml: npm run chart:docs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_README, helmDocsBinary, helmDocsIsCurrent, renderChartReadme } from '../tools/helm-docs/helm-docs.ts';

const BUILT = helmDocsIsCurrent();
if (!BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/chart-readme] NOT RUN: the values table check needs helm-docs (${helmDocsBinary()}): npx tsx tools/helm-docs/helm-docs.ts build (.ci/run does) builds it; counted as skipped\n`);
}

/** The rows of the values table: key and description. */
function valueRows(readme: string): Array<{ key: string; description: string }> {
  return readme
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Key |'))
    .map((line) => {
      const cells = line.slice(2, -2).split(' | ');
      return { key: cells[0] ?? '', description: cells.slice(3).join(' | ').trim() };
    });
}

describe.skipIf(!BUILT)('charts/kmaint/README.md', () => {
  it('is what helm-docs writes from values.yaml now (else: npm run chart:docs)', async () => {
    expect(readFileSync(CHART_README, 'utf8')).toBe(await renderChartReadme());
  });

  it('describes every value (a `# --` comment above each key in values.yaml)', async () => {
    const rows = valueRows(await renderChartReadme());
    const topLevel = Object.keys(parse(readFileSync('charts/kmaint/values.yaml', 'utf8')) as Record<string, unknown>);
    expect([...new Set(rows.map((r) => r.key.split('.')[0]))]).toEqual(topLevel);
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
  });
});
