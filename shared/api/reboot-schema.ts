// kmaint extension (issue 43): spec.reboot of the MaintenanceOperatorConfig, how the drainer reboots a drained node.
import { z } from 'zod';

/** The one-shot Job's pod: image, command and privileges are the user's (defaults: shared/reboot/settings.ts). */
export const rebootJobSchema = z.strictObject({
  image: z.string().min(1).max(1024).optional(),
  command: z.array(z.string().min(1).max(4096)).max(64).optional(),
  privileged: z.boolean().optional(),
  hostPID: z.boolean().optional(),
});

export const rebootSchema = z.strictObject({
  /** `job`: a one-shot Job pinned to the node; `ec2`: EC2 RebootInstances on the Node's spec.providerID. @default job */
  method: z.enum(['job', 'ec2']).optional(),
  /** From issuing the reboot to a new boot ID and Ready (a CRD int32). @default 1800 */
  timeoutSeconds: z.int().min(1).max(2_147_483_647).optional(),
  job: rebootJobSchema.optional(),
});
