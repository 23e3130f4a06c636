// The JSONPath subset CRD printer columns use: `.a.b`, `[0]`, `[*]`, `['key']`, `[?(@.type=='Ready')]`.
import { isObject, type Json } from './json-value.ts';

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; value: string };

function parse(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = path.startsWith('$') ? 1 : 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      const m = /^\.([A-Za-z0-9_\-$]+)/.exec(path.slice(i));
      if (!m) return undefined;
      steps.push({ kind: 'field', name: m[1] as string });
      i += m[0].length;
    } else if (ch === '[') {
      const end = path.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = path.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(?:'([^']*)'|"([^"]*)"|([^)\s]+))\s*\)$/.exec(inner);
        if (!f) return undefined;
        steps.push({ kind: 'filter', path: (f[1] as string).slice(1).split('.'), value: f[2] ?? f[3] ?? f[4] ?? '' });
      }
    } else {
      return undefined;
    }
  }
  return steps;
}

function at(value: Json | undefined, path: readonly string[]): Json | undefined {
  let cur = value;
  for (const p of path) cur = isObject(cur) ? cur[p] : undefined;
  return cur;
}

/** Every match of `path` in `value`, in document order; [] when nothing matches or the path is not supported. */
export function findAll(value: Json, path: string): Json[] {
  const steps = parse(path);
  if (!steps) return [];
  let current: Json[] = [value];
  for (const step of steps) {
    const next: Json[] = [];
    for (const v of current) {
      if (step.kind === 'field') {
        if (isObject(v) && v[step.name] !== undefined) next.push(v[step.name] as Json);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
        for (const item of items) {
          const field = at(item, step.path);
          if (field !== undefined && (typeof field === 'string' ? field : JSON.stringify(field)) === step.value) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
