// The base snapshot of a function that can name the Nodes it needs (the drainer and cleanup): every Node when a full
// read is due or the cluster is small, else only those named (choose-node-read.ts decides). The time and node count of the
// last full read are kept on the function's own pass Lease, which no requestor can write.
import type { V1Lease } from '@kubernetes/client-node';
import { atNodeCount, loadConfig, type KmaintConfig } from './config.ts';
import { chooseNodeRead, fullReadRecordOf, keepsRecord, type FullReadRecord, type NodesNeeded } from './choose-node-read.ts';
import type { PassOptions } from './options.ts';
import { covers, readAllNodes, readAllOf, readNamedNodes, readRequests, nodeCountOf, type BaseSnapshot, type RequestsRead } from './snapshot.ts';
import type { PassFunction } from './summary.ts';

export interface ScopedBase {
  base: BaseSnapshot;
  /** The pass's config, parsed once from the snapshot's (its limits resolved against the snapshot's node count). */
  config: KmaintConfig;
  /** A full read to record on the function's Lease (made on a cluster where the record decides later passes). */
  record?: FullReadRecord;
}

/**
 * The last full read of `fn` as known to this pass: this run's own, the held Lease's, or one GET of the Lease. No GET in
 * a dry run (it reads every Node, as every pass did) or when this run has seen fewer nodes than named reads start at.
 */
async function lastFullRead(fn: PassFunction, opts: PassOptions, lease: V1Lease | undefined, namedFrom: number): Promise<FullReadRecord | undefined> {
  const round = opts.round;
  if (round?.fullReads.has(fn) === true) return round.fullReads.get(fn);
  if (lease) return fullReadRecordOf(lease);
  if (opts.dryRun === true) return undefined;
  if (round?.nodeCount !== undefined && round.nodeCount < namedFrom) return undefined;
  const read = await opts.client.getLease(opts.namespace, `kmaint-${fn}`);
  // The pass takes this lease next if it has something to write: that take starts from this read, not another GET.
  round?.leases?.saw(fn, read);
  const record = fullReadRecordOf(read);
  round?.fullReads.set(fn, record);
  return record;
}

/**
 * `fn`'s base snapshot: the round's fresh one when it read every Node or the Nodes needed; else the requests and config,
 * then every Node or the Nodes `needed` names. `lease`: the function's pass Lease when the pass holds it.
 */
export async function readScopedBase(fn: PassFunction, opts: PassOptions, lease: V1Lease | undefined, needed: (head: RequestsRead, config: KmaintConfig) => NodesNeeded): Promise<ScopedBase> {
  const now = opts.now();
  const current = opts.round?.current();
  const head = current ?? (await readRequests(opts.client, opts.namespace));
  // The pass's one parse of the config, from the head: which Nodes to read depends on it. The node count is known once
  // they are read, and only the limits are resolved again against it (atNodeCount).
  const parsed = loadConfig(head, current ? nodeCountOf(current) : (opts.round?.nodeCount ?? 0), opts.namespace);
  const configured = parsed.nodeReads;
  const previous = await lastFullRead(fn, opts, lease, configured.namedReadsFromNodes);
  const scoped = (base: BaseSnapshot, record?: FullReadRecord): ScopedBase => ({ base, config: atNodeCount(parsed, nodeCountOf(base)), ...(record ? { record } : {}) });
  const recorded = (base: BaseSnapshot): ScopedBase => {
    const record = { at: now, nodes: nodeCountOf(base) };
    opts.round?.fullReads.set(fn, record);
    return keepsRecord(record.nodes, previous, configured) ? scoped(base, record) : scoped(base);
  };
  // The round's snapshot of every Node: a full read this function makes use of (its sweeps run on it).
  if (current && readAllOf(current)) return recorded(current);
  const choice = chooseNodeRead({ record: previous, settings: configured, needed: needed(head, parsed), now });
  if (choice.kind === 'full') return recorded(await readAllNodes(opts.client, head));
  if (current && covers(current, choice.names)) return scoped(current);
  return scoped(await readNamedNodes(opts.client, head, choice.names, previous?.nodes ?? 0, current));
}
