// Whether LIST responses come gzipped. Off by default: kmaint reads from inside the cluster or from a Lambda next to
// it, where bytes are cheap and the API server's CPU is not — gzipping a 20,000-node LIST (pages of 500) took it
// 68.6 s of serving against 35.4 s plain (docs/benchmarks.md). On for a reader far from the API server (a Lambda
// reaching a public endpoint across regions), where the 12x smaller transfer is worth the API server's time.
import { KubeConfigError } from './kubeconfig.ts';

/** Turns LIST compression on ("true") or off ("false"); unset is off. */
export const COMPRESS_LISTS_ENV = 'KMAINT_COMPRESS_LISTS';

/**
 * The Accept-Encoding of each LIST. Sent either way: left unset, undici's fetch would ask for "br, gzip, deflate"
 * and the API server gzips every response over 128 KB.
 */
export const LIST_ACCEPT_ENCODING = { compressed: 'gzip', identity: 'identity' } as const;

/** The value of KMAINT_COMPRESS_LISTS in `env`; anything but true/false (or unset/empty) is refused, not guessed. */
export function compressListsFrom(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env[COMPRESS_LISTS_ENV]?.trim().toLowerCase() ?? '';
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new KubeConfigError(`${COMPRESS_LISTS_ENV} must be "true" or "false", got "${env[COMPRESS_LISTS_ENV] ?? ''}"`);
}
