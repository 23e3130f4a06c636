// A client-node KubeConfig for an EKS cluster: endpoint and CA given or read by eks:DescribeCluster, and every
// request authorised with a fresh token from an EksTokenSource (the token never sits in the config).
import { errorMessage } from '../errors/index.ts';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { EksAuthError } from './errors.ts';
import { EksTokenSource, type AwsCredentialsProvider } from './eks-token.ts';

/** The auth-provider name that routes a user's requests to our authenticator. */
const EKS_AUTH_PROVIDER = 'kmaint-eks';

export interface EksEndpoint {
  /** https URL of the API server. */
  server: string;
  /** Base64 of the PEM CA bundle, as DescribeCluster returns it. */
  caData: string;
}

export interface EksKubeConfigOptions {
  clusterName: string;
  region: string;
  credentials: AwsCredentialsProvider;
  /** Given: no DescribeCluster call (and no eks:DescribeCluster permission needed). */
  endpoint?: EksEndpoint;
  /** @default eks:DescribeCluster through @aws-sdk/client-eks */
  describeCluster?: (clusterName: string, region: string) => Promise<EksEndpoint>;
  /** @default a new EksTokenSource for the cluster */
  tokens?: EksTokenSource;
}

/** eks:DescribeCluster; the SDK is loaded only here so the CLI does not pay for it. */
export async function describeEksCluster(clusterName: string, region: string): Promise<EksEndpoint> {
  const { EKSClient, DescribeClusterCommand } = await import('@aws-sdk/client-eks');
  const eks = new EKSClient({ region });
  try {
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: clusterName }));
    const server = cluster?.endpoint;
    const caData = cluster?.certificateAuthority?.data;
    if (!server || !caData) throw new EksAuthError(clusterName, `cluster ${clusterName} has no ${server ? 'certificate authority' : 'endpoint'} yet (status ${cluster?.status ?? 'unknown'})`);
    return { server, caData };
  } catch (err) {
    throw new EksAuthError(clusterName, `describing EKS cluster ${clusterName} in ${region}: ${errorMessage(err)}`, { cause: err });
  } finally {
    eks.destroy();
  }
}

export async function eksKubeConfig(opts: EksKubeConfigOptions): Promise<KubeConfig> {
  const endpoint = opts.endpoint ?? (await (opts.describeCluster ?? describeEksCluster)(opts.clusterName, opts.region));
  const tokens = opts.tokens ?? new EksTokenSource({ clusterName: opts.clusterName, region: opts.region, credentials: opts.credentials });
  const kc = new KubeConfig();
  kc.addAuthenticator({
    isAuthProvider: (user: User) => (user.authProvider as { name?: string } | undefined)?.name === EKS_AUTH_PROVIDER,
    applyAuthentication: async (_user, requestOptions) => {
      requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${await tokens.token()}` };
    },
  });
  const name = `eks-${opts.clusterName}`;
  kc.loadFromOptions({
    clusters: [{ name, server: endpoint.server, caData: endpoint.caData, skipTLSVerify: false }],
    users: [{ name, authProvider: { name: EKS_AUTH_PROVIDER, config: {} } }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kc;
}
