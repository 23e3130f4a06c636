// `kmaint leftovers [--fix]`: reads Nodes, NodeMaintenances, the medik8s leases, the Jobs of kmaint's namespace, the
// DeviceTaintRules (where served) and Slurm (when reachable), lists what
// kmaint (or upstream, for a takeover) left there (cli/leftovers.ts), and with --fix removes kmaint's own, then reads
// again. Exit 0: nothing of kmaint's left (after --fix: none remains); 1: leftovers found (or --fix could not remove all).
import { CONFIG_NAME, MEDIK8S_LEASE_NAMESPACE, describeAction, maintenanceKey, type Action } from '../shared/api/index.ts';
import type { KubeClient } from '../shared/kube/index.ts';
import { applyActions, loadConfig } from '../shared/pass/index.ts';
import { SlurmRestClient, readSlurm } from '../shared/slurm/index.ts';
import { UsageError } from './errors.ts';
import { planLeftovers, type Leftover, type LeftoversInput, type SlurmFix } from './leftovers.ts';
import { isDocumentFormat, renderDocuments, type OutputFormat } from './output-format.ts';
import { renderTable } from './table.ts';

export interface LeftoversFlags {
  fix?: boolean;
  /** Commander's --no-device-taint-rules: false when given (the chart's hook without devices.enabled has no rights to them). */
  deviceTaintRules?: boolean;
  /** Commander's --no-headers: false when given. */
  headers?: boolean;
  slurmUrl?: string;
  /** @default 'SLURM_JWT' */
  slurmTokenEnv: string;
  /** @default 'kmaint:' */
  slurmReasonPrefix: string;
}

export interface LeftoversContext {
  client: KubeClient;
  kmaintNamespace: string;
  output: OutputFormat;
  env: Readonly<Record<string, string | undefined>>;
  /** Lines for people (what was not read, what --fix did): stderr. */
  note: (line: string) => void;
  now: () => Date;
}

/** slurmrestd from the flags, else from kmaint's MaintenanceOperatorConfig while it is there (the pre-delete hook). */
async function slurmClient(flags: LeftoversFlags, ctx: LeftoversContext): Promise<{ client: SlurmRestClient; reasonPrefix: string } | undefined> {
  if (flags.slurmUrl !== undefined) {
    const token = ctx.env[flags.slurmTokenEnv]?.trim();
    if (token === undefined || token === '') throw new UsageError(`--slurm-url needs a token in $${flags.slurmTokenEnv} (--slurm-token-env names another variable)`);
    return { client: new SlurmRestClient({ url: flags.slurmUrl, token }), reasonPrefix: flags.slurmReasonPrefix };
  }
  const config = await ctx.client.getConfig(ctx.kmaintNamespace);
  const read = await readSlurm({ settings: loadConfig({ rawConfig: config }, 0, ctx.kmaintNamespace).slurm, needed: true, env: ctx.env, readSecretKey: (name, key) => ctx.client.getSecretKey(ctx.kmaintNamespace, name, key) });
  if (read.context?.kind === 'on' && read.context.view.kind === 'problem') ctx.note(`Slurm not read: ${read.context.view.problem.message}`);
  if (read.client === undefined || read.context?.kind !== 'on') {
    if (config === undefined) ctx.note(`Slurm not read: no MaintenanceOperatorConfig ${ctx.kmaintNamespace}/${CONFIG_NAME} and no --slurm-url`);
    return undefined;
  }
  return { client: read.client, reasonPrefix: read.context.settings.reasonPrefix };
}

async function readInput(flags: LeftoversFlags, ctx: LeftoversContext, slurm: Awaited<ReturnType<typeof slurmClient>>): Promise<LeftoversInput> {
  const [nodes, maintenances, leases, jobs, rules] = await Promise.all([
    ctx.client.listNodes(),
    ctx.client.listMaintenances(),
    ctx.client.namespaceExists(MEDIK8S_LEASE_NAMESPACE).then((exists) => (exists ? ctx.client.listLeases(MEDIK8S_LEASE_NAMESPACE) : [])),
    ctx.client.listJobs(ctx.kmaintNamespace),
    // A cluster that serves no DeviceTaintRule version has none of kmaint's: nothing to read (as no medik8s-leases).
    flags.deviceTaintRules === false ? undefined : ctx.client.listDeviceTaintRules(),
  ]);
  const input: LeftoversInput = { nodes, maintenances, leases, jobs, kmaintNamespace: ctx.kmaintNamespace, ...(rules !== undefined ? { deviceTaintRules: rules.rules } : {}) };
  if (slurm === undefined) return input;
  const listed = await slurm.client.listNodes();
  if (!listed.ok) throw new Error(`reading Slurm: ${listed.problem.message}`);
  // Reservations need slurmrestd v0.0.43 (Slurm 25.05+); an older one has none kmaint could have made.
  const reservations = await slurm.client.listReservations();
  if (!reservations.ok && reservations.problem.kind !== 'no-version') throw new Error(`reading Slurm reservations: ${reservations.problem.message}`);
  return { ...input, slurm: { nodes: listed.value, reservations: reservations.ok ? reservations.value : [], reasonPrefix: slurm.reasonPrefix } };
}

export function renderLeftovers(found: readonly Leftover[], output: OutputFormat, headers: boolean): string {
  if (isDocumentFormat(output)) return renderDocuments([{ apiVersion: 'v1', kind: 'List', items: found, metadata: { resourceVersion: '' } }], output);
  if (found.length === 0) return '';
  const lines = renderTable(['OBJECT', 'RECORD', 'OWNER', 'VALUE'], found.map((l) => [{ text: l.object }, { text: l.record }, { text: l.owner }, { text: l.value }]));
  return `${(headers ? lines : lines.slice(1)).join('\n')}\n`;
}

async function applySlurm(client: SlurmRestClient, fixes: readonly SlurmFix[], note: (line: string) => void): Promise<number> {
  let failed = 0;
  for (const f of fixes) {
    const r = f.kind === 'undrain' ? await client.undrain(f.node) : await client.deleteReservation(f.name);
    const what = f.kind === 'undrain' ? `undrain Slurm node ${f.node}` : `delete Slurm reservation ${f.name}`;
    if (r.ok) note(`fixed: ${what}`);
    else {
      failed++;
      note(`not fixed: ${what}: ${r.problem.message}`);
    }
  }
  return failed;
}

/** Read, write, read again: a round's writes to one Node can move it under the next write's precondition. */
const FIX_ROUNDS = 3;

async function applyRound(input: LeftoversInput, actions: readonly Action[], ctx: LeftoversContext): Promise<{ conflicts: number }> {
  const maintenances = new Map(input.maintenances.map((nm) => [maintenanceKey(nm), nm]));
  // One write at a time: several writes to one Node thread its resourceVersion in order. With the Nodes read, a write
  // refused 409 because of a kubelet's status post (nothing the plan read changed) goes again, as in a pass.
  const nodes = new Map(input.nodes.map((n) => [n.metadata?.name ?? '', n]));
  const applied = await applyActions(actions, { client: ctx.client, maintenances, nodes, now: ctx.now(), component: 'kmaint-leftovers', namespace: ctx.kmaintNamespace, concurrency: 1 });
  for (const a of actions) ctx.note(`fix: ${describeAction(a)}`);
  for (const e of applied.errors) ctx.note(`not fixed: ${e.action}: ${e.error}`);
  return { conflicts: applied.conflicts };
}

/** Lists (and with --fix removes) the leftovers; returns the exit code. */
export async function leftoversCommand(flags: LeftoversFlags, ctx: LeftoversContext): Promise<number> {
  const slurm = await slurmClient(flags, ctx);
  const input = await readInput(flags, ctx, slurm);
  const plan = planLeftovers(input);
  const text = renderLeftovers(plan.found, ctx.output, flags.headers !== false);
  if (!flags.fix) {
    process.stdout.write(text);
    if (plan.found.length === 0 && !isDocumentFormat(ctx.output)) ctx.note('no leftovers');
    return plan.found.length === 0 ? 0 : 1;
  }
  const slurmFailed = slurm === undefined ? 0 : await applySlurm(slurm.client, plan.slurm, ctx.note);
  // Rounds as passes make them: each reads again and writes what is still there. A Node write refused 409 (another
  // write of this command, or a kubelet's status post, moved the Node) is decided again on the next round's read.
  let current = { input, plan };
  let conflicts = 0;
  for (let round = 0; round === 0 || (round < FIX_ROUNDS && current.plan.actions.length > 0); round++) {
    if (current.plan.actions.length > 0) conflicts = (await applyRound(current.input, current.plan.actions, ctx)).conflicts;
    const fresh = await readInput(flags, ctx, slurm);
    current = { input: fresh, plan: planLeftovers(fresh) };
  }
  const ours = current.plan.found.filter((l) => l.owner === 'kmaint');
  process.stdout.write(renderLeftovers(current.plan.found, ctx.output, flags.headers !== false));
  if (ours.length > 0 || slurmFailed > 0) ctx.note(`${ours.length} of kmaint's records still left (${conflicts} conflicts in the last round): run kmaint leftovers --fix again`);
  return ours.length === 0 && slurmFailed === 0 ? 0 : 1;
}
