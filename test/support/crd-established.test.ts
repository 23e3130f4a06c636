import { describe, expect, it } from 'vitest';
import { CONDITIONS_NOT_WRITTEN, answerOf, untilEstablished, waitEstablished, type KubectlAnswer } from './crd-established.ts';

const NOT_WRITTEN = `error: ${CONDITIONS_NOT_WRITTEN}, expected []interface{}\n`;

/** A kubectl that gives the answers in order and records what it was asked. */
function scripted(answers: KubectlAnswer[]): { run: (args: string[]) => Promise<KubectlAnswer>; asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    run: async (args) => {
      asked.push(args);
      const next = answers.shift();
      if (!next) throw new Error('asked more often than scripted');
      return next;
    },
  };
}

describe('waiting for CRDs to be Established', () => {
  it('asks again while kubectl meets a CRD without conditions yet, and answers with the wait that succeeded', async () => {
    const k = scripted([{ code: 1, stderr: NOT_WRITTEN }, { code: 1, stderr: NOT_WRITTEN }, { code: 0, stderr: '' }]);
    expect(await waitEstablished(k.run, ['-f', 'crds/'], 30)).toEqual({ code: 0, stderr: '' });
    expect(k.asked.map((a) => a.slice(0, 4))).toEqual(Array.from({ length: 3 }, () => ['wait', '--for=condition=Established', '-f', 'crds/']));
    expect(k.asked.every((a) => /^--timeout=\d+s$/.test(a[4] ?? ''))).toBe(true);
  });

  it('any other failure is the answer at once', async () => {
    const k = scripted([{ code: 1, stderr: 'error: timed out waiting for the condition on customresourcedefinitions/x\n' }]);
    expect(await waitEstablished(k.run, ['crd/x'], 30)).toEqual({ code: 1, stderr: 'error: timed out waiting for the condition on customresourcedefinitions/x\n' });
    expect(k.asked).toHaveLength(1);
  });

  it('past the timeout the last answer stands, and untilEstablished throws it', async () => {
    const k = scripted([{ code: 1, stderr: NOT_WRITTEN }]);
    await expect(untilEstablished(k.run, ['crd/x', 'crd/y'], 0)).rejects.toThrow(`kubectl wait --for=condition=Established crd/x crd/y: error: ${CONDITIONS_NOT_WRITTEN}, expected []interface{}`);
    expect(k.asked).toHaveLength(1);
  });

  it('answerOf turns a kubectl that throws into answers', async () => {
    const run = answerOf(async (args) => {
      if (args[0] === 'fail') throw new Error(`kubectl fail: ${NOT_WRITTEN}`);
    });
    expect([await run(['ok']), await run(['fail'])]).toEqual([{ code: 0, stderr: '' }, { code: 1, stderr: `kubectl fail: ${NOT_WRITTEN}` }]);
  });
});
