// Public surface of slurm-testbed/: a real Slurm cluster for tests (24.11 or 26.05; start, stop, tokens).
export { startSlurm, stopSlurmDir } from './cluster.ts';
export type { SlurmCluster, SlurmInfo, SlurmOptions } from './cluster.ts';
export { mintSlurmJwt } from './jwt.ts';
export { defaultRootfs, ensureRootfs, RELEASES, ROOTFS_PACKAGES, SLURM_RELEASES, SlurmRunnerError } from './rootfs.ts';
export type { SlurmRelease } from './rootfs.ts';
