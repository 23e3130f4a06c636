// The MaintenanceOperatorConfig parsed once per pass into one typed value: every section a planner, a read or the CLI
// uses, and every problem in one list. The section parsers (each feature's loader) are called here and nowhere else,
// and nothing else reads the stored object (shared/architecture.test.ts keeps it so).
import type { MaintenanceOperatorConfig } from '../api/index.ts';
import { loadDraResourceNames, loadLimits, type LoadedDraResourceNames, type ResolvedConfig } from '../config/index.ts';
import { loadHandshakeConfig, loadSriovHandshakeConfig, sriovProtocolOf, type HandshakeConfig, type SriovHandshakeConfig } from '../handshake/index.ts';
import { cloudEventsSwitchOf, loadCloudEventsConfig, loadReaperConfig, type LoadedCloudEvents, type LoadedReaper } from '../reaper/index.ts';
import { loadSlurmSettings, slurmConfigNotes, slurmConfigProblems, type LoadedSlurm } from '../slurm/index.ts';
import { loadReleaseDelaySeconds, type SchedulingLimits } from '../scheduling/index.ts';
import { acceptsUpstreamSchema, type CrdStanding } from './crd-schema.ts';
import { nodeReadSettings, type NodeReadSettings } from './choose-node-read.ts';
import { loadBlockerSettings, type BlockerSettings } from './reboot-blockers-config.ts';
import { loadRebootSentinel, loadRebootSettings, type LoadedReboot, type LoadedRebootSentinel } from '../reboot/index.ts';
import { upstreamOperatorNamespaceOf } from './snapshot.ts';
import { loadValidationSettings, type LoadedValidation } from '../validation/index.ts';

/** How a reaper pass runs: `disabled` reads and writes nothing, `dry-run` writes events only, `active` is a normal pass. */
export type ReaperMode = 'disabled' | 'dry-run' | 'active';

/** Section: the reaper's and cloud events' config problems (each naming its field), reported with the others. */
export function reaperProblems(config: MaintenanceOperatorConfig | undefined): string[] {
  const loaded = loadReaperConfig(config);
  const cloud = loadCloudEventsConfig(config);
  return [...(loaded.kind === 'invalid' ? loaded.problems : []), ...(cloud.kind === 'invalid' ? cloud.problems : [])];
}

/** Section: whether spec.cloudEvents asks the reaper pass to read scheduled events (an invalid one is reported, and read nothing). */
export function cloudEventsOn(config: MaintenanceOperatorConfig | undefined): boolean {
  return loadCloudEventsConfig(config).kind !== 'disabled';
}

/**
 * Section: how a reaper pass runs. spec.cloudEvents on makes the pass `active` whatever the reaper's own mode: its
 * requests are writes (the reaper's dryRun still keeps the reaper to events). An invalid config (reported on the
 * object) is `active`: a normal pass.
 */
export function reaperModeOf(config: MaintenanceOperatorConfig | undefined): ReaperMode {
  if (cloudEventsOn(config)) return 'active';
  const loaded = loadReaperConfig(config);
  if (loaded.kind === 'disabled') return 'disabled';
  return loaded.kind === 'enabled' && loaded.config.dryRun ? 'dry-run' : 'active';
}

/** Where the config came from: a snapshot's read (shared/pass/snapshot.ts) or the CLI's own GET. */
export interface ConfigSource {
  /** The MaintenanceOperatorConfig as stored; undefined: none (every value at its default). */
  rawConfig: MaintenanceOperatorConfig | undefined;
}

/** Every problem of the config, each naming its field, by what it stops. */
export interface ConfigProblems {
  /** The cluster limits cannot be used: nothing is admitted (the limits and admission sections). */
  limits: readonly string[];
  /** Each closes one scope: a pool, or the cluster's windows. */
  scoped: readonly string[];
  /** The reaper's, cloud events' and Slurm's: written to the config's Valid condition by the passes that report it. */
  features: readonly string[];
  /** All of them, in the Valid condition's order: limits, scoped, features. */
  all: readonly string[];
}

/** The config as every planner, read and CLI command takes it. */
export interface KmaintConfig {
  /**
   * The object as read, for the one writer of its status and events (config-report.ts, crd-schema.ts) and what-if:
   * its metadata and status, never its spec (the sections below are the spec).
   */
  readonly object: MaintenanceOperatorConfig | undefined;
  /** kmaint's namespace (the handshakes' requests are created there). */
  readonly namespace: string;
  /** The node count the limits' percentages were resolved against. */
  readonly nodeCount: number;
  /** Cluster limits, admission rules (pools, zone, windows, gangs), node conditions, GC, out-of-service taint. */
  readonly limits: ResolvedConfig;
  readonly problems: ConfigProblems;
  /** spec.namedReadsFromNodes, spec.fullReadEverySeconds. */
  readonly nodeReads: NodeReadSettings;
  /** spec.slurm. */
  readonly slurm: LoadedSlurm;
  /** What spec.slurm trusts that an operator should know (said on the Valid condition, leaving it valid). */
  readonly slurmNotes: readonly string[];
  /** spec.nodeHandshake (the node-annotation protocol). */
  readonly handshake: HandshakeConfig;
  /** spec.nodeHandshake.protocol sriov-network-operator: its settings; undefined when not selected. */
  readonly sriov: SriovHandshakeConfig | undefined;
  /** Whether that protocol is off (its requests are then ended); `unreadable`: a config not passing its schema. */
  readonly sriovSwitch: 'on' | 'off' | 'unreadable';
  /** spec.reaper. */
  readonly reaper: LoadedReaper;
  /** How a reaper pass runs (reaper-pass.ts reaperModeOf). */
  readonly reaperMode: ReaperMode;
  /** spec.cloudEvents. */
  readonly cloudEvents: LoadedCloudEvents;
  /** Whether the reaper pass reads cloud scheduled events (an invalid spec.cloudEvents is reported, and reads nothing). */
  readonly cloudEventsOn: boolean;
  /** Whether spec.cloudEvents is off (kmaint's cloud event requests are then ended). */
  readonly cloudEventsSwitch: 'on' | 'off' | 'unreadable';
  /** spec.draResourceNames. */
  readonly draResourceNames: LoadedDraResourceNames;
  /** spec.upstreamOperatorNamespace when valid (the drain exempts the upstream operator's pods there). */
  readonly upstreamOperatorNamespace: string | undefined;
  /** The config's annotation accepting the upstream CRD schema (crd-schema.ts). */
  readonly acceptsUpstreamSchema: boolean;
  /** spec.rebootBlockers (kured's blockers); undefined when absent or the config does not pass its schema. */
  readonly rebootBlockers: BlockerSettings | undefined;
  /** spec.reboot (issue 43): how the drainer reboots a node whose request asks for it. */
  readonly reboot: LoadedReboot;
  /** spec.rebootSentinel (issue 43): the Node condition for which the scheduler pass files reboot requests. */
  readonly rebootSentinel: LoadedRebootSentinel;
  /** spec.validation (issue 44): the Job cleanup runs on a released node before its uncordon. */
  readonly validation: LoadedValidation;
  /** spec.releaseDelaySeconds (kured's --lock-release-delay): 0 when off, absent, or the config does not pass its schema. */
  readonly releaseDelaySeconds: number;
}

let loads = 0;

/** How many times loadConfig ran in this process: the test that holds a pass to one parse reads it. */
export function configLoads(): number {
  return loads;
}

/**
 * The one parse of the config: each section by its own parser, the limits' percentages resolved against `nodeCount`
 * nodes. Called once per pass (run-pass.ts, on the snapshot it plans on) and once per CLI command that reads the config.
 */
export function loadConfig(source: ConfigSource, nodeCount: number, namespace: string): KmaintConfig {
  loads += 1;
  const object = source.rawConfig;
  const limits = loadLimits(object, nodeCount);
  const scoped = limits.config.admission?.scopedProblems ?? [];
  const rebootSentinel = loadRebootSentinel(object);
  const validation = loadValidationSettings(object);
  const features = [...reaperProblems(object), ...slurmConfigProblems(object), ...(rebootSentinel.kind === 'invalid' ? [rebootSentinel.problem] : []), ...(validation.kind === 'invalid' ? [validation.problem] : [])];
  return {
    object,
    namespace,
    nodeCount,
    limits: limits.config,
    problems: { limits: limits.problems, scoped, features, all: [...limits.problems, ...scoped, ...features] },
    nodeReads: nodeReadSettings(object),
    slurm: loadSlurmSettings(object),
    slurmNotes: slurmConfigNotes(object),
    handshake: loadHandshakeConfig(object, namespace),
    sriov: loadSriovHandshakeConfig(object, namespace),
    sriovSwitch: sriovProtocolOf(object),
    reaper: loadReaperConfig(object),
    reaperMode: reaperModeOf(object),
    cloudEvents: loadCloudEventsConfig(object),
    cloudEventsOn: cloudEventsOn(object),
    cloudEventsSwitch: cloudEventsSwitchOf(object),
    draResourceNames: loadDraResourceNames(object),
    upstreamOperatorNamespace: upstreamOperatorNamespaceOf(object),
    acceptsUpstreamSchema: acceptsUpstreamSchema(object),
    rebootBlockers: loadBlockerSettings(object),
    reboot: loadRebootSettings(object),
    rebootSentinel,
    validation,
    releaseDelaySeconds: loadReleaseDelaySeconds(object),
  };
}

/**
 * `config` with its limits resolved against `nodeCount` nodes: for a pass that learns its node count only after it
 * parsed the config (the drainer's and cleanup's reads choose their Nodes from the config, node-read.ts). Only the
 * limits section is resolved again; nothing else is parsed.
 */
export function atNodeCount(config: KmaintConfig, nodeCount: number): KmaintConfig {
  if (nodeCount === config.nodeCount) return config;
  const limits = loadLimits(config.object, nodeCount);
  const scoped = limits.config.admission?.scopedProblems ?? [];
  const { features } = config.problems;
  return { ...config, nodeCount, limits: limits.config, problems: { limits: limits.problems, scoped, features, all: [...limits.problems, ...scoped, ...features] } };
}

/**
 * How a reaper pass starts when no snapshot was read yet (reaper-pass.ts reaperMode): the one section read before a
 * pass's parse, from one GET of the config, so a disabled reaper costs that GET and nothing else.
 */
export function reaperModeFrom(source: ConfigSource): ReaperMode {
  return reaperModeOf(source.rawConfig);
}

/** The scheduler's limits from the loaded config; foreign CRDs close admission as a whole (crds.refusal), requests in flight go on. */
export function schedulingLimitsOf(config: KmaintConfig, crds: CrdStanding | undefined): SchedulingLimits {
  const { admission } = config.limits;
  return {
    maxParallelOperations: config.limits.maxParallelOperations,
    maxUnavailable: config.limits.maxUnavailable,
    problems: [...config.problems.limits],
    ...(crds?.refusal !== undefined ? { closed: crds.refusal } : {}),
    ...(admission !== undefined ? { admission } : {}),
    ...(config.releaseDelaySeconds > 0 ? { releaseDelaySeconds: config.releaseDelaySeconds } : {}),
  };
}

