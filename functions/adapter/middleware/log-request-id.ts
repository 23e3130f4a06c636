// middy middleware: stamps the Lambda request id on every log line of the invocation.
import type { MiddlewareObj } from '@middy/core';
import type { LambdaLogger } from '../log.ts';

export function logRequestId(opts: { log: LambdaLogger }): MiddlewareObj {
  return {
    before: (request) => {
      opts.log.setRequestId(request.context.awsRequestId);
    },
  };
}
