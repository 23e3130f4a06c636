// Public surface of shared/concurrency: bounded parallel work.
export type { BoundedOptions } from './for-each-bounded.ts';
export { forEachBounded } from './for-each-bounded.ts';
