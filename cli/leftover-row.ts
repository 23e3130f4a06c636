// One row of `kmaint leftovers`: what is left, where, and whose (cli/leftovers.ts, cli/leftovers-objects.ts).

/** Whose a leftover is: only kmaint's are removed by --fix; upstream's are listed for a takeover (kmaint takeover). */
export type LeftoverOwner = 'kmaint' | 'upstream';

export interface Leftover {
  /** `Node/<name>`, `NodeMaintenance/<ns>/<name>`, `Lease/<ns>/<name>`, `Job/<ns>/<name>`, `DeviceTaintRule/<name>`, `SlurmNode/<name>`, `SlurmReservation/<name>`. */
  object: string;
  /** What it is: an annotation key, `cordon`, `taint <key>`, `condition <type>`, `finalizer`, `request`, `holder`, `reboot Job`, `validation Job`, `device taint`, `drain`, `reservation`. */
  record: string;
  value: string;
  owner: LeftoverOwner;
}
