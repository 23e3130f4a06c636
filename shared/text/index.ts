// Public surface of shared/text: how lists read in messages, conditions and events.
export { shortList } from './short-list.ts';
