// `kmaint status`, issue 44: a deleted request whose node cleanup is validating says so, from the Node's
// validation.kmaint.io/ records (the request itself carries no status of its release).
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_VALIDATION_FOR, ANNOTATION_VALIDATION_JOB, ANNOTATION_VALIDATION_OUTCOME, ANNOTATION_VALIDATION_START, isBeingDeleted, maintenanceKey } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';

/** "validating node <node> before its uncordon: job <ns>/<name> since <t>" while the attempt for `nm` runs; else undefined. */
export function validatingStage(nm: NodeMaintenance, node: V1Node | undefined): string | undefined {
  const a = node?.metadata?.annotations ?? {};
  if (!isBeingDeleted(nm) || a[ANNOTATION_VALIDATION_FOR] !== `${maintenanceKey(nm)}/${nm.metadata.uid ?? ''}` || a[ANNOTATION_VALIDATION_OUTCOME] !== undefined) return undefined;
  return `validating node ${nm.spec.nodeName} before its uncordon: job ${a[ANNOTATION_VALIDATION_JOB] ?? ''} since ${a[ANNOTATION_VALIDATION_START] ?? ''}`;
}
