// `npm run package` as a user runs it, with no AWS credentials: the CloudFormation template osls writes (schedules,
// IAM statements, handlers, limits), the zips, and the bundled handler run as Lambda would against the testbed.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { testbed } from './support/cluster.ts';
import { installCrds } from './support/kmaint.ts';
import { PHASES, WAIT_GATES } from '../shared/metrics/index.ts';

const run = promisify(execFile);
const FUNCTIONS = ['scheduler', 'drainer', 'cleanup', 'reaper'] as const;
const LOGICAL = { scheduler: 'Scheduler', drainer: 'Drainer', cleanup: 'Cleanup', reaper: 'Reaper' } as const;

/** The environment without any AWS credential or profile, so nothing can reach an account. */
function offlineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  return { ...env, AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent' };
}

/** Names of the entries of a zip file, read from its central directory. */
function zipEntries(path: string): Array<{ name: string; size: number }> {
  const buf = readFileSync(path);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries: Array<{ name: string; size: number }> = [];
  for (let i = 0; i < count; i++) {
    const nameLength = buf.readUInt16LE(at + 28);
    entries.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLength), size: buf.readUInt32LE(at + 24) });
    at += 46 + nameLength + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return entries;
}

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
/** The template's CloudWatch alarms by logical id. */
function alarmsOf(t: Template): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm').map(([id, r]) => [id, r.Properties]));
}
const arn = (service: string, resource: string) => ({ 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, service, { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, ...resource.split(':')]] });

describe('npm run package', () => {
  let template: Template;
  let packageOutput = '';
  beforeAll(async () => {
    const r = await run('npm', ['run', 'package'], { env: offlineEnv(), timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
    packageOutput = r.stdout + r.stderr;
    template = JSON.parse(readFileSync('.serverless/cloudformation-template-update-stack.json', 'utf8')) as Template;
  }, 200_000);

  it('bundles each handler and packages the service offline', () => {
    for (const fn of FUNCTIONS) expect(packageOutput).toContain(`.build/${fn}/handler.mjs`);
    expect(packageOutput).toContain('Service packaged');
  });

  it('puts each function on its EventBridge schedule, rate(1 minute) by default', () => {
    const rules = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Events::Rule');
    expect(rules.map((r) => r.Properties).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      ['Cleanup', 'Drainer', 'Reaper', 'Scheduler'].map((fn) => ({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED', Targets: [{ Arn: { 'Fn::GetAtt': [`${fn}LambdaFunction`, 'Arn'] }, Id: `${fn.toLowerCase()}Schedule` }] })),
    );
  });

  it('gives each function its own role (issue 31) and no shared one: exactly its own log group, its cluster, what its pass does', () => {
    type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };
    const roleOf = (fn: (typeof FUNCTIONS)[number]) => template.Resources[`${LOGICAL[fn]}Role`] as { Type: string; Properties: { RoleName: string; AssumeRolePolicyDocument: unknown; Policies: Array<{ PolicyName: string; PolicyDocument: { Statement: Statement[] } }>; ManagedPolicyArns?: unknown } };
    const join = (...parts: unknown[]) => ({ 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, ...parts]] });
    const here = (service: string, ...rest: unknown[]) => join(service, { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, ...rest);
    const common = (fn: string): Statement[] => [
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:CreateLogGroup', 'logs:TagResource'], Resource: here('logs', 'log-group', `/aws/lambda/kmaint-dev-${fn}`, '*') },
      { Effect: 'Allow', Action: 'logs:PutLogEvents', Resource: here('logs', 'log-group', `/aws/lambda/kmaint-dev-${fn}`, '*', '*') },
      { Effect: 'Allow', Action: 'eks:DescribeCluster', Resource: arn('eks', 'cluster/my-eks-cluster') },
    ];
    const invoke = (target: string): Statement => ({ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn('lambda', `function:kmaint-dev-${target}`) });
    const slurmToken: Statement = { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: join('secretsmanager', '*', { Ref: 'AWS::AccountId' }, 'secret', 'kmaint/slurm/*') };
    const tagged = { StringEquals: { 'aws:ResourceTag/eks:cluster-name': 'my-eks-cluster' } };
    const expected: Record<(typeof FUNCTIONS)[number], Statement[]> = {
      scheduler: [...common('scheduler'), invoke('drainer'), slurmToken],
      drainer: [...common('drainer'), invoke('cleanup'), { Effect: 'Allow', Action: 'ec2:RebootInstances', Resource: arn('ec2', 'instance/*'), Condition: tagged }, slurmToken],
      cleanup: [...common('cleanup'), slurmToken],
      reaper: [
        ...common('reaper'),
        { Effect: 'Allow', Action: 'autoscaling:DescribeAutoScalingInstances', Resource: '*' },
        { Effect: 'Allow', Action: 'ec2:DescribeInstanceStatus', Resource: '*' },
        { Effect: 'Allow', Action: 'ec2:ModifyInstanceEventStartTime', Resource: arn('ec2', 'instance/*'), Condition: tagged },
        { Effect: 'Allow', Action: 'ec2:TerminateInstances', Resource: arn('ec2', 'instance/*'), Condition: tagged },
        { Effect: 'Allow', Action: 'autoscaling:TerminateInstanceInAutoScalingGroup', Resource: arn('autoscaling', 'autoScalingGroup:*:autoScalingGroupName/*'), Condition: tagged },
      ],
    };
    expect(template.Resources['IamRoleLambdaExecution']).toBeUndefined();
    for (const fn of FUNCTIONS) {
      const role = roleOf(fn);
      expect({ [fn]: [role.Type, role.Properties.RoleName, role.Properties.ManagedPolicyArns, role.Properties.Policies.map((p) => p.PolicyName)] }).toEqual({ [fn]: ['AWS::IAM::Role', `kmaint-dev-eu-west-1-${fn}`, undefined, [`kmaint-dev-${fn}`]] });
      expect({ [fn]: role.Properties.AssumeRolePolicyDocument }).toEqual({ [fn]: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: 'sts:AssumeRole' }] } });
      expect({ [fn]: role.Properties.Policies[0]?.PolicyDocument.Statement }).toEqual({ [fn]: expected[fn] });
      expect({ [fn]: template.Resources[`${LOGICAL[fn]}LambdaFunction`]?.Properties['Role'] }).toEqual({ [fn]: { 'Fn::GetAtt': [`${LOGICAL[fn]}Role`, 'Arn'] } });
    }
    // The rules in one line each: which functions may do the dangerous things.
    const mayDo = (action: string) => FUNCTIONS.filter((fn) => roleOf(fn).Properties.Policies.some((p) => p.PolicyDocument.Statement.some((st) => [st.Action].flat().includes(action))));
    expect({
      terminate: mayDo('ec2:TerminateInstances'),
      reboot: mayDo('ec2:RebootInstances'),
      moveEvents: mayDo('ec2:ModifyInstanceEventStartTime'),
      asgTerminate: mayDo('autoscaling:TerminateInstanceInAutoScalingGroup'),
      readSecrets: mayDo('secretsmanager:GetSecretValue'),
      invoke: mayDo('lambda:InvokeFunction'),
    }).toEqual({ terminate: ['reaper'], reboot: ['drainer'], moveEvents: ['reaper'], asgTerminate: ['reaper'], readSecrets: ['scheduler', 'drainer', 'cleanup'], invoke: ['scheduler', 'drainer'] });
  });

  it('grants every function reading a kubeconfig secret only when its ARN is set (default: not set, no policy); the Slurm token has no parameter (its roles read kmaint/slurm/*)', () => {
    const t = template as Template & { Conditions?: Record<string, unknown> };
    expect(t.Conditions).toEqual({
      KubeconfigFromSecret: { 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] },
      AlarmTopicSet: { 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] },
    });
    expect(template.Resources['KubeconfigSecretReadPolicy']).toEqual({
      Type: 'AWS::IAM::Policy',
      Condition: 'KubeconfigFromSecret',
      Properties: {
        PolicyName: 'kmaint-dev-kubeconfig-secret',
        Roles: [{ Ref: 'SchedulerRole' }, { Ref: 'DrainerRole' }, { Ref: 'CleanupRole' }, { Ref: 'ReaperRole' }],
        PolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: '' }] },
      },
    });
    expect(template.Resources['SlurmTokenSecretReadPolicy']).toBeUndefined();
  });

  it.each(FUNCTIONS)('%s: handler, runtime, reserved concurrency 1, no retries, chain names in its environment', (fn) => {
    const p = template.Resources[`${LOGICAL[fn]}LambdaFunction`]?.Properties as Record<string, unknown>;
    expect([p['Handler'], p['Runtime'], p['Architectures'], p['ReservedConcurrentExecutions'], p['Timeout'], p['MemorySize'], p['FunctionName']]).toEqual([`.build/${fn}/handler.handler`, 'nodejs22.x', ['arm64'], 1, 120, 512, `kmaint-dev-${fn}`]);
    expect((p['Environment'] as { Variables: Record<string, string> }).Variables).toEqual({
      KMAINT_CLUSTER_NAME: 'my-eks-cluster',
      KMAINT_CLUSTER_ENDPOINT: '',
      KMAINT_CLUSTER_CA: '',
      KMAINT_NAMESPACE: 'kmaint',
      KMAINT_CHAIN: 'on',
      KMAINT_CHAIN_MAX_DEPTH: '3',
      KMAINT_SAFETY_MARGIN_MS: '10000',
      KMAINT_LOG_LEVEL: 'info',
      KMAINT_LIST_PAGE_SIZE: '',
      KMAINT_KUBECONFIG_SECRET_ARN: '',
      KMAINT_FN_SCHEDULER: 'kmaint-dev-scheduler',
      KMAINT_FN_DRAINER: 'kmaint-dev-drainer',
      KMAINT_FN_CLEANUP: 'kmaint-dev-cleanup',
      KMAINT_FN_REAPER: 'kmaint-dev-reaper',
    });
    const invokeConfig = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::EventInvokeConfig' && JSON.stringify(r.Properties['FunctionName']) === JSON.stringify({ Ref: `${LOGICAL[fn]}LambdaFunction` }));
    expect([invokeConfig?.Properties['MaximumRetryAttempts'], invokeConfig?.Properties['MaximumEventAgeInSeconds']]).toEqual([0, 300]);
  });

  it.each(FUNCTIONS)('%s.zip holds only its bundle and is under 5 MB', (fn) => {
    const zip = `.serverless/${fn}.zip`;
    expect(statSync(zip).size).toBeLessThan(5 * 1024 * 1024);
    expect(zipEntries(zip)).toEqual([{ name: `.build/${fn}/handler.mjs`, size: statSync(`.build/${fn}/handler.mjs`).size }]);
  });

  it('alarms on the EMF metrics: a request stuck N after creation, a budget blocking a drain M, failed passes or invocations', () => {
    const metric = (Id: string, name: string, dims: Record<string, string>, Stat: string) => ({
      Id,
      ReturnData: false,
      MetricStat: { Period: 300, Stat, Metric: { Namespace: name === 'Errors' ? 'AWS/Lambda' : 'kmaint', MetricName: name, Dimensions: Object.entries(dims).map(([Name, Value]) => ({ Name, Value })) } },
    });
    const noTopic = [{ 'Fn::If': ['AlarmTopicSet', '', { Ref: 'AWS::NoValue' }] }];
    const phases = { new: 'New', pending: 'Pending', scheduled: 'Scheduled', cordon: 'Cordon', waiting: 'WaitForPodCompletion', draining: 'Draining' };
    expect(alarmsOf(template)).toEqual({
      StuckMaintenanceAlarm: {
        AlarmName: 'kmaint-dev-maintenance-stuck',
        AlarmDescription: 'A NodeMaintenance created more than 86400 s ago is still New, Pending, Scheduled, Cordon, WaitForPodCompletion or Draining (kmaint status says why)',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: '86400',
        EvaluationPeriods: 3,
        TreatMissingData: 'notBreaching',
        AlarmActions: noTopic,
        Metrics: [
          { Id: 'stuck', Expression: 'MAX([new, pending, scheduled, cordon, waiting, draining])', Label: 'oldest unfinished request (s)' },
          ...Object.entries(phases).map(([id, Phase]) => metric(id, 'OldestRequestAge', { Function: 'scheduler', Phase }, 'Maximum')),
        ],
      },
      BudgetBlockingAlarm: {
        AlarmName: 'kmaint-dev-budget-blocking',
        AlarmDescription: 'A PodDisruptionBudget has held a drain for more than 3600 s (the request names the budget and its numbers)',
        Namespace: 'kmaint',
        MetricName: 'OldestWait',
        Dimensions: [{ Name: 'Function', Value: 'drainer' }, { Name: 'Gate', Value: 'budget' }],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 2,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: '3600',
        TreatMissingData: 'notBreaching',
        AlarmActions: noTopic,
      },
      PassFailuresAlarm: {
        AlarmName: 'kmaint-dev-pass-failures',
        AlarmDescription: 'kmaint passes or invocations keep failing (the function logs carry the failing request)',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
        AlarmActions: noTopic,
        Metrics: [
          { Id: 'failures', Expression: 'SUM([fs, fd, fc, fr, es, ed, ec, er])', Label: 'failed passes and invocations' },
          ...(['scheduler', 'drainer', 'cleanup', 'reaper'] as const).map((fn) => metric(`f${fn[0]}`, 'FailedPasses', { Function: fn }, 'Sum')),
          ...(['scheduler', 'drainer', 'cleanup', 'reaper'] as const).map((fn) => metric(`e${fn[0]}`, 'Errors', { FunctionName: `kmaint-dev-${fn}` }, 'Sum')),
        ],
      },
    });
  });

  it('takes the cluster, rate, stage, kubeconfig secret and alarm settings from parameters', async () => {
    const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kmaint-kubeconfig-AbCdEf';
    const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:kmaint-alarms';
    const out = mkdtempSync(join(tmpdir(), 'kmaint-package-'));
    await run('npx', ['osls', 'package', '--stage', 'prod', '--param=cluster=prod-eks', '--param=rate=rate(5 minutes)', `--param=kubeconfigSecretArn=${SECRET}`, `--param=alarmTopicArn=${TOPIC}`, '--param=stuckAfterSeconds=7200', '--param=budgetBlockedAfterSeconds=900', '--package', out], { env: { ...offlineEnv(), SLS_TELEMETRY_DISABLED: '1' }, timeout: 120_000 });
    const t = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    rmSync(out, { recursive: true });
    const rules = Object.values(t.Resources).filter((r) => r.Type === 'AWS::Events::Rule');
    expect(rules.map((r) => r.Properties['ScheduleExpression'])).toEqual(['rate(5 minutes)', 'rate(5 minutes)', 'rate(5 minutes)', 'rate(5 minutes)']);
    for (const fn of FUNCTIONS) expect(JSON.stringify(t.Resources[`${LOGICAL[fn]}Role`])).toContain('"cluster/prod-eks"');
    expect(JSON.stringify(t.Resources['ReaperRole'])).toContain('{"StringEquals":{"aws:ResourceTag/eks:cluster-name":"prod-eks"}}');
    expect(JSON.stringify(t.Resources['SchedulerRole'])).toContain('"function","kmaint-prod-drainer"');
    expect(JSON.stringify(t.Resources['DrainerRole'])).toContain('"/aws/lambda/kmaint-prod-drainer"');
    expect((t as Template & { Conditions?: unknown }).Conditions).toEqual({
      KubeconfigFromSecret: { 'Fn::Not': [{ 'Fn::Equals': [SECRET, ''] }] },
      AlarmTopicSet: { 'Fn::Not': [{ 'Fn::Equals': [TOPIC, ''] }] },
    });
    const alarms = alarmsOf(t);
    expect([alarms['StuckMaintenanceAlarm']?.['Threshold'], alarms['BudgetBlockingAlarm']?.['Threshold'], alarms['PassFailuresAlarm']?.['Threshold']]).toEqual(['7200', '900', 1]);
    for (const a of Object.values(alarms)) expect(a['AlarmActions']).toEqual([{ 'Fn::If': ['AlarmTopicSet', TOPIC, { Ref: 'AWS::NoValue' }] }]);
    expect(alarms['PassFailuresAlarm']?.['AlarmName']).toBe('kmaint-prod-pass-failures');
    expect(t.Resources['KubeconfigSecretReadPolicy']?.Properties['PolicyDocument']).toEqual({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: SECRET }] });
    expect((t.Resources['SchedulerLambdaFunction']?.Properties['Environment'] as { Variables: Record<string, string> }).Variables['KMAINT_KUBECONFIG_SECRET_ARN']).toBe(SECRET);
  });

  it('the bundled scheduler runs as Lambda would load it, against the testbed', async () => {
    await installCrds();
    const script = [
      "const { handler } = await import(process.argv[1]);",
      "const event = { version: '0', id: 'e1', 'detail-type': 'Scheduled Event', source: 'aws.events', account: '123456789012', time: new Date().toISOString(), region: 'eu-west-1', resources: [], detail: {} };",
      "const deadline = Date.now() + 60000;",
      "const context = { awsRequestId: 'req-bundle', functionName: 'kmaint-dev-scheduler', getRemainingTimeInMillis: () => deadline - Date.now() };",
      "const answer = await handler(event, context);",
      "process.stdout.write('ANSWER ' + JSON.stringify(answer) + '\\n');",
    ].join('\n');
    const env = { PATH: process.env['PATH'] ?? '', KMAINT_KUBECONFIG: testbed().kmaintKubeconfigPath, KMAINT_CHAIN: 'off', AWS_REGION: 'eu-west-1' };
    const r = await run(process.execPath, ['--input-type=module', '-e', script, `${process.cwd()}/.build/scheduler/handler.mjs`], { env, timeout: 90_000 });
    const lines = r.stdout.trim().split('\n');
    const answer = JSON.parse((lines.find((l) => l.startsWith('ANSWER ')) ?? '').slice(7)) as { fn: string; stopped: string; errors: number };
    expect([answer.fn, answer.stopped, answer.errors]).toEqual(['scheduler', 'idle', 0]);
    const logLines = lines.filter((l) => !l.startsWith('ANSWER ')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logLines.every((l) => l['requestId'] === 'req-bundle')).toBe(true);
    // EMF: the run's totals, then one document per phase and per gate (issue 12), then one per API verb used.
    const emf = logLines.filter((l) => '_aws' in l);
    expect(emf.every((l) => l['Function'] === 'scheduler')).toBe(true);
    const perRun = 1 + PHASES.length + WAIT_GATES.length;
    expect(emf.slice(0, perRun).map((l) => l['Phase'] ?? l['Gate'] ?? 'run')).toEqual(['run', ...PHASES, ...WAIT_GATES]);
    expect(emf.slice(perRun).every((l) => typeof l['Verb'] === 'string' && typeof l['ApiRequests'] === 'number')).toBe(true);
  });
});

describe('npm run build:cli (the container image runs this bundle)', () => {
  it('bundles the CLI into one file that runs a pass against the testbed with no node_modules beside it', async () => {
    const build = await run('npm', ['run', 'build:cli'], { timeout: 180_000 });
    expect(build.stdout).toContain('dist/kmaint.mjs');
    const alone = mkdtempSync(join(tmpdir(), 'kmaint-cli-bundle-'));
    const bundle = join(alone, 'kmaint.mjs');
    await run('cp', ['dist/kmaint.mjs', bundle]);
    try {
      await installCrds();
      const env = { PATH: process.env['PATH'] ?? '', HOME: alone };
      const r = await run(process.execPath, [bundle, '--kubeconfig', testbed().kmaintKubeconfigPath, '-o', 'json', 'pass', 'scheduler', '--dry-run'], { cwd: alone, env, timeout: 90_000 });
      const summary = JSON.parse(r.stdout.trim().split('\n')[0] ?? '') as { fn: string; outcome: string; errors: string[] };
      expect([summary.fn, summary.outcome, summary.errors]).toEqual(['scheduler', 'dry-run', []]);
      const bad = await run(process.execPath, [bundle, 'pass', 'nosuch'], { cwd: alone, env, timeout: 30_000 }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect(bad).toEqual({ code: 2, stderr: 'kmaint: unknown function "nosuch": expected one of scheduler, drainer, cleanup, reaper\n' });
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  }, 240_000);
});
