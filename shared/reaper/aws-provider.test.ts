// The aws provider against mocked EC2 and Auto Scaling APIs: which call terminates which instance, and errors.
import { AutoScalingClient, DescribeAutoScalingInstancesCommand, TerminateInstanceInAutoScalingGroupCommand } from '@aws-sdk/client-auto-scaling';
import { DescribeInstanceStatusCommand, EC2Client, RebootInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { awsProvider, parseAwsProviderID } from './aws-provider.ts';

const ec2 = mockClient(EC2Client);
const asg = mockClient(AutoScalingClient);
const regions: Array<string | undefined> = [];
const provider = awsProvider({
  clients: (region) => {
    regions.push(region);
    return { ec2: new EC2Client({ region: region ?? 'eu-west-1' }), autoScaling: new AutoScalingClient({ region: region ?? 'eu-west-1' }) };
  },
});

beforeEach(() => {
  ec2.reset();
  asg.reset();
  regions.length = 0;
});

describe('parseAwsProviderID', () => {
  it.each<[string, unknown]>([
    ['aws:///eu-west-1a/i-0123456789abcdef0', { zone: 'eu-west-1a', region: 'eu-west-1', instanceId: 'i-0123456789abcdef0' }],
    ['aws:///us-west-2-lax-1a/i-0123456789abcdef0', { zone: 'us-west-2-lax-1a', region: 'us-west-2', instanceId: 'i-0123456789abcdef0' }],
    ['aws:///us-gov-west-1b/i-01234567', { zone: 'us-gov-west-1b', region: 'us-gov-west-1', instanceId: 'i-01234567' }],
    ['aws:////i-0123456789abcdef0', { zone: '', region: undefined, instanceId: 'i-0123456789abcdef0' }],
    ['aws:///eu-west-1a/fargate-ip-10-0-0-1', undefined],
    ['gce://proj/zone/vm', undefined],
  ])('%s', (id, expected) => {
    expect(parseAwsProviderID(id)).toEqual(expected);
  });
});

describe('awsProvider.reboot', () => {
  it('EC2 RebootInstances once, on the instance id, in the zone\'s region; the error named when EC2 refuses', async () => {
    ec2.on(RebootInstancesCommand).resolves({});
    expect(await provider.reboot?.('aws:///eu-west-1a/i-0123456789abcdef0')).toBe('rebooted EC2 instance i-0123456789abcdef0 (RebootInstances)');
    expect(ec2).toHaveReceivedCommandTimes(RebootInstancesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(RebootInstancesCommand, { InstanceIds: ['i-0123456789abcdef0'] });
    expect(regions).toEqual(['eu-west-1']);
    ec2.on(RebootInstancesCommand).rejects(new Error('UnauthorizedOperation: not allowed'));
    await expect(provider.reboot?.('aws:///eu-west-1a/i-0123456789abcdef0')).rejects.toThrow('rebooting i-0123456789abcdef0: UnauthorizedOperation: not allowed');
    await expect(provider.reboot?.('gce://p/z/vm')).rejects.toThrow('not an AWS providerID of the form aws:///<zone>/<instance-id>');
  });
});

describe('awsProvider.terminate', () => {
  it('an instance in no Auto Scaling group: EC2 TerminateInstances once, in the zone\'s region', async () => {
    asg.on(DescribeAutoScalingInstancesCommand).resolves({ AutoScalingInstances: [] });
    ec2.on(TerminateInstancesCommand).resolves({ TerminatingInstances: [{ InstanceId: 'i-0123456789abcdef0', CurrentState: { Name: 'shutting-down' } }] });
    await expect(provider.terminate('aws:///eu-central-1b/i-0123456789abcdef0')).resolves.toBe('terminated EC2 instance i-0123456789abcdef0 (shutting-down)');
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-0123456789abcdef0'] });
    expect(asg).toHaveReceivedCommandTimes(TerminateInstanceInAutoScalingGroupCommand, 0);
    expect(regions).toEqual(['eu-central-1']);
  });

  it('an instance in an Auto Scaling group: TerminateInstanceInAutoScalingGroup without decrementing desired capacity', async () => {
    asg.on(DescribeAutoScalingInstancesCommand).resolves({ AutoScalingInstances: [{ InstanceId: 'i-0123456789abcdef0', AutoScalingGroupName: 'eks-general', AvailabilityZone: 'eu-west-1a', LifecycleState: 'InService', HealthStatus: 'UNHEALTHY', ProtectedFromScaleIn: false }] });
    asg.on(TerminateInstanceInAutoScalingGroupCommand).resolves({});
    await expect(provider.terminate('aws:///eu-west-1a/i-0123456789abcdef0')).resolves.toBe('terminated i-0123456789abcdef0 in Auto Scaling group eks-general (desired capacity kept)');
    expect(asg).toHaveReceivedCommandWith(DescribeAutoScalingInstancesCommand, { InstanceIds: ['i-0123456789abcdef0'] });
    expect(asg).toHaveReceivedCommandTimes(TerminateInstanceInAutoScalingGroupCommand, 1);
    expect(asg).toHaveReceivedCommandWith(TerminateInstanceInAutoScalingGroupCommand, { InstanceId: 'i-0123456789abcdef0', ShouldDecrementDesiredCapacity: false });
    expect(ec2).toHaveReceivedCommandTimes(TerminateInstancesCommand, 0);
  });

  it('an API failure is a ReaperProviderError naming the instance, with the SDK error as cause', async () => {
    asg.on(DescribeAutoScalingInstancesCommand).resolves({});
    const denied = Object.assign(new Error('You are not authorized to perform this operation.'), { name: 'UnauthorizedOperation' });
    ec2.on(TerminateInstancesCommand).rejects(denied);
    const err = await provider.terminate('aws:///eu-west-1a/i-0123456789abcdef0').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ReaperProviderError', providerID: 'aws:///eu-west-1a/i-0123456789abcdef0', message: 'terminating i-0123456789abcdef0: You are not authorized to perform this operation.' });
    expect((err as Error).cause).toBe(denied);
  });

  it('a providerID that is not an AWS instance is refused before any call', async () => {
    await expect(provider.terminate('aws:///eu-west-1a/fargate-ip-10-0-0-1')).rejects.toThrow('not an AWS providerID of the form aws:///<zone>/<instance-id>');
    expect([ec2.calls().length, asg.calls().length]).toEqual([0, 0]);
  });
});

describe('awsProvider.scheduledEvents', () => {
  const CODES = ['instance-reboot', 'system-reboot', 'system-maintenance', 'instance-retirement', 'instance-stop'];
  const reboot = { InstanceEventId: 'instance-event-0d59937288b749b32', Code: 'system-reboot' as const, Description: 'The instance is scheduled for a reboot', NotBefore: new Date('2026-01-03T00:00:00.000Z'), NotAfter: new Date('2026-01-03T02:00:00.000Z') };

  it('one paged DescribeInstanceStatus per region, filtered on event.code; instances it does not list have no events', async () => {
    ec2
      .on(DescribeInstanceStatusCommand)
      .resolvesOnce({ InstanceStatuses: [{ InstanceId: 'i-0123456789abcdef0', AvailabilityZone: 'eu-west-1a', Events: [reboot] }], NextToken: 'page-2' })
      .resolvesOnce({ InstanceStatuses: [{ InstanceId: 'i-0fffffffffffffff1', AvailabilityZone: 'eu-west-1b', Events: [] }] })
      .resolves({ InstanceStatuses: [] });
    const read = await provider.scheduledEvents?.(['aws:///eu-west-1a/i-0123456789abcdef0', 'aws:///eu-west-1b/i-0fffffffffffffff1', 'aws:///us-east-1a/i-0aaaaaaaaaaaaaaa2'], CODES);
    expect(read).toEqual({
      events: new Map([
        ['aws:///eu-west-1a/i-0123456789abcdef0', [{ id: 'instance-event-0d59937288b749b32', code: 'system-reboot', description: 'The instance is scheduled for a reboot', notBefore: reboot.NotBefore, notAfter: reboot.NotAfter, state: 'active' }]],
        ['aws:///eu-west-1b/i-0fffffffffffffff1', []],
        ['aws:///us-east-1a/i-0aaaaaaaaaaaaaaa2', []],
      ]),
      unread: new Map(),
    });
    expect(regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(ec2).toHaveReceivedCommandTimes(DescribeInstanceStatusCommand, 3);
    expect(ec2).toHaveReceivedNthCommandWith(DescribeInstanceStatusCommand, 1, { Filters: [{ Name: 'event.code', Values: CODES }], IncludeAllInstances: true, MaxResults: 1000 });
    expect(ec2).toHaveReceivedNthCommandWith(DescribeInstanceStatusCommand, 2, { Filters: [{ Name: 'event.code', Values: CODES }], IncludeAllInstances: true, MaxResults: 1000, NextToken: 'page-2' });
  });

  it('a region whose call fails leaves its instances unread, with the error; other regions are read', async () => {
    const denied = Object.assign(new Error('You are not authorized to perform this operation.'), { name: 'UnauthorizedOperation' });
    ec2.on(DescribeInstanceStatusCommand).rejectsOnce(denied).resolves({ InstanceStatuses: [] });
    const read = await provider.scheduledEvents?.(['aws:///eu-west-1a/i-0123456789abcdef0', 'aws:///us-east-1a/i-0aaaaaaaaaaaaaaa2', 'aws:///eu-west-1a/fargate-ip-10-0-0-1'], CODES);
    expect(read).toEqual({
      events: new Map([['aws:///us-east-1a/i-0aaaaaaaaaaaaaaa2', []]]),
      unread: new Map([
        ['aws:///eu-west-1a/fargate-ip-10-0-0-1', 'not an AWS providerID of the form aws:///<zone>/<instance-id>'],
        ['aws:///eu-west-1a/i-0123456789abcdef0', 'DescribeInstanceStatus in eu-west-1: You are not authorized to perform this operation.'],
      ]),
    });
  });
});
