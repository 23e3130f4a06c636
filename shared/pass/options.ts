// What a pass is given: the client, the namespace, the clock, and the optional logger, round and providers.
import type { KubeClient } from '../kube/index.ts';
import type { InstanceProviders } from '../reaper/index.ts';
import type { PassLogger } from './logger.ts';
import type { PassRound } from './round.ts';

export interface PassOptions {
  client: KubeClient;
  /** Namespace of the MaintenanceOperatorConfig and the pass leases. */
  namespace: string;
  now: () => Date;
  logger?: PassLogger;
  /** Plan and report, write nothing. */
  dryRun?: boolean;
  /** Identity written into the lease. @default "<hostname>-<pid>-<random>" */
  holder?: string;
  /** @default 120 */
  leaseSeconds?: number;
  /**
   * Instance providers by providerID prefix: the reaper's terminations and scheduled events, the drainer's reboots
   * (spec.reboot.method ec2). @default aws (AWS SDK clients made on first use)
   */
  reaperProviders?: InstanceProviders;
  /** Where spec.slurm.tokenEnv is read; simulations pass {} so they never reach a real slurmrestd. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Concurrent object units while applying. @default 16 */
  concurrency?: number;
  signal?: AbortSignal;
  /**
   * The round this pass belongs to (runUntilIdle): its snapshot is reused while nothing was written, and the run's
   * leases are taken only when the pass has something to write. Absent: the pass reads its own snapshot and takes and
   * gives back its own lease.
   */
  round?: PassRound;
}
