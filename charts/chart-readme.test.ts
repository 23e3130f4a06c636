// Each chart's README.md is what helm-docs (tools/helm-docs, pinned) writes from its README.md.gotmpl and the `# --`
// comments in its values.yaml, and every value in its table has a description. After editing values.yaml: npm run chart:docs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHARTS, chartReadme, helmDocsBinary, helmDocsIsCurrent, renderChartReadme } from '../tools/helm-docs/helm-docs.ts';

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

describe.skipIf(!BUILT)('the charts\' README.md', () => {
  it.each(CHARTS)('charts/%s/README.md is what helm-docs writes from values.yaml now (else: npm run chart:docs)', async (chart) => {
    expect(readFileSync(chartReadme(chart), 'utf8')).toBe(await renderChartReadme(chart));
  });

  it.each(CHARTS)('charts/%s/README.md describes every value (a `# --` comment above each key in values.yaml)', async (chart) => {
    const rows = valueRows(await renderChartReadme(chart));
    const topLevel = Object.keys(parse(readFileSync(`charts/${chart}/values.yaml`, 'utf8')) as Record<string, unknown>);
    expect([...new Set(rows.map((r) => r.key.split('.')[0]))]).toEqual(topLevel);
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
  });
});
