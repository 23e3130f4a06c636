// The demo's scenarios: `upgrade` (the default: two requestors, a rolling OS upgrade and the seed README's request) and
// `reboot` (kmaint reboots six nodes, kured's job). Each names its limits, its config and its requests.
import type { GeneratedCluster } from '../generator/index.ts';
import { demoPlan } from './planned-placement.ts';
import { REBOOT_DEMO_DOWN_SECONDS, REBOOT_DEMO_LIMITS, rebootDemoPlan } from './reboot-scenario.ts';
import type { DemoPlan } from './requestors.ts';

export const DEMO_SCENARIO_NAMES = ['upgrade', 'reboot'] as const;
export type DemoScenarioName = (typeof DEMO_SCENARIO_NAMES)[number];

export interface DemoLimits {
  maxParallelOperations: number;
  /** Absent: not set in the config. */
  maxUnavailable?: number;
}

export interface DemoScenario {
  name: DemoScenarioName;
  limits: DemoLimits;
  /** The rest of the MaintenanceOperatorConfig's spec, and how the setup line says it. */
  config: { spec: Record<string, unknown>; text: string };
  plan: (cluster: Pick<GeneratedCluster, 'nodes' | 'workloads' | 'seed'>) => DemoPlan;
  /** Simulated seconds a rebooted node is down; only the reboot scenario reboots through kmaint. */
  rebootSeconds?: number;
}

export const DEMO_LIMITS = { maxParallelOperations: 3, maxUnavailable: 4 } as const;

export const DEMO_SCENARIOS: Readonly<Record<DemoScenarioName, DemoScenario>> = {
  upgrade: { name: 'upgrade', limits: DEMO_LIMITS, config: { spec: {}, text: '' }, plan: demoPlan },
  reboot: {
    name: 'reboot',
    limits: REBOOT_DEMO_LIMITS,
    // spec.reboot's defaults, said explicitly: a Job running the host's `systemctl reboot`, 30 minutes to come back.
    config: { spec: { reboot: { method: 'job', timeoutSeconds: 1800 } }, text: 'reboot by a Job on the node (timeout 1800 s)' },
    plan: rebootDemoPlan,
    rebootSeconds: REBOOT_DEMO_DOWN_SECONDS,
  },
};

/** The setup line's config part: `maxParallelOperations 3, maxUnavailable 4`. */
export function limitsText(limits: DemoLimits): string {
  return [`maxParallelOperations ${limits.maxParallelOperations}`, ...(limits.maxUnavailable !== undefined ? [`maxUnavailable ${limits.maxUnavailable}`] : [])].join(', ');
}
