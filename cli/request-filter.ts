// Which NodeMaintenance requests a command shows, as kubectl selects objects: -n/--namespace, -A/--all-namespaces,
// -l/--selector on the request's labels, --node on spec.nodeName. Without -n every namespace is shown: the scheduler's
// limits are cluster-wide, so a view of one namespace would hide the requests holding the slots.
import type { NodeMaintenance } from '../shared/api/index.ts';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../shared/selectors/index.ts';
import { UsageError } from './errors.ts';

/** The filter flags as commander hands them over. */
export interface RequestFilterFlags {
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  node?: string;
}

export interface RequestFilter {
  /** undefined: every namespace. */
  namespace?: string;
  selector?: LabelSelector;
  node?: string;
}

/** The flags checked once; a UsageError (exit 2) for -n with -A or a selector that does not parse. */
export function requestFilter(flags: RequestFilterFlags): RequestFilter {
  if (flags.namespace !== undefined && flags.allNamespaces === true) throw new UsageError('-n/--namespace and -A/--all-namespaces exclude each other');
  if (flags.namespace === '') throw new UsageError('-n/--namespace needs a namespace');
  if (flags.node === '') throw new UsageError('--node needs a node name');
  let selector: LabelSelector | undefined;
  if (flags.selector !== undefined) {
    const parsed = parseLabelSelector(flags.selector);
    if (!parsed.ok) throw new UsageError(`-l/--selector: ${parsed.error}`);
    selector = parsed.selector;
  }
  return {
    ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
    ...(selector !== undefined ? { selector } : {}),
    ...(flags.node !== undefined ? { node: flags.node } : {}),
  };
}

export function requestMatches(filter: RequestFilter, nm: NodeMaintenance): boolean {
  if (filter.namespace !== undefined && nm.metadata.namespace !== filter.namespace) return false;
  if (filter.node !== undefined && nm.spec.nodeName !== filter.node) return false;
  return filter.selector === undefined || matchesLabels(filter.selector, nm.metadata.labels);
}

/** Which of the filter flags were given, by their long names (for refusing them on a command that takes none). */
export function filterFlagsGiven(flags: RequestFilterFlags): string[] {
  return [
    ...(flags.namespace !== undefined ? ['-n/--namespace'] : []),
    ...(flags.allNamespaces === true ? ['-A/--all-namespaces'] : []),
    ...(flags.selector !== undefined ? ['-l/--selector'] : []),
    ...(flags.node !== undefined ? ['--node'] : []),
  ];
}
