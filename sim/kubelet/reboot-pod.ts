// The simulated kubelet's test for a reboot pod (kmaint's reboot Job, by its label): a leaf module, so the pod runner
// and the pod decision read it without importing the reboot itself (reboot.ts, which drives the node fleet).
import { LABEL_REBOOT_POD } from '../../shared/api/index.ts';

/** How long a reboot pod runs before it "returns" (systemctl reboot returns at once; the node goes down after). */
export const REBOOT_POD_RUN_SECONDS = 1;

/** Whether the pod is kmaint's reboot pod: its labels say so. */
export function isRebootPod(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[LABEL_REBOOT_POD] === 'true';
}
