// The configuration reference generated from a CRD's schema (issue 33): one Markdown page per CRD, one table per
// object, every field with its type, default, validation and the description the CRD carries. Pure: tools/docs/gen.ts
// reads the manifests and writes docs/reference/.
import type { CrdManifest, SchemaNode } from './crd-manifest.ts';
import { githubSlug } from './markdown-links.ts';

/** What the page says beyond the CRD: where it came from, and the hand-written guide to read first. */
export interface PageContext {
  source: string;
  guide: { title: string; link: string };
}

/**
 * The root's `metadata` is the API server's ObjectMeta: a CRD may only declare it `{type: object}` (and
 * shared/api/schemas.test.ts holds kmaint's to exactly that), so the reference says what it is instead.
 */
const OBJECT_META = 'Standard Kubernetes object metadata (ObjectMeta): name, namespace, labels, annotations, finalizers, owner references.';

/** Every named field (a property at any depth, in arrays and maps too) whose schema has no description, as paths. */
export function fieldsWithoutDescription(root: SchemaNode): string[] {
  const missing: string[] = [];
  const walk = (node: SchemaNode, path: string): void => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const childPath = path === '' ? name : `${path}.${name}`;
      if ((child.description ?? '').trim() === '' && childPath !== 'metadata') missing.push(childPath);
      walk(child, childPath);
    }
    if (node.items !== undefined) walk(node.items, `${path}[]`);
    if (node.additionalProperties !== undefined) walk(node.additionalProperties, `${path}{}`);
    for (const alternative of node.anyOf ?? []) walk(alternative, path);
  };
  walk(root, '');
  return missing;
}

/** A table cell: one line, pipes escaped, and outside code spans no `<`/`>` that GitHub would take for HTML. */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('')
    .replace(/\|/g, '\\|')
    .trim();
}

const code = (value: unknown): string => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** An object the reference gives a table of its own: one with properties, reached directly or as array items. */
function objectBehind(node: SchemaNode): { node: SchemaNode; suffix: string } | null {
  if (node.properties !== undefined) return { node, suffix: '' };
  if (node.items?.properties !== undefined) return { node: node.items, suffix: '[]' };
  if (node.additionalProperties?.properties !== undefined) return { node: node.additionalProperties, suffix: '{}' };
  return null;
}

function typeOf(node: SchemaNode): string {
  if (node['x-kubernetes-int-or-string'] === true) return 'integer or string';
  if (node.type === 'array') return `[]${node.items === undefined ? 'any' : typeOf(node.items)}`;
  if (node.type === 'object' && node.additionalProperties !== undefined) return `map[string]${typeOf(node.additionalProperties)}`;
  const base = node.type ?? (node.anyOf ?? []).map(typeOf).join(' or ');
  return node.format === undefined ? base : `${base} (${node.format})`;
}

// The validation a field carries, in the order a reader checks a value against it.
const CONSTRAINTS: ((n: SchemaNode) => string | null)[] = [
  (n) => (n.enum === undefined ? null : `one of ${n.enum.map(code).join(', ')}`),
  (n) => (n.minimum === undefined ? null : `minimum ${n.minimum}`),
  (n) => (n.maximum === undefined ? null : `maximum ${n.maximum}`),
  (n) => (n.minLength === undefined ? null : `at least ${count(n.minLength, 'character')}`),
  (n) => (n.maxLength === undefined ? null : `at most ${count(n.maxLength, 'character')}`),
  (n) => (n.minItems === undefined ? null : `at least ${count(n.minItems, 'item')}`),
  (n) => (n.maxItems === undefined ? null : `at most ${count(n.maxItems, 'item')}`),
  (n) => (n.pattern === undefined ? null : `matches ${code(n.pattern)}`),
  (n) => (n.items?.enum === undefined ? null : `items one of ${n.items.enum.map(code).join(', ')}`),
  (n) => (n.items?.minLength === undefined ? null : `items at least ${count(n.items.minLength, 'character')}`),
  (n) => (n['x-kubernetes-list-map-keys'] === undefined ? null : `unique by ${n['x-kubernetes-list-map-keys'].map(code).join(', ')}`),
  (n) => (n['x-kubernetes-list-type'] === 'set' ? 'unique items' : null),
  (n) => {
    const rules = n['x-kubernetes-validations'];
    return rules === undefined ? null : rules.map((r) => `rule ${code(r.rule)}${r.message === undefined ? '' : ` (${r.message})`}`).join('; ');
  },
];

interface Section {
  title: string;
  node: SchemaNode;
}

/** The sections of the page in reading order: each object right after the table that mentions it. */
function sectionsOf(root: SchemaNode): Section[] {
  const out: Section[] = [];
  const visit = (node: SchemaNode, title: string): void => {
    out.push({ title, node });
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const inner = objectBehind(child);
      if (inner !== null) visit(inner.node, `${title === '' ? '' : `${title}.`}${name}${inner.suffix}`);
    }
  };
  visit(root, '');
  return out;
}

function anchorOf(title: string): string {
  return githubSlug(`\`${title}\``);
}

function fieldRow(name: string, node: SchemaNode, required: boolean, parent: string): string {
  const inner = objectBehind(node);
  const path = `${parent === '' ? '' : `${parent}.`}${name}`;
  const type = inner === null ? typeOf(node) : `[${typeOf(node)}](#${anchorOf(`${path}${inner.suffix}`)})`;
  const validation = CONSTRAINTS.map((c) => c(node)).filter((c): c is string => c !== null);
  const description = [
    cell(node.description ?? ''),
    ...(validation.length === 0 ? [] : [`Validation: ${cell(validation.join('; '))}.`]),
    ...(node.example === undefined ? [] : [`Example: ${cell(code(node.example))}.`]),
  ];
  const fallback = node.default === undefined ? '' : cell(code(node.default));
  return `| \`${name}\`${required ? ' (required)' : ''} | ${cell(type)} | ${fallback} | ${description.join(' ')} |`;
}

function renderSection({ title, node }: Section, kind: string): string[] {
  const heading = title === '' ? `## ${kind}` : `### \`${title}\``;
  const required = new Set(node.required ?? []);
  const rows = Object.entries(node.properties ?? {}).map(([name, child]) => {
    const described = title === '' && name === 'metadata' && child.description === undefined ? { ...child, description: OBJECT_META } : child;
    return fieldRow(name, described, required.has(name), title);
  });
  return [heading, '', ...(node.description === undefined ? [] : [cell(node.description), '']), '| field | type | default | description |', '|---|---|---|---|', ...rows, ''];
}

/** The whole reference page for one CRD. Throws when two sections would get the same anchor (links would be wrong). */
export function renderCrdReference(crd: CrdManifest, context: PageContext): string {
  const { group, names, scope, versions } = crd.spec;
  const version = versions[0];
  if (version === undefined) throw new Error(`${context.source} has no version`);
  const root = version.schema.openAPIV3Schema;
  const sections = sectionsOf(root);
  const anchors = sections.map((s) => (s.title === '' ? githubSlug(names.kind) : anchorOf(s.title)));
  const repeated = anchors.find((a, i) => anchors.indexOf(a) !== i);
  if (repeated !== undefined) throw new Error(`${context.source}: two sections would share the anchor #${repeated}`);
  const columns = (version.additionalPrinterColumns ?? []).map((c) => c.name);
  return [
    `<!-- Generated by npm run docs:gen (tools/docs/gen.ts) from ${context.source}. Do not edit: change the descriptions in the CRD and run it again. -->`,
    `# ${names.kind} reference`,
    '',
    `Every field of the \`${names.kind}\` schema in [${context.source}](../../${context.source}), generated from the CRD. How to use them: [${context.guide.title}](${context.guide.link}).`,
    '',
    '| | |',
    '|---|---|',
    `| API version | \`${group}/${version.name}\` |`,
    `| kind | \`${names.kind}\` |`,
    `| kubectl names | ${[names.plural, ...(names.shortNames ?? [])].map((n) => `\`${n}\``).join(', ')} |`,
    `| scope | ${scope} |`,
    ...(columns.length === 0 ? [] : [`| kubectl get columns | ${columns.join(', ')} |`]),
    '',
    ...sections.flatMap((s) => renderSection(s, names.kind)),
  ].join('\n');
}
