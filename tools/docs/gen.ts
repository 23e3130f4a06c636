// `npm run docs:gen`: writes docs/reference/ from the CRDs in crds/. `--check` writes nothing and exits 1 when a page
// is not what the CRDs make now, or when a CRD field has no description (the reference would have a blank line).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCrd } from './crd-manifest.ts';
import { fieldsWithoutDescription, renderCrdReference, type PageContext } from './crd-reference.ts';

/** Each generated page, the CRD it comes from and the hand-written guide it points to. */
export const REFERENCE_PAGES: { page: string; context: PageContext }[] = [
  {
    page: 'docs/reference/config.md',
    context: { source: 'crds/maintenanceoperatorconfigs.maintenance.nvidia.com.yaml', guide: { title: 'Configuring kmaint', link: '../configure.md' } },
  },
  {
    page: 'docs/reference/nodemaintenance.md',
    context: { source: 'crds/nodemaintenances.maintenance.nvidia.com.yaml', guide: { title: 'Requesting maintenance', link: '../operate.md#requesting-maintenance' } },
  },
];

/** What one page should hold now, and the CRD fields without a description (as `<crd file>: <path>`). */
export function expectedPage(root: string, entry: (typeof REFERENCE_PAGES)[number]): { text: string; undescribed: string[] } {
  const crd = parseCrd(readFileSync(join(root, entry.context.source), 'utf8'), entry.context.source);
  const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
  return {
    text: `${renderCrdReference(crd, entry.context)}\n`,
    undescribed: fieldsWithoutDescription(schema).map((path) => `${entry.context.source}: ${path}`),
  };
}

function main(argv: string[]): number {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const check = argv.includes('--check');
  let failed = false;
  for (const entry of REFERENCE_PAGES) {
    const { text, undescribed } = expectedPage(root, entry);
    for (const field of undescribed) process.stderr.write(`docs:gen: no description: ${field}\n`);
    if (undescribed.length > 0) failed = true;
    const path = join(root, entry.page);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current === text) continue;
    if (check) {
      process.stderr.write(`docs:gen: ${entry.page} is not current: run npm run docs:gen\n`);
      failed = true;
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      process.stdout.write(`docs:gen: wrote ${entry.page}\n`);
    }
  }
  return failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
