// The `aws` instance provider: `aws:///<zone>/<instance-id>` -> TerminateInstanceInAutoScalingGroup (desired capacity
// kept, so the group replaces the Node) when the instance is in an Auto Scaling group, else EC2 TerminateInstances.
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { ReaperProviderError } from './errors.ts';
import type { InstanceProvider } from './providers.ts';

/** `aws:///eu-west-1a/i-0123456789abcdef0` (EKS, kOps, Karpenter); the zone part may be empty in some installers. */
const AWS_PROVIDER_ID = /^aws:\/\/\/([a-z0-9-]*)\/(i-[0-9a-f]{8,17})$/;
/** The region of a zone (`eu-west-1a`, `us-west-2-lax-1a`, `us-gov-west-1b`): everything up to the region's number. */
const REGION_OF_ZONE = /^([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d+)/;

export interface AwsInstance {
  zone: string;
  region: string | undefined;
  instanceId: string;
}

/** Zone, region and instance id of an AWS providerID, or undefined when it is not one. */
export function parseAwsProviderID(providerID: string): AwsInstance | undefined {
  const m = AWS_PROVIDER_ID.exec(providerID);
  if (!m) return undefined;
  const zone = m[1] ?? '';
  return { zone, region: REGION_OF_ZONE.exec(zone)?.[1], instanceId: m[2] ?? '' };
}

export interface AwsProviderOptions {
  /** Clients for a region (undefined: the SDK's default region). @default new EC2Client / AutoScalingClient per region */
  clients?: (region: string | undefined) => { ec2: EC2Client; autoScaling: AutoScalingClient };
}

interface AwsSdk {
  autoScaling: typeof import('@aws-sdk/client-auto-scaling');
  ec2: typeof import('@aws-sdk/client-ec2');
}

let sdk: Promise<AwsSdk> | undefined;

/** The EC2 and Auto Scaling clients load on the first termination: every other pass (and process) goes without them (~70 MB). */
function loadSdk(): Promise<AwsSdk> {
  sdk ??= Promise.all([import('@aws-sdk/client-auto-scaling'), import('@aws-sdk/client-ec2')]).then(([autoScaling, ec2]) => ({ autoScaling, ec2 }));
  return sdk;
}

function defaultClients(aws: AwsSdk): (region: string | undefined) => { ec2: EC2Client; autoScaling: AutoScalingClient } {
  const byRegion = new Map<string, { ec2: EC2Client; autoScaling: AutoScalingClient }>();
  return (region) => {
    const key = region ?? '';
    let clients = byRegion.get(key);
    if (!clients) {
      const config = region ? { region } : {};
      clients = { ec2: new aws.ec2.EC2Client(config), autoScaling: new aws.autoScaling.AutoScalingClient(config) };
      byRegion.set(key, clients);
    }
    return clients;
  };
}

export function awsProvider(opts: AwsProviderOptions = {}): InstanceProvider {
  let clients = opts.clients;
  return {
    prefix: 'aws',
    async terminate(providerID: string, signal?: AbortSignal): Promise<string> {
      const instance = parseAwsProviderID(providerID);
      if (!instance) throw new ReaperProviderError(providerID, 'not an AWS providerID of the form aws:///<zone>/<instance-id>');
      const aws = await loadSdk();
      clients ??= defaultClients(aws);
      const { ec2, autoScaling } = clients(instance.region);
      const { DescribeAutoScalingInstancesCommand, TerminateInstanceInAutoScalingGroupCommand } = aws.autoScaling;
      const { TerminateInstancesCommand } = aws.ec2;
      const send = signal ? { abortSignal: signal } : {};
      const { instanceId } = instance;
      try {
        const described = await autoScaling.send(new DescribeAutoScalingInstancesCommand({ InstanceIds: [instanceId] }), send);
        const group = described.AutoScalingInstances?.find((i) => i.InstanceId === instanceId)?.AutoScalingGroupName;
        if (group) {
          await autoScaling.send(new TerminateInstanceInAutoScalingGroupCommand({ InstanceId: instanceId, ShouldDecrementDesiredCapacity: false }), send);
          return `terminated ${instanceId} in Auto Scaling group ${group} (desired capacity kept)`;
        }
        const out = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }), send);
        const state = out.TerminatingInstances?.find((i) => i.InstanceId === instanceId)?.CurrentState?.Name;
        return `terminated EC2 instance ${instanceId}${state ? ` (${state})` : ''}`;
      } catch (err) {
        throw new ReaperProviderError(providerID, `terminating ${instanceId}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    },
  };
}
