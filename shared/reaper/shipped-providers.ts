// The instance providers kmaint ships, by providerID prefix.
import { awsProvider } from './aws-provider.ts';
import { providerMap, type InstanceProviders } from './providers.ts';

/** `aws` (SDK clients made on first use, region from the providerID's zone). */
export function defaultInstanceProviders(): InstanceProviders {
  return providerMap([awsProvider()]);
}
