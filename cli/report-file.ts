// `--report FILE.html` of `kmaint demo` and `kmaint simulate`: the text summary as the page's table, the page written.
import { errorMessage } from '../shared/errors/index.ts';
import { writeFileSync } from 'node:fs';
import { renderReportHtml, type ReportPage } from '../sim/report/index.ts';
import { UsageError } from './errors.ts';

/** "  label:   value" lines as table rows; a line without a label keeps its text as the value. */
export function summaryRows(lines: readonly string[]): Array<[string, string]> {
  return lines.map((line): [string, string] => {
    const m = /^\s*([a-zA-Z][\w /-]*?):\s+(.*)$/.exec(line);
    return m ? [m[1] ?? '', m[2] ?? ''] : ['', line.trim()];
  });
}

/** Writes the page; a path that cannot be written is a usage error (exit 2) naming it. */
export function writeReport(path: string, page: ReportPage): void {
  try {
    writeFileSync(path, renderReportHtml(page));
  } catch (err) {
    throw new UsageError(`--report ${path}: ${errorMessage(err)}`, { cause: err });
  }
}
