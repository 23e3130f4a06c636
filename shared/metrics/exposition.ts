// Prometheus text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/): what
// a Pushgateway accepts in a push body.
import type { MetricFamily } from './families.ts';

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeHelp = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string): string => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** The families as one text body, each with its HELP and TYPE line, ending in a newline. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
      lines.push(`${f.name}${s.suffix ?? ''}${labels.length > 0 ? `{${labels.join(',')}}` : ''} ${formatValue(s.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
