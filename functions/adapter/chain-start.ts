// Starting the next function of a chain: an asynchronous Lambda invoke (InvocationType Event) with a chain event.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { PassFunction } from '#pass';
import type { ChainStarter } from '#runtime';
import { ChainStartError } from './errors.ts';
import type { ChainEvent } from './event.ts';

export function lambdaChainStarter(lambda: () => LambdaClient, functionNames: Partial<Record<PassFunction, string | undefined>>, from: PassFunction): ChainStarter {
  return async (target, depth) => {
    const FunctionName = functionNames[target];
    if (!FunctionName) throw new ChainStartError(target, `starting ${target}: KMAINT_FN_${target.toUpperCase()} is not set`);
    const event: ChainEvent = { source: 'kmaint', chainDepth: depth, from };
    await lambda().send(new InvokeCommand({ FunctionName, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(event)) }));
  };
}
