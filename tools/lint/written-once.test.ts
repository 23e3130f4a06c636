// The written-once lint rules (tools/lint/written-once.json, issue 41) as a test: each selector catches its sample copy
// with its message, passes the helper's call, and eslint.config.js applies every one of them to every .ts file.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface WrittenOnceRule {
  helper: string;
  home: string;
  selector: string;
  message: string;
  /** Code with `copies` copies the rule refuses: one message each. */
  sample: string;
  copies: number;
  allowed: string;
}

const RULES = (JSON.parse(readFileSync(join(ROOT, 'tools/lint/written-once.json'), 'utf8')) as { rules: WrittenOnceRule[] }).rules;

/** The messages no-restricted-syntax reports for `code` with every written-once selector on. */
function reported(code: string): string[] {
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      rules: { 'no-restricted-syntax': ['error', ...RULES.map((r) => ({ selector: r.selector, message: r.message }))] },
    },
  ] as Linter.Config[];
  return new Linter({ configType: 'flat' }).verify(code, config, 'sample.ts').map((m) => m.message);
}

describe('written-once lint rules', () => {
  it.each(RULES.map((r) => [r.helper, r] as const))('%s: a new copy is refused with its message, the helper call passes', (_helper, rule) => {
    expect(reported(rule.sample)).toEqual(new Array<string>(rule.copies).fill(rule.message));
    expect(reported(rule.allowed)).toEqual([]);
  });

  it.each(RULES.map((r) => [r.helper, r.home] as const))('%s lives in %s', (helper, home) => {
    expect(readFileSync(join(ROOT, home), 'utf8')).toMatch(new RegExp(`export (async )?(function|const) ${helper}\\b`));
  });

  it('eslint.config.js applies every rule to every .ts file but the helpers’ homes and the tests', async () => {
    const mod = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { default: Linter.Config[] };
    const block = mod.default.find((c) => c.rules?.['no-restricted-syntax'] !== undefined);
    expect(block?.files).toEqual(['**/*.ts']);
    expect(block?.ignores).toEqual([...RULES.map((r) => r.home), '**/*.test.ts']);
    expect(block?.rules?.['no-restricted-syntax']).toEqual(['error', ...RULES.map((r) => ({ selector: r.selector, message: r.message }))]);
  });
});
