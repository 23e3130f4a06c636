// How many objects each LIST page asks for (`limit`). 500 is client-go's pager's default, and measured best up to
// 100,000 nodes: pages of 2000 cost the API server no less CPU there and kmaint more memory (docs/large-clusters.md
// "Page size, compression and protobuf"). Set by KMAINT_LIST_PAGE_SIZE where
// kmaint runs unattended (Lambda, CronJob), or `--page-size` on the CLI.
import { KubeConfigError } from './kubeconfig.ts';

/** The environment variable: an integer from 1 to MAX_LIST_PAGE_SIZE; unset or empty is DEFAULT_LIST_PAGE_SIZE. */
export const LIST_PAGE_SIZE_ENV = 'KMAINT_LIST_PAGE_SIZE';
export const DEFAULT_LIST_PAGE_SIZE = 500;
/** The API server honours any limit, but one page of 10,000 GPU-shaped nodes is already ~400 MiB of kmaint's RSS. */
export const MAX_LIST_PAGE_SIZE = 10_000;

/** The reason `raw` is no page size, or undefined when it is one. */
function refusal(raw: string): string | undefined {
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= 1 && n <= MAX_LIST_PAGE_SIZE ? undefined : `must be an integer from 1 to ${MAX_LIST_PAGE_SIZE}, got "${raw}"`;
}

/** `raw` (an option or flag value, blanks around it ignored) as a page size; anything else is refused with `name` in the reason. */
export function parseListPageSize(raw: string, name: string): number {
  const why = refusal(raw.trim());
  if (why !== undefined) throw new KubeConfigError(`${name} ${why}`);
  return Number(raw.trim());
}

/** The page size KMAINT_LIST_PAGE_SIZE in `env` asks for; DEFAULT_LIST_PAGE_SIZE when it is unset or empty. */
export function listPageSizeFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[LIST_PAGE_SIZE_ENV]?.trim() ?? '';
  return raw === '' ? DEFAULT_LIST_PAGE_SIZE : parseListPageSize(raw, LIST_PAGE_SIZE_ENV);
}
