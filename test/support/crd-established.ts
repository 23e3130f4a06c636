// `kubectl wait --for=condition=Established` on CRDs applied a moment before. Until the apiextensions controller has
// written a new CRD's first conditions, its `status.conditions` is null, and kubectl wait then fails at once ("error:
// .status.conditions accessor error: <nil> is of the type <nil>, expected []interface{}") instead of waiting: seen in a
// landing run's global setup. This asks again while that is the answer, within the same overall timeout.
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../../shared/errors/index.ts';

/** The part of kubectl wait's stderr that says a CRD's conditions are not written yet. */
export const CONDITIONS_NOT_WRITTEN = '.status.conditions accessor error: <nil> is of the type <nil>';

export interface KubectlAnswer {
  code: number;
  stderr: string;
}

/** A kubectl that throws on a non-zero exit, as an answer: the error's message stands for its stderr. */
export function answerOf(run: (args: string[]) => Promise<unknown>): (args: string[]) => Promise<KubectlAnswer> {
  return async (args) => {
    try {
      await run(args);
      return { code: 0, stderr: '' };
    } catch (err) {
      return { code: 1, stderr: errorMessage(err) };
    }
  };
}

/**
 * `kubectl wait --for=condition=Established <targets>` (names like `crd/x` or `-f dir`) within `timeoutSeconds` in all,
 * asked again while kubectl meets a CRD without conditions yet. The last answer: code 0 once all are Established.
 */
export async function waitEstablished(kubectl: (args: string[]) => Promise<KubectlAnswer>, targets: readonly string[], timeoutSeconds: number): Promise<KubectlAnswer> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    const answer = await kubectl(['wait', '--for=condition=Established', ...targets, `--timeout=${left}s`]);
    if (answer.code === 0 || !answer.stderr.includes(CONDITIONS_NOT_WRITTEN) || Date.now() >= deadline) return answer;
    await delay(100);
  }
}

/** waitEstablished, throwing with kubectl's stderr when the CRDs are not Established in time. */
export async function untilEstablished(kubectl: (args: string[]) => Promise<KubectlAnswer>, targets: readonly string[], timeoutSeconds: number): Promise<void> {
  const answer = await waitEstablished(kubectl, targets, timeoutSeconds);
  if (answer.code !== 0) throw new Error(`kubectl wait --for=condition=Established ${targets.join(' ')}: ${answer.stderr.trim()}`);
}
