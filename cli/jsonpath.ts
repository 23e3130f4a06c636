// `-o jsonpath=TEMPLATE` as kubectl reads it: text with `{…}` expressions, each a path (`.items[*].metadata.name`,
// `['app.kubernetes.io/name']`, `[0]`, `[-1]`, `[*]`, `.*`, an optional leading `$`), a quoted string (`{"\n"}`), or
// `{range PATH}…{end}` repeating its body for each match. A path's matches print separated by spaces; objects and
// arrays print as JSON, strings bare. What kubectl's filters (`[?(@.x)]`) and slices do is refused, not guessed.
import { UsageError } from './errors.ts';

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' };
type Node = { kind: 'text'; text: string } | { kind: 'path'; steps: Step[] } | { kind: 'range'; steps: Step[]; body: Node[] };

function refuse(template: string, why: string): never {
  throw new UsageError(`-o jsonpath=${template}: ${why}`);
}

function parsePath(expr: string, template: string): Step[] {
  const steps: Step[] = [];
  let rest = expr.trim().replace(/^\$/, '');
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.\*/.exec(rest)) || (m = /^\[\*\]/.exec(rest))) steps.push({ kind: 'all' });
    else if ((m = /^\.((?:[^.[\]\\]|\\.)+)/.exec(rest))) steps.push({ kind: 'field', name: (m[1] ?? '').replace(/\\(.)/g, '$1') });
    else if ((m = /^\[(-?\d+)\]/.exec(rest))) steps.push({ kind: 'index', index: Number(m[1]) });
    else if ((m = /^\['([^']*)'\]/.exec(rest)) || (m = /^\["([^"]*)"\]/.exec(rest))) steps.push({ kind: 'field', name: m[1] ?? '' });
    else if (rest === '.') break;
    else refuse(template, `cannot read "${rest}" (kmaint reads fields, ['names'], [n] and [*])`);
    rest = rest.slice(m[0].length);
  }
  return steps;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };

/** The template as nodes; `{range}` without its `{end}` (or the reverse) is refused. */
export function parseJsonPath(template: string): Node[] {
  const stack: Node[][] = [[]];
  const open: Array<Extract<Node, { kind: 'range' }>> = [];
  const re = /\{((?:[^}"]|"(?:[^"\\]|\\.)*")*)\}/g;
  let last = 0;
  const top = (): Node[] => stack[stack.length - 1] ?? [];
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    if (m.index > last) top().push({ kind: 'text', text: template.slice(last, m.index) });
    last = m.index + m[0].length;
    const expr = (m[1] ?? '').trim();
    const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(expr);
    if (quoted) top().push({ kind: 'text', text: (quoted[1] ?? '').replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c) });
    else if (expr.startsWith('range ')) {
      const node: Extract<Node, { kind: 'range' }> = { kind: 'range', steps: parsePath(expr.slice(6), template), body: [] };
      top().push(node);
      open.push(node);
      stack.push(node.body);
    } else if (expr === 'end') {
      if (open.pop() === undefined) refuse(template, '{end} without {range}');
      stack.pop();
    } else top().push({ kind: 'path', steps: parsePath(expr, template) });
  }
  if (last < template.length) top().push({ kind: 'text', text: template.slice(last) });
  if (open.length > 0) refuse(template, '{range} without {end}');
  return stack[0] ?? [];
}

function select(value: unknown, steps: readonly Step[]): unknown[] {
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'all') {
        if (Array.isArray(v)) next.push(...(v as unknown[]));
        else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const item: unknown = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step.name)) {
        next.push((v as Record<string, unknown>)[step.name]);
      }
    }
    current = next;
  }
  return current;
}

const print = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function render(nodes: readonly Node[], value: unknown): string {
  return nodes
    .map((node) => {
      if (node.kind === 'text') return node.text;
      if (node.kind === 'path') return select(value, node.steps).map(print).join(' ');
      return select(value, node.steps)
        .map((item) => render(node.body, item))
        .join('');
    })
    .join('');
}

/** The template applied to `value` (kubectl's output for the same object and template). */
export function renderJsonPath(template: string, value: unknown): string {
  return render(parseJsonPath(template), value);
}
