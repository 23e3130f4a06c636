// Whether kmaint's CRDs are the ones in force (issue 22 point 3). Another chart (the NVIDIA network operator's
// maintenance-operator sub-chart) may have put the upstream operator's CRDs in their place; the API server then prunes
// what that schema lacks (pools, windows, slurm, ...) from the stored config, and kmaint cannot know what was lost. So
// the scheduler fails closed: it admits nothing new until kmaint's CRDs are back or the config acknowledges the
// upstream schema. The config's CRD is the sentinel: one GET per run (README "Alongside the NVIDIA network operator's
// chart" says why the NodeMaintenance CRD needs none). Judged purely.
import { errorMessage } from '../errors/index.ts';
import type { V1CustomResourceDefinition, V1JSONSchemaProps } from '@kubernetes/client-node';
import {
  ANNOTATION_ACCEPT_UPSTREAM_SCHEMA,
  CONFIG_CRD_NAME,
  CRD_SCHEMA_ANNOTATION,
  EVENT_REASON_FOREIGN_CRDS,
  VERSION,
  maintenanceOperatorConfigSpecSchema,
  maintenanceOperatorConfigStatusSchema,
  namespacedName,
} from '../api/index.ts';
import type { Action, MaintenanceOperatorConfig } from '../api/index.ts';
import type { KubeClient } from '../kube/index.ts';

/** The config's CRD as read (undefined: not installed), or why it could not be read. */
export type CrdRead = { kind: 'read'; crd: V1CustomResourceDefinition | undefined } | { kind: 'unreadable'; message: string };

/** One GET; a failure other than 404 is a value (the scheduler then fails closed), never thrown. */
export async function readConfigCrd(client: KubeClient): Promise<CrdRead> {
  try {
    return { kind: 'read', crd: await client.getCrd(CONFIG_CRD_NAME) };
  } catch (err) {
    return { kind: 'unreadable', message: errorMessage(err) };
  }
}

/** What kmaint needs of the CRD's v1alpha1 schema: every field its own zod schema of the config knows. */
const EXPECTED = { spec: Object.keys(maintenanceOperatorConfigSpecSchema.shape), status: Object.keys(maintenanceOperatorConfigStatusSchema.shape) };

function schemaOf(crd: V1CustomResourceDefinition): V1JSONSchemaProps | undefined {
  return crd.spec.versions.find((v) => v.name === VERSION)?.schema?.openAPIV3Schema;
}

/**
 * Why `crd` is not kmaint's (`has no kmaint.io/crd-schema annotation and its schema lacks spec.pools, ...`), or
 * undefined when it is. The annotation tells kmaint's CRD from the upstream operator's; the fields catch a CRD that keeps
 * the annotation but not the schema (a server-side apply by another manager, an older kmaint's CRD).
 */
export function foreignBecause(crd: V1CustomResourceDefinition | undefined): string | undefined {
  if (crd === undefined) return 'is not installed';
  const reasons: string[] = [];
  if (crd.metadata?.annotations?.[CRD_SCHEMA_ANNOTATION] === undefined) reasons.push(`has no ${CRD_SCHEMA_ANNOTATION} annotation`);
  const lacks = lackedFields(crd);
  if (lacks === undefined) reasons.push(`serves no ${VERSION} schema`);
  else if (lacks.length > 0) reasons.push(`its schema lacks ${lacks.join(', ')}`);
  return reasons.length > 0 ? reasons.join(' and ') : undefined;
}

/** The config fields kmaint knows that the CRD's schema lacks (`spec.pools`, ...); undefined: it serves no v1alpha1 schema. */
function lackedFields(crd: V1CustomResourceDefinition): string[] | undefined {
  const schema = schemaOf(crd);
  if (schema === undefined) return undefined;
  return (['spec', 'status'] as const).flatMap((part) => EXPECTED[part].filter((f) => schema.properties?.[part]?.properties?.[f] === undefined).map((f) => `${part}.${f}`));
}

/** What the check found, for the scheduler, the config report, `kmaint status` and `kmaint explain`. */
export interface CrdStanding {
  /**
   * `in-force`: kmaint's CRD. `absent`: no config CRD, so no stored config that could have lost fields (kmaint's defaults
   * apply, as without a config object). `refused`: fails closed. `acknowledged`: not kmaint's, admitting anyway.
   */
  kind: 'in-force' | 'absent' | 'refused' | 'acknowledged';
  /** Why no new request is admitted; undefined when kmaint's CRDs are in force or the config acknowledges the upstream schema. */
  refusal?: string;
  /** For the config's Valid condition: the refusal, when the config may be written; else empty. */
  reportable: string[];
  /**
   * Whether a pass may write the config's status. A write rewrites the whole stored object, so under a schema lacking
   * kmaint's fields it would make the pruning permanent (pools gone even after kmaint's CRDs are back): never then.
   */
  configWritable: boolean;
  /** One line: in force, or what is not and whether it is acknowledged. */
  line: string;
}

export const CRDS_IN_FORCE = "kmaint's CRDs are in force";
export const CRD_ABSENT = `CustomResourceDefinition ${CONFIG_CRD_NAME} is not installed: no config is stored, kmaint's defaults apply`;
const FIX =
  `kubectl apply -f crds/ (after any chart that installs the upstream operator's CRDs, such as the NVIDIA network operator's maintenance-operator ` +
  `sub-chart, or disable that sub-chart's CRDs), or annotate the config ${ANNOTATION_ACCEPT_UPSTREAM_SCHEMA}=true to run on the upstream schema`;

/** The refusal's words: which CRD, why, what the API server does about it, and the fix. */
export function foreignCrdMessage(why: string): string {
  return `kmaint's CRDs are not in force: CustomResourceDefinition ${CONFIG_CRD_NAME} ${why}; the API server prunes the config's fields that schema lacks, so no new maintenance is admitted until: ${FIX}`;
}

export function unreadableCrdMessage(message: string): string {
  return (
    `cannot tell whether kmaint's CRDs are in force (${message}; kmaint's ClusterRole needs get on customresourcedefinitions ${CONFIG_CRD_NAME}): ` +
    `no new maintenance is admitted until it can be read, or annotate the config ${ANNOTATION_ACCEPT_UPSTREAM_SCHEMA}=true`
  );
}

/** Section (shared/pass/config.ts): the config's annotation accepting the upstream schema. */
export const acceptsUpstreamSchema = (config: MaintenanceOperatorConfig | undefined): boolean => config?.metadata.annotations?.[ANNOTATION_ACCEPT_UPSTREAM_SCHEMA] === 'true';

/** Pure: the standing of `read` for a pass whose config accepts the upstream schema or not (KmaintConfig.acceptsUpstreamSchema). */
export function judgeCrd(read: CrdRead, acceptsUpstream: boolean): CrdStanding {
  let problem: string;
  let configWritable = false;
  if (read.kind === 'unreadable') {
    problem = unreadableCrdMessage(read.message);
  } else {
    if (read.crd === undefined) return { kind: 'absent', reportable: [], configWritable: true, line: CRD_ABSENT };
    const why = foreignBecause(read.crd);
    if (why === undefined) return { kind: 'in-force', reportable: [], configWritable: true, line: CRDS_IN_FORCE };
    problem = foreignCrdMessage(why);
    configWritable = read.crd !== undefined && lackedFields(read.crd)?.length === 0;
  }
  if (acceptsUpstream) return { kind: 'acknowledged', reportable: [], configWritable, line: `admitting on the upstream schema (${ANNOTATION_ACCEPT_UPSTREAM_SCHEMA}=true on the config): ${problem}` };
  return { kind: 'refused', refusal: problem, reportable: configWritable ? [problem] : [], configWritable, line: problem };
}

/**
 * The ForeignCRDs Warning event on the config, planned when this pass writes the status of some request waiting because
 * admission is closed (`closed`: the scheduling plan's keys; a request newly refused): one event per refused batch, not
 * one per pass while nothing changes. Decided from which requests wait on the closure, never from the message text.
 */
export function planForeignCrdEvent(config: MaintenanceOperatorConfig | undefined, standing: CrdStanding, actions: readonly Action[], closed: readonly string[]): Action[] {
  if (config === undefined || standing.refusal === undefined) return [];
  const refusedNow = new Set(closed);
  const refused = actions.filter((a) => a.kind === 'writeStatus' && refusedNow.has(namespacedName(a.target))).length;
  if (refused === 0) return [];
  const { namespace = '', name, uid } = config.metadata;
  return [
    {
      kind: 'emitEvent',
      target: { kind: 'MaintenanceOperatorConfig', namespace, name, ...(uid !== undefined ? { uid } : {}) },
      type: 'Warning',
      eventReason: EVENT_REASON_FOREIGN_CRDS,
      message: standing.refusal,
      reason: `${refused} request${refused === 1 ? '' : 's'} refused: kmaint's CRDs are not in force`,
    },
  ];
}
