// AWS Lambda entry point of the drainer pass (serverless.yml: functions.drainer).
import { createPassHandler } from '../adapter/pass-handler.ts';

export const handler = createPassHandler('drainer');
