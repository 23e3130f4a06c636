// The function's environment, parsed once per container into typed settings with every default filled in.
import { z } from 'zod';
import type { PassFunction } from '#pass';
import { secretArnRegion, type EksEndpoint } from '#kube';
import { LambdaSettingsError } from './errors.ts';

export type ClusterAccess =
  | { kind: 'kubeconfig'; path: string }
  /** KMAINT_KUBECONFIG holding the kubeconfig itself (YAML over several lines, or JSON). */
  | { kind: 'kubeconfig-text'; text: string }
  | { kind: 'kubeconfig-secret'; secretArn: string }
  | { kind: 'eks'; clusterName: string; region: string; endpoint?: EksEndpoint };

export interface LambdaSettings {
  /** Namespace of the MaintenanceOperatorConfig and the pass leases. */
  namespace: string;
  cluster: ClusterAccess;
  chain: { enabled: boolean; maxDepth: number; functionNames: Partial<Record<PassFunction, string | undefined>> };
  safetyMarginMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  metricsNamespace: string;
}

/** Unset and empty mean the same (serverless.yml writes "" for an unset parameter). */
const optional = z
  .string()
  .optional()
  .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim()));
const intFrom = (min: number, max: number, fallback: number) =>
  optional.pipe(z.string().regex(/^\d+$/, 'expected a whole number').optional()).pipe(
    z
      .string()
      .optional()
      .transform((s) => (s === undefined ? fallback : Number(s)))
      .pipe(z.number().int().min(min).max(max)),
  );

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

const envSchema = z
  .object({
    KMAINT_NAMESPACE: optional.transform((s) => s ?? 'kmaint'),
    KMAINT_KUBECONFIG: optional,
    KMAINT_KUBECONFIG_SECRET_ARN: optional.refine((s) => s === undefined || secretArnRegion(s) !== undefined, 'expected arn:aws:secretsmanager:<region>:<account>:secret:<name>'),
    KMAINT_CLUSTER_NAME: optional,
    KMAINT_CLUSTER_ENDPOINT: optional.pipe(z.url({ protocol: /^https$/ }).optional()),
    KMAINT_CLUSTER_CA: optional.pipe(z.base64().optional()),
    AWS_REGION: optional,
    KMAINT_CHAIN: optional.pipe(z.enum(['on', 'off']).optional()),
    KMAINT_CHAIN_MAX_DEPTH: intFrom(0, 10, 3),
    KMAINT_FN_SCHEDULER: optional,
    KMAINT_FN_DRAINER: optional,
    KMAINT_FN_CLEANUP: optional,
    KMAINT_SAFETY_MARGIN_MS: intFrom(1000, 600_000, 10_000),
    KMAINT_LOG_LEVEL: optional.pipe(z.enum(LOG_LEVELS).optional()),
    KMAINT_METRICS_NAMESPACE: optional.transform((s) => s ?? 'kmaint'),
  })
  .superRefine((env, ctx) => {
    const kubeconfig = env.KMAINT_KUBECONFIG ?? env.KMAINT_KUBECONFIG_SECRET_ARN;
    if (env.KMAINT_KUBECONFIG && env.KMAINT_KUBECONFIG_SECRET_ARN) ctx.addIssue({ code: 'custom', path: ['KMAINT_KUBECONFIG_SECRET_ARN'], message: 'set it or KMAINT_KUBECONFIG, not both' });
    if (!kubeconfig && !env.KMAINT_CLUSTER_NAME) ctx.addIssue({ code: 'custom', path: ['KMAINT_CLUSTER_NAME'], message: 'set it (EKS), KMAINT_KUBECONFIG or KMAINT_KUBECONFIG_SECRET_ARN' });
    if (!kubeconfig && env.KMAINT_CLUSTER_NAME && !env.AWS_REGION) ctx.addIssue({ code: 'custom', path: ['AWS_REGION'], message: 'required to reach an EKS cluster' });
    if (!env.KMAINT_CLUSTER_ENDPOINT !== !env.KMAINT_CLUSTER_CA) ctx.addIssue({ code: 'custom', path: [env.KMAINT_CLUSTER_ENDPOINT ? 'KMAINT_CLUSTER_CA' : 'KMAINT_CLUSTER_ENDPOINT'], message: 'set both KMAINT_CLUSTER_ENDPOINT and KMAINT_CLUSTER_CA, or neither (eks:DescribeCluster)' });
    if (env.KMAINT_CHAIN !== 'off') {
      for (const key of ['KMAINT_FN_DRAINER', 'KMAINT_FN_CLEANUP'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'the function to chain to; required unless KMAINT_CHAIN=off' });
      }
    }
  });

/** A path is one line; a kubeconfig's text spans lines (YAML) or is a JSON object. */
function isKubeConfigText(value: string): boolean {
  return value.includes('\n') || value.startsWith('{');
}

/** Parses the environment; a problem names each variable and what it needs. */
export function loadLambdaSettings(env: Readonly<Record<string, string | undefined>>): LambdaSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
    throw new LambdaSettingsError(`function environment: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues, { cause: parsed.error });
  }
  const e = parsed.data;
  const cluster: ClusterAccess = e.KMAINT_KUBECONFIG_SECRET_ARN
    ? { kind: 'kubeconfig-secret', secretArn: e.KMAINT_KUBECONFIG_SECRET_ARN }
    : e.KMAINT_KUBECONFIG
      ? isKubeConfigText(e.KMAINT_KUBECONFIG)
        ? { kind: 'kubeconfig-text', text: e.KMAINT_KUBECONFIG }
        : { kind: 'kubeconfig', path: e.KMAINT_KUBECONFIG }
      : {
        kind: 'eks',
        clusterName: e.KMAINT_CLUSTER_NAME as string,
        region: e.AWS_REGION as string,
        ...(e.KMAINT_CLUSTER_ENDPOINT && e.KMAINT_CLUSTER_CA ? { endpoint: { server: e.KMAINT_CLUSTER_ENDPOINT, caData: e.KMAINT_CLUSTER_CA } } : {}),
      };
  return {
    namespace: e.KMAINT_NAMESPACE,
    cluster,
    chain: {
      enabled: e.KMAINT_CHAIN !== 'off',
      maxDepth: e.KMAINT_CHAIN_MAX_DEPTH,
      functionNames: { scheduler: e.KMAINT_FN_SCHEDULER, drainer: e.KMAINT_FN_DRAINER, cleanup: e.KMAINT_FN_CLEANUP },
    },
    safetyMarginMs: e.KMAINT_SAFETY_MARGIN_MS,
    logLevel: e.KMAINT_LOG_LEVEL ?? 'info',
    metricsNamespace: e.KMAINT_METRICS_NAMESPACE,
  };
}

/** The log level before the settings are checked (an invalid value is reported by loadLambdaSettings). */
export function logLevelOf(env: Readonly<Record<string, string | undefined>>): LambdaSettings['logLevel'] {
  const level = env['KMAINT_LOG_LEVEL'];
  return (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LambdaSettings['logLevel']) : 'info';
}
