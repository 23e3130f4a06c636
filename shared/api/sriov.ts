// The SR-IOV network operator's objects (sriovnetwork.openshift.io/v1), only the fields kmaint's drain reads.
import type { LabelSelectorObject } from '../selectors/index.ts';

/** One per Node, named after it, in the operator's namespace; its annotations carry the drain handshake. */
export interface SriovNetworkNodeState {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

/** A drain pool: the Nodes its selector picks may be drained `maxUnavailable` at a time. */
export interface SriovNetworkPoolConfig {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeSelector?: LabelSelectorObject | null; maxUnavailable?: number | string | null; ovsHardwareOffloadConfig?: { name?: string } | null };
}
