// The scheduler's part as the SR-IOV network operator's external drainer (spec.nodeHandshake.protocol
// sriov-network-operator): two LISTs in the operator's namespace, the pool limits for admission, the handshake's writes.
import { errorMessage } from '../errors/index.ts';
import { isUnscheduled } from '../api/index.ts';
import type { Action, NodeMaintenance, SriovNetworkNodeState, SriovNetworkPoolConfig } from '../api/index.ts';
import { isOwnSriovRequest, planSriovHandshake, planSriovProblemsOff, planSriovRequestsOff, resolveSriovPools, type SriovHandshakeConfig } from '../handshake/index.ts';
import type { ExternalPools } from '../scheduling/index.ts';
import type { KmaintConfig } from './config.ts';
import type { PassOptions } from './options.ts';
import type { BaseSnapshot } from './snapshot.ts';

export type SriovRead =
  | { config: SriovHandshakeConfig; states: SriovNetworkNodeState[]; pools: SriovNetworkPoolConfig[] }
  | { config: SriovHandshakeConfig; problem: string }
  /** The protocol is off (a config that does not pass its schema is not: undefined, nothing read or deleted). */
  | { off: { namespace: string } };

/** Read only when the config selects the protocol; a failed read is carried to the plan, which fails closed. */
export async function readSriov(opts: Pick<PassOptions, 'client' | 'namespace'>, settings: KmaintConfig): Promise<SriovRead | undefined> {
  const config = settings.sriov;
  if (config === undefined) return settings.sriovSwitch === 'off' ? { off: { namespace: opts.namespace } } : undefined;
  try {
    const [states, pools] = await Promise.all([opts.client.listSriovNodeStates(config.sriovNamespace), opts.client.listSriovPoolConfigs(config.sriovNamespace)]);
    return { config, states, pools };
  } catch (err) {
    const why = errorMessage(err);
    return { config, problem: `spec.nodeHandshake.protocol is sriov-network-operator, but kmaint cannot read the SR-IOV network operator's objects in namespace ${config.sriovNamespace} (${why}); no SR-IOV drain starts until it can (README "Alongside the SR-IOV network operator")` };
  }
}

const ours = (config: SriovHandshakeConfig) => (nm: NodeMaintenance): boolean => isOwnSriovRequest(nm, config.namespace);

/** The SR-IOV pools for admission; unreadable objects make every SR-IOV request wait with the reason. */
export function sriovExternalPools(read: SriovRead | undefined, base: BaseSnapshot): ExternalPools | undefined {
  if (read === undefined || 'off' in read) return undefined;
  const isSriov = ours(read.config);
  if ('problem' in read) {
    const waiting = base.maintenances.filter((nm) => isSriov(nm) && isUnscheduled(nm)).map((nm) => nm.spec.nodeName);
    return { what: 'SR-IOV drain', poolOf: new Map(), pools: new Map(), problems: new Map(waiting.map((node) => [node, read.problem])) };
  }
  return resolveSriovPools({ configs: read.pools, namespace: read.config.sriovNamespace, nodes: base.nodeList, maintenances: base.maintenances, isSriov });
}

/**
 * The handshake's writes after the scheduling plan's (a Node says Draining once its request's admission is written);
 * with the protocol off, the deletes of kmaint's own SR-IOV requests left from when it was on and the removal of the
 * problems it recorded on Nodes (handshake/sriov-off.ts).
 */
export function planSriovPass(read: SriovRead | undefined, base: BaseSnapshot, admitted: readonly string[]): { actions: Action[]; problems: string[] } {
  if (read === undefined) return { actions: [], problems: [] };
  if ('off' in read) return { actions: [...planSriovRequestsOff(base.maintenances, read.off.namespace), ...planSriovProblemsOff(base.nodeList)], problems: [] };
  if ('problem' in read) return { actions: [], problems: [read.problem] };
  const plan = planSriovHandshake({ nodes: base.nodeList, maintenances: base.maintenances, states: read.states, admittedThisPass: new Set(admitted) }, read.config);
  return { actions: plan.actions, problems: [] };
}
