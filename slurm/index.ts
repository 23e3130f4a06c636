// Public surface of slurm/: a real Slurm 24.11 cluster for tests (start, stop, tokens).
export { startSlurm, stopSlurmDir } from './cluster.ts';
export type { SlurmCluster, SlurmInfo, SlurmOptions } from './cluster.ts';
export { mintSlurmJwt } from './jwt.ts';
export { defaultRootfs, ensureRootfs, ROOTFS_PACKAGES, SlurmRunnerError } from './rootfs.ts';
