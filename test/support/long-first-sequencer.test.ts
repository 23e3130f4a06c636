import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { FILE_SECONDS, NEW_FILE_SECONDS, UNIT_FILE_SECONDS, longFirst, testbedOrder, unitOrder } from '../setup/long-first-sequencer.ts';

const ROOT = '/repo';
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const spec = (project: string, file: string): TestSpecification => ({ project: { name: project }, moduleId: `${ROOT}/${file}` }) as unknown as TestSpecification;
const names = (specs: readonly TestSpecification[]): string[] => specs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe('longFirst', () => {
  it('orders the testbed and unit projects, each longest first, keeping the sim project\'s order and each project together', () => {
    const files = [
      spec('unit', 'test/helm-pods.test.ts'),
      spec('unit', 'cli/whatif/whatif.test.ts'),
      spec('testbed', 'test/contract.test.ts'),
      spec('testbed', 'test/gangs.test.ts'),
      spec('testbed', 'test/helm-pods.test.ts'),
      spec('testbed', 'test/faults.test.ts'),
      spec('sim', 'test/lifecycle.test.ts'),
      spec('sim', 'test/admission.test.ts'),
    ];
    const testbed = testbedOrder(['test/contract.test.ts', 'test/gangs.test.ts', 'test/helm-pods.test.ts', 'test/faults.test.ts'], 4);
    expect(testbed[0]).toBe('test/faults.test.ts');
    expect(names(longFirst(files, ROOT, 4))).toEqual([
      'unit:cli/whatif/whatif.test.ts',
      'unit:test/helm-pods.test.ts',
      ...testbed.map((f) => `testbed:${f}`),
      'sim:test/lifecycle.test.ts',
      'sim:test/admission.test.ts',
    ]);
  });
});

describe('unitOrder', () => {
  it('starts the files of UNIT_FILE_SECONDS first, longest first (demo 180, bad-input 106, short-seed 80, bin 62), then the rest in the order given', () => {
    expect(unitOrder(['shared/a.test.ts', 'cli/bin.test.ts', 'shared/b.test.ts', 'soak/short-seed.test.ts', 'cli/demo.test.ts', 'testbed/bad-input.test.ts'])).toEqual([
      'cli/demo.test.ts',
      'testbed/bad-input.test.ts',
      'soak/short-seed.test.ts',
      'cli/bin.test.ts',
      'shared/a.test.ts',
      'shared/b.test.ts',
    ]);
    expect(['cli/demo.test.ts', 'testbed/bad-input.test.ts', 'soak/short-seed.test.ts', 'cli/bin.test.ts'].map((f) => UNIT_FILE_SECONDS.get(f))).toEqual([180, 106, 80, 62]);
  });

  it('names only unit files of the repository', () => {
    expect([...UNIT_FILE_SECONDS.keys()].filter((f) => !existsSync(join(REPO, f)) || /^test\/[^/]+\.test\.ts$/.test(f))).toEqual([]);
  });
});

describe('testbedOrder', () => {
  // The rules with a table of their own (FILE_SECONDS changes with each landing run's figures).
  const TABLE: ReadonlyMap<string, number> = new Map([
    ['test/whatif-testbed.test.ts', 77],
    ['test/helm-pods.test.ts', 160],
    ['test/faults.test.ts', 141],
    ['test/testbed-contract.test.ts', 55],
    ['test/contract.test.ts', 34],
    ['test/gangs.test.ts', 6],
    ['test/admission.test.ts', 6],
    ['test/named-reads.test.ts', 4],
    ['test/slurm-config.test.ts', 4],
  ]);
  it.each<[string, string[], number, string[]]>([
    [
      'one testbed: the timing-sensitive file last',
      ['test/gangs.test.ts', 'test/whatif-testbed.test.ts', 'test/faults.test.ts'],
      1,
      ['test/faults.test.ts', 'test/gangs.test.ts', 'test/whatif-testbed.test.ts'],
    ],
    [
      'two testbeds: it starts with at least its own seconds queued behind it (contract 34 + admission 6 + gangs 6 + slurm-config 4 + named-reads 4 = 54 < 77, so faults goes behind it too); equal seconds keep vitest\'s order',
      ['test/slurm-config.test.ts', 'test/named-reads.test.ts', 'test/admission.test.ts', 'test/gangs.test.ts', 'test/contract.test.ts', 'test/faults.test.ts', 'test/helm-pods.test.ts', 'test/whatif-testbed.test.ts'],
      2,
      ['test/helm-pods.test.ts', 'test/whatif-testbed.test.ts', 'test/faults.test.ts', 'test/contract.test.ts', 'test/admission.test.ts', 'test/gangs.test.ts', 'test/slurm-config.test.ts', 'test/named-reads.test.ts'],
    ],
    [
      'the timing-sensitive file starts as late as it can with enough behind it (contract 34 + testbed-contract 55 = 89 >= 77)',
      ['test/contract.test.ts', 'test/testbed-contract.test.ts', 'test/faults.test.ts', 'test/helm-pods.test.ts', 'test/whatif-testbed.test.ts'],
      2,
      ['test/helm-pods.test.ts', 'test/faults.test.ts', 'test/whatif-testbed.test.ts', 'test/testbed-contract.test.ts', 'test/contract.test.ts'],
    ],
    [
      'a file missing from the table ranks as NEW_FILE_SECONDS, among the long ones',
      ['test/gangs.test.ts', 'test/brand-new.test.ts', 'test/helm-pods.test.ts', 'test/contract.test.ts'],
      4,
      ['test/helm-pods.test.ts', 'test/brand-new.test.ts', 'test/contract.test.ts', 'test/gangs.test.ts'],
    ],
  ])('%s', (_rule, files, testbeds, expected) => {
    expect(testbedOrder(files, testbeds, TABLE)).toEqual(expected);
  });

  it('FILE_SECONDS, the default table, has a row for every testbed file of the repository and no other', () => {
    const testbedFiles = readdirSync(join(REPO, 'test')).filter((f) => f.endsWith('.test.ts') && f !== 'e2e-mode.test.ts').map((f) => `test/${f}`);
    expect(testbedFiles.filter((f) => !FILE_SECONDS.has(f))).toEqual([]);
    expect([...FILE_SECONDS.keys()].filter((f) => !testbedFiles.includes(f))).toEqual([]);
    expect(NEW_FILE_SECONDS).toBe(60);
  });

  it('without a table, orders by FILE_SECONDS', () => {
    const files = ['test/gangs.test.ts', 'test/faults.test.ts', 'test/contract.test.ts'];
    const bySeconds = [...files].sort((a, b) => (FILE_SECONDS.get(b) ?? 0) - (FILE_SECONDS.get(a) ?? 0));
    expect(new Set(files.map((f) => FILE_SECONDS.get(f))).size).toBe(3);
    expect(testbedOrder(files, 4)).toEqual(bySeconds);
  });
});
