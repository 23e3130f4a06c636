// Public surface of shared/api: wire constants and object shapes.
export * from './constants.ts';
export type * from './types.ts';
export type * from './actions.ts';
export { describeAction } from './actions.ts';
