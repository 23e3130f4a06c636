import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { longFirst } from '../setup/long-first-sequencer.ts';

const ROOT = '/repo';
const spec = (project: string, file: string): TestSpecification => ({ project: { name: project }, moduleId: `${ROOT}/${file}` }) as unknown as TestSpecification;
const names = (specs: readonly TestSpecification[]): string[] => specs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe('longFirst', () => {
  it('starts the known long testbed files first, longest first, the timing-sensitive what-if file last, and keeps the order of the rest and of other projects', () => {
    const files = [
      spec('unit', 'cli/whatif/whatif.test.ts'),
      spec('unit', 'test/helm-pods.test.ts'),
      spec('testbed', 'test/whatif-testbed.test.ts'),
      spec('testbed', 'test/contract.test.ts'),
      spec('testbed', 'test/kustomize-pods.test.ts'),
      spec('testbed', 'test/gangs.test.ts'),
      spec('testbed', 'test/helm-pods.test.ts'),
      spec('sim', 'test/lifecycle.test.ts'),
    ];
    expect(names(longFirst(files, ROOT))).toEqual([
      'unit:cli/whatif/whatif.test.ts',
      'unit:test/helm-pods.test.ts',
      'testbed:test/helm-pods.test.ts',
      'testbed:test/kustomize-pods.test.ts',
      'testbed:test/contract.test.ts',
      'testbed:test/gangs.test.ts',
      'testbed:test/whatif-testbed.test.ts',
      'sim:test/lifecycle.test.ts',
    ]);
  });
});
