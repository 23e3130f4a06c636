// spec.slurm resolved once: complete typed defaults, and problems for values that cannot work.
import type { z } from 'zod';
import type { slurmSchema, MaintenanceOperatorConfig } from '../api/index.ts';
import { secretArnRegion } from '../kube/index.ts';
import { parseLabelSelector, type LabelSelector } from '../selectors/index.ts';
import { slurmTokenEnvProblem, slurmTokenSecretProblem, slurmUrlProblem } from './token-sources.ts';

export type SlurmSpec = z.infer<typeof slurmSchema>;
export type SlurmApiVersion = 'v0.0.40' | 'v0.0.41' | 'v0.0.42';
/** Newest first: detection takes the first one the server offers. */
export const SLURM_API_VERSIONS: readonly SlurmApiVersion[] = ['v0.0.42', 'v0.0.41', 'v0.0.40'];
/** Versions whose slurmrestd creates and deletes reservations (Slurm 25.05: v0.0.43; 26.05 serves v0.0.43-v0.0.45). */
export type ReservationApiVersion = 'v0.0.43' | 'v0.0.44' | 'v0.0.45';
/** Newest first. */
export const RESERVATION_API_VERSIONS: readonly ReservationApiVersion[] = ['v0.0.45', 'v0.0.44', 'v0.0.43'];

export interface SlurmSettings {
  /**
   * Where Slurm state comes from: slurmrestd (url and a token), or, with neither configured, the SlurmNodeState* pod
   * conditions Slinky writes (token-free: kmaint reads but never writes Slurm; Slinky drains on kmaint's cordon).
   */
  source: 'slurmrestd' | 'pod-conditions';
  /** "" in the token-free mode. */
  url: string;
  apiVersion: 'auto' | SlurmApiVersion;
  tokenEnv?: string;
  tokenSecret?: { name: string; key: string };
  /** AWS Secrets Manager secret ARN holding the JWT. */
  tokenSecretArn?: string;
  /** @default "kmaint:" */
  reasonPrefix: string;
  /** @default "pod" */
  mode: 'pod' | 'node';
  /** Pod mode: which pods are Slurm workers. */
  podSelector?: LabelSelector;
  /**
   * Pod mode: the namespaces whose pods may be Slurm workers (a worker names the Slurm node kmaint drains, so only pods
   * that tenants cannot create qualify). loadSlurmSettings always sets it in pod mode: spec.slurm.workerNamespaces, or
   * DEFAULT_WORKER_NAMESPACES when that is unset. Absent (settings built by hand, tests): every namespace.
   */
  workerNamespaces?: readonly string[];
  /** @default "hostname" in pod mode */
  nameFrom: 'hostname' | 'name' | 'label' | 'annotation';
  nameKey?: string;
  /** 0 waits for ever. @default 0 */
  drainTimeoutSeconds: number;
  /** @default "wait" */
  whenUnreachable: 'wait' | 'evict';
  /**
   * Issue 40: how many kmaint reservations the requests of one namespace may hold at a time (reservation-choice.ts).
   * @default 10 (DEFAULT_RESERVATIONS_PER_NAMESPACE; unset here means that)
   */
  reservationsPerNamespace?: number;
}

export type LoadedSlurm = { kind: 'off' } | { kind: 'on'; settings: SlurmSettings } | { kind: 'invalid'; problem: string };

/** Reads spec.slurm of the config object (already shaped by the CRD); `invalid` names the field at fault. */
export function loadSlurmSettings(config: MaintenanceOperatorConfig | undefined): LoadedSlurm {
  const spec = config?.spec?.slurm;
  if (!spec || spec.enabled !== true) return { kind: 'off' };
  const bad = (problem: string): LoadedSlurm => ({ kind: 'invalid', problem: `spec.slurm.${problem}` });
  const hasToken = Boolean(spec.tokenEnv || spec.tokenSecret || spec.tokenSecretArn);
  // Neither url nor token: the token-free mode, which reads Slinky's pod conditions (pod mode only).
  const tokenFree = !spec.url && !hasToken;
  if (tokenFree && spec.mode === 'node') return bad('url: required in node mode (the token-free mode reads Slinky\'s pod conditions, so it needs pod mode)');
  if (!tokenFree && !spec.url) return bad('url: required when spec.slurm.enabled is true');
  // The url and token sources decide where kmaint's token goes and which of its process's secrets it is: refused
  // values leave Slurm off (nothing is read or sent) and are reported on the config's Valid condition.
  const urlProblem = spec.url ? slurmUrlProblem(spec.url, spec.allowInsecureHttp === true) : undefined;
  if (urlProblem !== undefined) return bad(urlProblem);
  if (spec.url && !hasToken) return bad('tokenEnv, spec.slurm.tokenSecret or spec.slurm.tokenSecretArn: one is required with url (drop url as well for the token-free mode)');
  const envProblem = spec.tokenEnv ? slurmTokenEnvProblem(spec.tokenEnv) : undefined;
  if (envProblem !== undefined) return bad(envProblem);
  if (spec.tokenSecretArn && !secretArnRegion(spec.tokenSecretArn)) return bad(`tokenSecretArn: "${spec.tokenSecretArn}" is not a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)`);
  const secretProblem = spec.tokenSecretArn ? slurmTokenSecretProblem(spec.tokenSecretArn) : undefined;
  if (secretProblem !== undefined) return bad(secretProblem);
  const mode = spec.mode ?? 'pod';
  // The CRD defaults nameFrom to hostname; a Node's hostname is its name.
  const nameFrom = mode === 'node' && (spec.nameFrom ?? 'hostname') === 'hostname' ? 'name' : (spec.nameFrom ?? 'hostname');
  if ((nameFrom === 'label' || nameFrom === 'annotation') && !spec.nameKey) return bad(`nameKey: required when nameFrom is ${nameFrom}`);
  let podSelector: LabelSelector | undefined;
  if (mode === 'pod') {
    if (spec.podSelector === undefined || spec.podSelector.trim() === '') return bad('podSelector: required in pod mode (an empty selector would take every pod for a Slurm worker)');
    const parsed = parseLabelSelector(spec.podSelector);
    if (!parsed.ok) return bad(`podSelector: ${parsed.error}`);
    podSelector = parsed.selector;
    if (spec.workerNamespaces !== undefined && spec.workerNamespaces.length === 0) {
      return bad('workerNamespaces: an empty list takes no pod for a Slurm worker; name the namespaces of the Slurm worker pods (Slinky: slurm) or leave it unset');
    }
  }
  return {
    kind: 'on',
    settings: {
      source: tokenFree ? 'pod-conditions' : 'slurmrestd',
      url: (spec.url ?? '').replace(/\/+$/, ''),
      apiVersion: spec.apiVersion ?? 'auto',
      ...(spec.tokenEnv ? { tokenEnv: spec.tokenEnv } : {}),
      ...(spec.tokenSecret ? { tokenSecret: { name: spec.tokenSecret.name, key: spec.tokenSecret.key ?? 'auth-token' } } : {}),
      ...(spec.tokenSecretArn ? { tokenSecretArn: spec.tokenSecretArn } : {}),
      reasonPrefix: spec.reasonPrefix ?? 'kmaint:',
      mode,
      ...(podSelector ? { podSelector } : {}),
      ...(mode === 'pod' ? { workerNamespaces: [...(spec.workerNamespaces ?? DEFAULT_WORKER_NAMESPACES)] } : {}),
      nameFrom,
      ...(spec.nameKey ? { nameKey: spec.nameKey } : {}),
      drainTimeoutSeconds: spec.drainTimeoutSeconds ?? 0,
      whenUnreachable: spec.whenUnreachable ?? 'wait',
      ...(spec.reservationsPerNamespace !== undefined ? { reservationsPerNamespace: spec.reservationsPerNamespace } : {}),
    },
  };
}

/** spec.slurm's problem as the config's Valid condition lists it (none when off or usable). */
export function slurmConfigProblems(config: MaintenanceOperatorConfig | undefined): string[] {
  const loaded = loadSlurmSettings(config);
  return loaded.kind === 'invalid' ? [loaded.problem] : [];
}

/**
 * Issue 31: where Slurm worker pods are taken from when spec.slurm.workerNamespaces is unset. A worker pod names the Slurm
 * node kmaint drains and later undrains, so the default must be a namespace tenants do not create pods in: Slinky's
 * NodeSet pods live in `slurm` (its install guide's namespace). Before this default, unset meant every namespace.
 */
export const DEFAULT_WORKER_NAMESPACES: readonly string[] = ['slurm'];

/** What an unset spec.slurm.workerNamespaces means, said where operators look (workers elsewhere are not seen). */
export const WORKER_NAMESPACES_UNSET_NOTE =
  'spec.slurm.workerNamespaces: unset, so only pods in namespace slurm (Slinky\'s) are taken for Slurm workers; if your Slurm worker pods run elsewhere, name their namespaces (never one where tenants create pods: a worker pod names the Slurm node kmaint drains)';

/**
 * Notes for the config's Valid condition that do not make it invalid: pod mode without workerNamespaces takes the
 * default namespace, which an install whose workers run elsewhere must learn of.
 */
export function slurmConfigNotes(config: MaintenanceOperatorConfig | undefined): string[] {
  const loaded = loadSlurmSettings(config);
  return loaded.kind === 'on' && loaded.settings.mode === 'pod' && config?.spec?.slurm?.workerNamespaces === undefined ? [WORKER_NAMESPACES_UNSET_NOTE] : [];
}
