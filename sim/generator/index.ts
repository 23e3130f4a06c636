// Public surface of sim/generator: seeded cluster generation, scenario files, creating it all through the API.
export { generateCluster, generateOptionsSchema, countExpectedPods, type GenerateOptions } from './cluster.ts';
export { preboundPods } from './prebound.ts';
export { createCluster, type CreateClusterOptions, type CreateClusterResult } from './apply.ts';
export { PROVIDER_ID_PATTERN, nodeName } from './nodes.ts';
export { NODE_OWNER_UID_PLACEHOLDER } from './manifests.ts';
export { PROFILES, type ProfileName, type PoolName } from './profiles.ts';
export { createRng, deriveSeed, type Rng } from './prng.ts';
export * from './sim-keys.ts';
export type { GeneratedCluster, PreboundApp, PreboundPlan, Workloads } from './types.ts';
export {
  parseScenario,
  scenarioSchema,
  scenarioActionSchema,
  podSelectorSchema,
  type Scenario,
  type ScenarioAction,
  type PodSelectorSpec,
} from './scenario.ts';
