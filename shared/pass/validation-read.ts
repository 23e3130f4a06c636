// What cleanup reads for spec.validation (issue 44), for the cleanup pass and `kmaint explain` alike: the settings, and
// the validation Jobs' outcomes from their pods, listed only when validation is on and a request is being released.
import type { KubeClient } from '../kube/index.ts';
import type { ValidationReads } from '../lifecycle/index.ts';
import { VALIDATION_JOB_SELECTOR, validationJobStates } from '../validation/index.ts';
import type { KmaintConfig } from './config.ts';

/** undefined: validation off. The pods' LIST uses the `list pods` grant kmaint has for its drains. */
export async function readValidation(client: Pick<KubeClient, 'listPods'>, config: KmaintConfig, releasing: boolean): Promise<ValidationReads | undefined> {
  const loaded = config.validation;
  if (loaded.kind === 'off') return undefined;
  const pods = loaded.kind === 'on' && releasing ? await client.listPods({ labelSelector: VALIDATION_JOB_SELECTOR }) : undefined;
  return { loaded, namespace: config.namespace, jobs: pods && validationJobStates(pods.filter((p) => p.metadata?.namespace === config.namespace)) };
}
