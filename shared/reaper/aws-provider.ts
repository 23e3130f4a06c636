// The `aws` instance provider: `aws:///<zone>/<instance-id>` -> TerminateInstanceInAutoScalingGroup (desired capacity
// kept, so the group replaces the Node) when the instance is in an Auto Scaling group, else EC2 TerminateInstances;
// a reboot (spec.reboot.method ec2) is EC2 RebootInstances; moving a scheduled event, ModifyInstanceEventStartTime.
import { errorMessage } from '../errors/index.ts';
import type { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import type { EC2Client, InstanceStatus } from '@aws-sdk/client-ec2';
import { ReaperProviderError } from './errors.ts';
import type { InstanceProvider } from './providers.ts';
import { eventsByInstance, type ScheduledEvent, type ScheduledEventsRead } from './scheduled-events.ts';

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

/**
 * Every instance of the region with an event of `codes` (completed ones included: EC2 lists them for a week), one
 * DescribeInstanceStatus page after another. Filtering on event.code rather than naming the instances keeps it to
 * one call per page, and an instance that no longer exists cannot fail the call (InvalidInstanceID.NotFound).
 */
async function describeEventStatuses(aws: AwsSdk, ec2: EC2Client, codes: readonly string[], signal?: AbortSignal): Promise<InstanceStatus[]> {
  const statuses: InstanceStatus[] = [];
  let token: string | undefined;
  do {
    const input = { Filters: [{ Name: 'event.code', Values: [...codes] }], IncludeAllInstances: true, MaxResults: 1000, ...(token ? { NextToken: token } : {}) };
    const page = await ec2.send(new aws.ec2.DescribeInstanceStatusCommand(input), signal ? { abortSignal: signal } : {});
    statuses.push(...(page.InstanceStatuses ?? []));
    token = page.NextToken || undefined;
  } while (token !== undefined);
  return statuses;
}

/** The AWS providerIDs of `providerIDs` by region ('' for the SDK's default region); the others as unread. */
function byRegion(providerIDs: readonly string[], unread: Map<string, string>): Map<string, Array<{ providerID: string; instanceId: string }>> {
  const out = new Map<string, Array<{ providerID: string; instanceId: string }>>();
  for (const providerID of providerIDs) {
    const instance = parseAwsProviderID(providerID);
    if (!instance) {
      unread.set(providerID, 'not an AWS providerID of the form aws:///<zone>/<instance-id>');
      continue;
    }
    const key = instance.region ?? '';
    out.set(key, [...(out.get(key) ?? []), { providerID, instanceId: instance.instanceId }]);
  }
  return out;
}

export function awsProvider(opts: AwsProviderOptions = {}): InstanceProvider {
  let clients = opts.clients;
  return {
    prefix: 'aws',
    async scheduledEvents(providerIDs, codes, signal): Promise<ScheduledEventsRead> {
      const events = new Map<string, readonly ScheduledEvent[]>();
      const unread = new Map<string, string>();
      const regions = byRegion(providerIDs, unread);
      if (regions.size === 0 || codes.length === 0) {
        for (const list of regions.values()) for (const { providerID } of list) events.set(providerID, []);
        return { events, unread };
      }
      const aws = await loadSdk();
      clients ??= defaultClients(aws);
      for (const [region, instances] of [...regions].sort(([a], [b]) => (a < b ? -1 : 1))) {
        try {
          const found = eventsByInstance(await describeEventStatuses(aws, clients(region || undefined).ec2, codes, signal));
          for (const { providerID, instanceId } of instances) events.set(providerID, found.get(instanceId) ?? []);
        } catch (err) {
          const why = `DescribeInstanceStatus in ${region || 'the default region'}: ${errorMessage(err)}`;
          for (const { providerID } of instances) unread.set(providerID, why);
        }
      }
      return { events, unread };
    },
    async reboot(providerID: string, signal?: AbortSignal): Promise<string> {
      const instance = parseAwsProviderID(providerID);
      if (!instance) throw new ReaperProviderError(providerID, 'not an AWS providerID of the form aws:///<zone>/<instance-id>');
      const aws = await loadSdk();
      clients ??= defaultClients(aws);
      const { instanceId } = instance;
      try {
        await clients(instance.region).ec2.send(new aws.ec2.RebootInstancesCommand({ InstanceIds: [instanceId] }), signal ? { abortSignal: signal } : {});
        return `rebooted EC2 instance ${instanceId} (RebootInstances)`;
      } catch (err) {
        throw new ReaperProviderError(providerID, `rebooting ${instanceId}: ${errorMessage(err)}`, { cause: err });
      }
    },
    async moveEvent(providerID: string, eventId: string, notBefore: Date, signal?: AbortSignal): Promise<string> {
      const instance = parseAwsProviderID(providerID);
      if (!instance) throw new ReaperProviderError(providerID, 'not an AWS providerID of the form aws:///<zone>/<instance-id>');
      const aws = await loadSdk();
      clients ??= defaultClients(aws);
      const { instanceId } = instance;
      const input = { InstanceId: instanceId, InstanceEventId: eventId, NotBefore: notBefore };
      try {
        const out = await clients(instance.region).ec2.send(new aws.ec2.ModifyInstanceEventStartTimeCommand(input), signal ? { abortSignal: signal } : {});
        const start = out.Event?.NotBefore;
        return `moved event ${eventId} of EC2 instance ${instanceId} to ${(start ?? notBefore).toISOString()}`;
      } catch (err) {
        throw new ReaperProviderError(providerID, `moving event ${eventId} of ${instanceId}: ${errorMessage(err)}`, { cause: err });
      }
    },
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
        throw new ReaperProviderError(providerID, `terminating ${instanceId}: ${errorMessage(err)}`, { cause: err });
      }
    },
  };
}
