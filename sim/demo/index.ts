// Public surface of sim/demo: the demo run, its events and summary, and its pure parts.
export { runDemo, DEMO_LIMITS, DEMO_USERS, type DemoOptions, type DemoOutput, type DemoView, type DemoSummary, type DemoResult } from './run-demo.ts';
export { DemoObserver, checkDemoInvariants, type DemoEvent, type RequestRow, type InvariantReport } from './observer.ts';
export { planDemoRequests, seedExampleSpec, SEED_REQUESTOR, UPGRADE_REQUESTOR, type DemoPlan, type PlannedRequest } from './requestors.ts';
export type { RequestorEvent } from './requestor-agents.ts';
export { demoPlan, plannedPlacement } from './planned-placement.ts';
export { runDemoRounds, type DemoRoundsOptions } from './rounds.ts';
export { DEMO_SCENARIOS, DEMO_SCENARIO_NAMES, limitsText, type DemoLimits, type DemoScenario, type DemoScenarioName } from './scenarios.ts';
export { rebootDemoPlan, REBOOT_DEMO_LIMITS, REBOOT_DEMO_NODES, REBOOT_REQUESTOR } from './reboot-scenario.ts';
export { RebootWatch, checkRebootInvariants, type NodeEvent, type RebootReport, type RebootRow } from './reboot-watch.ts';
