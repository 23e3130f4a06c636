// The global flags the what-if commands read, apart from commands.ts so that the commands it loads lazily can name them.
import type { OutputFormat } from '../output-format.ts';

/** The global flags these commands read (declared by cli/global-options.ts). */
export interface WhatIfGlobals {
  kubeconfig?: string;
  context?: string;
  /** kmaint's own namespace (--kmaint-namespace): where the MaintenanceOperatorConfig is read. */
  namespace: string;
  output: OutputFormat;
  logLevel: string;
}
