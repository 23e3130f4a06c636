// spec.reboot.method ec2 (issue 43): the instance a Node's spec.providerID names, rebooted by EC2 RebootInstances.
import type { RebootInstance } from '../api/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import { parseAwsProviderID } from '../reaper/index.ts';

/** What the request records as issued (kmaint.io/reboot-issued) for an EC2 reboot of `instanceId`. */
export function ec2RebootIssued(instanceId: string): string {
  return `ec2 RebootInstances ${instanceId}`;
}

/** The instance behind the Node, from its own spec.providerID; or why it cannot be rebooted by EC2. */
export function ec2RebootTarget(node: V1Node): { kind: 'instance'; instance: RebootInstance } | { kind: 'problem'; problem: string } {
  const providerID = node.spec?.providerID ?? '';
  const nodeName = node.metadata?.name ?? '';
  if (providerID === '') return { kind: 'problem', problem: 'spec.reboot.method is ec2 but the Node has no spec.providerID' };
  const parsed = parseAwsProviderID(providerID);
  if (!parsed) return { kind: 'problem', problem: `spec.reboot.method is ec2 but the Node's spec.providerID ${JSON.stringify(providerID)} is not aws:///<zone>/<instance-id>` };
  return { kind: 'instance', instance: { providerID, instanceId: parsed.instanceId, nodeName } };
}
