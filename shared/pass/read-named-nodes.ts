// The base snapshot of a function that can name the Nodes it needs (the drainer and cleanup): every Node when a full
// read is due or the cluster is small, else only those named (choose-node-read.ts decides). The time and node count of the
// last full read are kept on the function's own pass Lease, which no requestor can write.
import type { V1Lease } from '@kubernetes/client-node';
import { chooseNodeRead, fullReadRecordOf, keepsRecord, nodeReadSettings, type FullReadRecord, type NodesNeeded } from './choose-node-read.ts';
import type { PassOptions } from './options.ts';
import { covers, readAllNodes, readAllOf, readNamedNodes, readRequests, nodeCountOf, type BaseSnapshot, type RequestsRead } from './snapshot.ts';
import type { PassFunction } from './summary.ts';

export interface ScopedBase {
  base: BaseSnapshot;
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
export async function readScopedBase(fn: PassFunction, opts: PassOptions, lease: V1Lease | undefined, needed: (head: RequestsRead) => NodesNeeded): Promise<ScopedBase> {
  const now = opts.now();
  const current = opts.round?.current();
  const head = current ?? (await readRequests(opts.client, opts.namespace));
  const configured = nodeReadSettings(head.config);
  const previous = await lastFullRead(fn, opts, lease, configured.namedReadsFromNodes);
  const recorded = (base: BaseSnapshot): ScopedBase => {
    const record = { at: now, nodes: nodeCountOf(base) };
    opts.round?.fullReads.set(fn, record);
    return keepsRecord(record.nodes, previous, configured) ? { base, record } : { base };
  };
  // The round's snapshot of every Node: a full read this function makes use of (its sweeps run on it).
  if (current && readAllOf(current)) return recorded(current);
  const choice = chooseNodeRead({ record: previous, settings: configured, needed: needed(head), now });
  if (choice.kind === 'full') return recorded(await readAllNodes(opts.client, head));
  if (current && covers(current, choice.names)) return { base: current };
  return { base: await readNamedNodes(opts.client, head, choice.names, previous?.nodes ?? 0, current) };
}
