// AWS Lambda entry point of the reaper pass (serverless.yml: functions.reaper); a no-op costing one GET while
// spec.reaper is not enabled.
import { createPassHandler } from '../adapter/pass-handler.ts';

export const handler = createPassHandler('reaper');
