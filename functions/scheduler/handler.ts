// AWS Lambda entry point of the scheduler pass (serverless.yml: functions.scheduler).
import { createPassHandler } from '../adapter/pass-handler.ts';

export const handler = createPassHandler('scheduler');
