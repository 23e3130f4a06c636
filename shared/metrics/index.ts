// Public surface of shared/metrics: what a pass measured (plain data), a run's figures, and their renderers
// (metric families, Prometheus text, the Pushgateway push, the summary line). EMF lives with the Lambda adapter.
export { measurePass, PHASES, PHASE_NEW } from './pass-metrics.ts';
export type { PassMetrics, PassMetricsInput } from './pass-metrics.ts';
export { WAIT_GATES, waitGateOf } from './wait-gates.ts';
export type { WaitGate } from './wait-gates.ts';
export { runMetrics } from './run-metrics.ts';
export type { MeasuredPass, RunMetrics } from './run-metrics.ts';
export { runFamilies, failedRunFamilies } from './families.ts';
export type { FamilyOptions, MetricFamily, Sample } from './families.ts';
export { renderExposition, EXPOSITION_CONTENT_TYPE } from './exposition.ts';
export { pushToGateway, groupUrl, jobName, PUSHGATEWAY_URL_ENV } from './pushgateway.ts';
export type { PushOptions } from './pushgateway.ts';
export { compactFigures } from './compact.ts';
export { MetricsPushError } from './errors.ts';
export { pushRunMetrics, pushRunFailure } from './push-run.ts';
export type { RunPushOptions } from './push-run.ts';
