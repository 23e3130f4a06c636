// The function environment: defaults, the two ways to reach a cluster, and a message naming each bad variable.
import { describe, expect, it } from 'vitest';
import { LambdaSettingsError } from './errors.ts';
import { loadLambdaSettings, logLevelOf, type LambdaSettings } from './settings.ts';

const NAMES = { KMAINT_FN_SCHEDULER: 'k-scheduler', KMAINT_FN_DRAINER: 'k-drainer', KMAINT_FN_CLEANUP: 'k-cleanup' };
const CA = Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64');
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kmaint/kubeconfig-AbCdEf';

describe('loadLambdaSettings', () => {
  it('fills every default for an EKS cluster found by DescribeCluster', () => {
    expect(loadLambdaSettings({ KMAINT_CLUSTER_NAME: 'prod', AWS_REGION: 'eu-west-1', ...NAMES, UNRELATED: 'x' })).toEqual<LambdaSettings>({
      namespace: 'kmaint',
      cluster: { kind: 'eks', clusterName: 'prod', region: 'eu-west-1' },
      chain: { enabled: true, maxDepth: 3, functionNames: { scheduler: 'k-scheduler', drainer: 'k-drainer', cleanup: 'k-cleanup' } },
      safetyMarginMs: 10_000,
      logLevel: 'info',
      metricsNamespace: 'kmaint',
    });
  });

  it.each<[string, Record<string, string>, Partial<LambdaSettings>]>([
    ['endpoint and CA from the environment skip DescribeCluster', { KMAINT_CLUSTER_NAME: 'prod', AWS_REGION: 'eu-west-1', KMAINT_CLUSTER_ENDPOINT: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', KMAINT_CLUSTER_CA: CA, ...NAMES }, { cluster: { kind: 'eks', clusterName: 'prod', region: 'eu-west-1', endpoint: { server: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: CA } } }],
    ['a kubeconfig path wins over EKS', { KMAINT_KUBECONFIG: '/var/task/kubeconfig', KMAINT_CLUSTER_NAME: 'prod', ...NAMES }, { cluster: { kind: 'kubeconfig', path: '/var/task/kubeconfig' } }],
    ['a KMAINT_KUBECONFIG over several lines is the kubeconfig itself', { KMAINT_KUBECONFIG: 'apiVersion: v1\nclusters: []\n', ...NAMES }, { cluster: { kind: 'kubeconfig-text', text: 'apiVersion: v1\nclusters: []' } }],
    ['a KMAINT_KUBECONFIG holding a JSON object is the kubeconfig itself', { KMAINT_KUBECONFIG: '{"apiVersion":"v1"}', ...NAMES }, { cluster: { kind: 'kubeconfig-text', text: '{"apiVersion":"v1"}' } }],
    ['a kubeconfig secret wins over EKS, needing no AWS_REGION (the ARN has it)', { KMAINT_KUBECONFIG_SECRET_ARN: SECRET_ARN, KMAINT_CLUSTER_NAME: 'prod', ...NAMES }, { cluster: { kind: 'kubeconfig-secret', secretArn: SECRET_ARN } }],
    ['empty values count as unset (serverless writes "" for unset parameters)', { KMAINT_KUBECONFIG: '/k', KMAINT_CLUSTER_ENDPOINT: '', KMAINT_CLUSTER_CA: ' ', KMAINT_NAMESPACE: '', ...NAMES }, { namespace: 'kmaint', cluster: { kind: 'kubeconfig', path: '/k' } }],
    ['KMAINT_CHAIN=off needs no function names', { KMAINT_KUBECONFIG: '/k', KMAINT_CHAIN: 'off' }, { chain: { enabled: false, maxDepth: 3, functionNames: { scheduler: undefined, drainer: undefined, cleanup: undefined } } }],
    ['numbers and levels are read from strings', { KMAINT_KUBECONFIG: '/k', ...NAMES, KMAINT_CHAIN_MAX_DEPTH: '1', KMAINT_SAFETY_MARGIN_MS: '20000', KMAINT_LOG_LEVEL: 'debug' }, { safetyMarginMs: 20_000, logLevel: 'debug' }],
  ])('%s', (_rule, env, expected) => {
    expect(loadLambdaSettings(env)).toMatchObject(expected);
  });

  it.each<[string, Record<string, string>, string]>([
    ['no way to reach a cluster', { ...NAMES }, 'function environment: KMAINT_CLUSTER_NAME: set it (EKS), KMAINT_KUBECONFIG or KMAINT_KUBECONFIG_SECRET_ARN'],
    ['a secret that is not a Secrets Manager ARN', { KMAINT_KUBECONFIG_SECRET_ARN: 'kmaint/kubeconfig', ...NAMES }, 'function environment: KMAINT_KUBECONFIG_SECRET_ARN: expected arn:aws:secretsmanager:<region>:<account>:secret:<name>'],
    ['both a kubeconfig and a secret', { KMAINT_KUBECONFIG: '/k', KMAINT_KUBECONFIG_SECRET_ARN: SECRET_ARN, ...NAMES }, 'function environment: KMAINT_KUBECONFIG_SECRET_ARN: set it or KMAINT_KUBECONFIG, not both'],
    ['EKS without a region', { KMAINT_CLUSTER_NAME: 'prod', ...NAMES }, 'function environment: AWS_REGION: required to reach an EKS cluster'],
    ['an endpoint without a CA', { KMAINT_KUBECONFIG: '/k', KMAINT_CLUSTER_ENDPOINT: 'https://x.example', ...NAMES }, 'function environment: KMAINT_CLUSTER_CA: set both KMAINT_CLUSTER_ENDPOINT and KMAINT_CLUSTER_CA, or neither (eks:DescribeCluster)'],
    ['an http endpoint', { KMAINT_CLUSTER_NAME: 'prod', AWS_REGION: 'eu-west-1', KMAINT_CLUSTER_ENDPOINT: 'http://x.example', KMAINT_CLUSTER_CA: CA, ...NAMES }, 'function environment: KMAINT_CLUSTER_ENDPOINT: Invalid URL'],
    ['chaining on without the drainer name', { KMAINT_KUBECONFIG: '/k', KMAINT_FN_CLEANUP: 'c' }, 'function environment: KMAINT_FN_DRAINER: the function to chain to; required unless KMAINT_CHAIN=off'],
    ['a chain switch that is neither on nor off', { KMAINT_KUBECONFIG: '/k', KMAINT_CHAIN: 'false', ...NAMES }, 'function environment: KMAINT_CHAIN: Invalid option: expected one of "on"|"off"'],
    ['a depth that is not a number', { KMAINT_KUBECONFIG: '/k', KMAINT_CHAIN_MAX_DEPTH: 'three', ...NAMES }, 'function environment: KMAINT_CHAIN_MAX_DEPTH: expected a whole number'],
    ['a margin below a second', { KMAINT_KUBECONFIG: '/k', KMAINT_SAFETY_MARGIN_MS: '10', ...NAMES }, 'function environment: KMAINT_SAFETY_MARGIN_MS: Too small: expected number to be >=1000'],
  ])('refuses %s', (_rule, env, message) => {
    expect(() => loadLambdaSettings(env)).toThrow(LambdaSettingsError);
    expect(() => loadLambdaSettings(env)).toThrow(message);
  });

  it.each([
    ['debug', 'debug'],
    ['verbose', 'info'],
    [undefined, 'info'],
  ])('logLevelOf(%s) is %s before the settings are checked', (level, expected) => {
    expect(logLevelOf(level === undefined ? {} : { KMAINT_LOG_LEVEL: level })).toBe(expected);
  });
});
