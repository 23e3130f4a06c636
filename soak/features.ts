// The all-features soak profile (issue 30 point 4): which feature switches the administrator flips, the config fields
// each one writes, and the marks the soak puts on nodes (cliques, SR-IOV pool). Pure: the actors write, this decides.
import { TAINT_OUT_OF_SERVICE } from '../shared/api/index.ts';
import type { Rng } from '../sim/generator/prng.ts';

export const SOAK_PROFILES = ['basic', 'all-features'] as const;
export type SoakProfile = (typeof SOAK_PROFILES)[number];

/** Node label the config's gangNodeLabel names while the node-label gang switch is on (an NVLink clique stand-in). */
export const CLIQUE_LABEL = 'kmaint-soak/clique';
/** Node label the soak's SriovNetworkPoolConfig selects; the nodes carrying it have a SriovNetworkNodeState. */
export const SRIOV_NODE_LABEL = 'kmaint-soak/sriov';
/** The soak's SriovNetworkPoolConfig and its maxUnavailable (an integer: the limit the checker holds SR-IOV drains to). */
export const SRIOV_POOL_NAME = 'soak-sriov';
export const SRIOV_POOL_LIMIT = 1;
/** Holder the "other tool" writes into the medik8s node leases it takes (never kmaint's `kmaint/` prefix). */
export const OTHER_TOOL_HOLDER = 'soak-other-tool';
/** The out-of-service taint kmaint adds; the soak never adds it itself, so any left at the end is kmaint's. */
export const OUT_OF_SERVICE_TAINT = TAINT_OUT_OF_SERVICE;

/** The config switches the administrator flips during an all-features run, each on (true) or off. */
export interface FeatureSwitches {
  /** spec.gangNodeLabel = CLIQUE_LABEL. */
  gangNodeLabel: boolean;
  /** spec.cloudEvents.enabled. */
  cloudEvents: boolean;
  /** spec.nodeHandshake.protocol sriov-network-operator (off: the field is absent, kmaint's own protocol). */
  sriov: boolean;
  /** spec.outOfServiceTaint.enabled (afterNotReadySeconds 2). */
  outOfService: boolean;
  /** spec.nodeConditions. */
  nodeConditions: boolean;
  /** spec.slurm (pod mode, the soak's real Slurm); without a Slurm to talk to it is written off. */
  slurm: boolean;
}

export const FEATURE_NAMES = ['gangNodeLabel', 'cloudEvents', 'sriov', 'outOfService', 'nodeConditions', 'slurm'] as const satisfies ReadonlyArray<keyof FeatureSwitches>;

export const ALL_ON: Readonly<FeatureSwitches> = Object.freeze({ gangNodeLabel: true, cloudEvents: true, sriov: true, outOfService: true, nodeConditions: true, slurm: true });

/** Namespace of the soak's Slurm worker pods (spec.slurm.workerNamespaces), one per Slurm node, named by spec.hostname. */
export const SLURM_WORKER_NAMESPACE = 'soak-slurm';
/** Label of those pods (spec.slurm.podSelector). */
export const SLURM_WORKER_LABEL = 'kmaint-soak/slurmd';
/** The environment variable the passes read the slurmrestd token from (spec.slurm.tokenEnv: ^SLURM_[A-Z0-9_]+$). */
export const SLURM_TOKEN_ENV = 'SLURM_KMAINT_SOAK_JWT';

/** The soak's slurmrestd, when it runs one (the testbed with the cached rootfs); the sim has none. */
export interface SoakSlurmTarget {
  url: string;
}

/** spec.slurm of a switch that is on: pod mode, workers only in SLURM_WORKER_NAMESPACE, the Slurm node by spec.hostname. */
export function slurmSpec(target: SoakSlurmTarget): Record<string, unknown> {
  return {
    enabled: true,
    url: target.url,
    // slurm/ serves plain http on 127.0.0.1.
    allowInsecureHttp: true,
    tokenEnv: SLURM_TOKEN_ENV,
    mode: 'pod',
    podSelector: `${SLURM_WORKER_LABEL}=true`,
    workerNamespaces: [SLURM_WORKER_NAMESPACE],
    nameFrom: 'hostname',
  };
}

/** The config fields of `sw`, merged into every config the administrator writes; spec.slurm only with a `slurm` target. */
export function featureSpec(sw: FeatureSwitches, slurm?: SoakSlurmTarget): Record<string, unknown> {
  return {
    // Off is spec.slurm absent: what Slurm holds then waits for the switch (cleanup keeps the finalizer and says why).
    ...(sw.slurm && slurm ? { slurm: slurmSpec(slurm) } : {}),
    ...(sw.gangNodeLabel ? { gangNodeLabel: CLIQUE_LABEL } : {}),
    // Without it a gang waits while singles take every freed slot (by design): the soak's gangs would starve.
    gangReserveAfterSeconds: 15,
    cloudEvents: { enabled: sw.cloudEvents },
    ...(sw.sriov ? { nodeHandshake: { protocol: 'sriov-network-operator' } } : {}),
    outOfServiceTaint: { enabled: sw.outOfService, afterNotReadySeconds: 2 },
    nodeConditions: sw.nodeConditions,
    // A not-before request shows MaintenancePlanned from 30 s before its time: the soak's not-before lies 5-40 s ahead.
    maintenancePlannedLeadSeconds: 30,
  };
}

/** `sw` with the Slurm switch off when there is no Slurm to talk to (the sim, or no cached rootfs). */
export function withAvailable(sw: FeatureSwitches, slurm: SoakSlurmTarget | undefined): FeatureSwitches {
  return slurm ? sw : { ...sw, slurm: false };
}

/** Each switch flipped with probability `p` (the administrator's next config). */
export function flipSwitches(sw: FeatureSwitches, rng: Rng, p = 0.3): FeatureSwitches {
  const out = { ...sw };
  for (const name of FEATURE_NAMES) if (rng.next() < p) out[name] = !out[name];
  return out;
}

/**
 * A random setting of every switch (the config the run ends with: off leaves what the feature filed to its sweep), but
 * Slurm on: with spec.slurm off cleanup holds a deleted request's finalizer until Slurm is on again (the owner table's
 * rule for Slurm state), so a run ending with it off could never end released.
 */
export function randomSwitches(rng: Rng): FeatureSwitches {
  const out = { ...ALL_ON };
  for (const name of FEATURE_NAMES) out[name] = rng.next() < 0.5;
  out.slurm = true;
  return out;
}

/**
 * Cliques of `size` nodes from `workers` (sorted input, seeded pick), disjoint; at most `count`. The rest of the
 * workers stay singles: a single request on a clique node would wait for the rest of its clique while the switch is on.
 */
export function pickCliques(workers: readonly string[], rng: Rng, count: number, size = 2): string[][] {
  const pool = [...workers];
  const out: string[][] = [];
  while (out.length < count && pool.length >= size) {
    const clique: string[] = [];
    for (let i = 0; i < size; i++) clique.push(pool.splice(rng.int(0, pool.length - 1), 1)[0] as string);
    out.push(clique.sort());
  }
  return out;
}
