// AWS Lambda entry point of the cleanup pass (serverless.yml: functions.cleanup).
import { createPassHandler } from '../adapter/pass-handler.ts';

export const handler = createPassHandler('cleanup');
