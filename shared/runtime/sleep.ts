// The runtime's waits are the client's: one abortable timer (shared/kube/sleep.ts), which simulated clocks replace.
export { abortableSleep, type Sleep } from '../kube/index.ts';
