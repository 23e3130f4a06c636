// Issue 40's attacker, shared by the attack files: a requestor's ServiceAccount limited to its own namespace's
// NodeMaintenances (and, as upstream expects requestors to write it, their status), and the two policy modes every
// attack runs in: with the chart's ValidatingAdmissionPolicy installed, and with none (as kustomize and Lambda install).
import { CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, NODE_MAINTENANCE_KIND, NODE_MAINTENANCE_PLURAL, VERSION } from '../../shared/api/index.ts';
import { helmIsCurrent, runHelm } from '../../testbed/helm.ts';
import { admin } from './kmaint.ts';
import { adminKubeConfig, kubectl, tokenKubeConfig, waitFor } from './cluster.ts';

/** The chart's policy, as `helm template` names it for release kmaint. */
export const POLICY_NAME = 'kmaint-requests';

/** The API server's words when the chart's policy refuses a write of NodeMaintenance `name` for `reason`. */
export function policyDenied(name: string, reason: string, code: 403 | 422 = 403): string {
  return `${code} nodemaintenances.maintenance.nvidia.com "${name}" is forbidden: ValidatingAdmissionPolicy '${POLICY_NAME}' with binding '${POLICY_NAME}' denied request: ${reason}`;
}

/** kmaint's ServiceAccount as the policy names it (release kmaint in namespace kmaint). */
export const KMAINT_SA_USER = 'system:serviceaccount:kmaint:kmaint';

export type PolicyMode = 'policy' | 'no-policy';
/** Every attack runs in both: `describe.each(POLICY_MODES)`. */
export const POLICY_MODES: readonly PolicyMode[] = ['policy', 'no-policy'];

/** Whether `mode` can run here: the policy mode needs helm (npm run helm:build), which CI builds. */
export function policyModeRuns(mode: PolicyMode): boolean {
  return mode === 'no-policy' || helmIsCurrent();
}

/** The chart's admission objects as `helm template` renders them for release kmaint in namespace kmaint. */
export async function renderChartPolicy(set: readonly string[] = []): Promise<string> {
  const r = await runHelm(['template', 'kmaint', 'charts/kmaint', '--namespace', 'kmaint', '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', '--show-only', 'templates/admission-policy.yaml', ...set.flatMap((s) => ['--set-json', s])]);
  if (r.code !== 0) throw new Error(`helm template of the admission policy failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/**
 * Puts the cluster in `mode`: the chart's policy applied (and in effect: `probe` answers true once a write it should
 * refuse is refused), or no policy at all. Returns the undo, for afterAll.
 */
export async function usePolicyMode(mode: PolicyMode, probe?: () => Promise<boolean>): Promise<() => Promise<void>> {
  const remove = async (): Promise<void> => {
    const r = await kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', POLICY_NAME, '--ignore-not-found']);
    if (r.code !== 0) throw new Error(`removing the admission policy: ${r.stderr}`);
  };
  await remove();
  if (mode === 'no-policy') {
    // The removal reaches the API server's admission through the same informer: a policy a file's policy mode applied
    // just before can still refuse for a moment after its binding is deleted.
    if (probe !== undefined) await waitFor('the admission policy out of effect', async () => ((await probe()) ? undefined : true), 30_000);
    return async () => {};
  }
  const applied = await kubectl(['apply', '-f', '-'], { input: await renderChartPolicy() });
  if (applied.code !== 0) throw new Error(`applying the admission policy: ${applied.stderr}`);
  // The policy reaches the API server's admission through an informer.
  if (probe !== undefined) await waitFor('the admission policy in effect', async () => ((await probe()) ? true : undefined), 30_000);
  return remove;
}

export interface Requestor {
  readonly namespace: string;
  readonly user: string;
  readonly custom: CustomObjectsApi;
  /** Creates a NodeMaintenance in its namespace; 'created' or the HTTP code and message of the refusal. */
  create(name: string, spec: Record<string, unknown>, meta?: { annotations?: Record<string, string>; labels?: Record<string, string>; finalizers?: string[] }): Promise<string>;
  /** A merge patch of the request's status subresource; 'patched' or the refusal. */
  patchStatus(name: string, status: Record<string, unknown>): Promise<string>;
  /** A merge patch of the request; 'patched' or the refusal. */
  patch(name: string, body: Record<string, unknown>): Promise<string>;
  delete(name: string): Promise<string>;
}

let probes = 0;
/**
 * Whether the chart's policy is in effect for `requestor`: a create naming kmaint's own requestor ID on `node` is refused
 * 403. A create that lands (the policy not yet in effect) is deleted again, so a probe leaves nothing behind.
 */
export async function policyRefuses(requestor: Requestor, node: string): Promise<boolean> {
  const name = `policy-probe-${++probes}`;
  const outcome = await requestor.create(name, { requestorID: 'reaper.kmaint.io', nodeName: node });
  if (outcome === 'created') await requestor.delete(name);
  return outcome.startsWith('403 ');
}

/** The HTTP code and the Status message of a refused call. */
export function refusalText(err: unknown): string {
  const e = err as { code?: number; body?: unknown };
  const text = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    // not a Status: the body as it came
  }
  return `${e.code ?? '?'} ${message}`;
}

/**
 * A namespace `namespace` with a ServiceAccount that may create, get, list, patch and delete NodeMaintenances there,
 * and (`status`, default true) get, patch and update their status; nothing else. Waits until RBAC is in effect.
 */
export async function makeRequestor(namespace: string, opts: { status?: boolean; name?: string } = {}): Promise<Requestor> {
  const name = opts.name ?? 'requestor';
  const { core } = admin();
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
  const rules = [{ apiGroups: [GROUP], resources: [NODE_MAINTENANCE_PLURAL], verbs: ['create', 'get', 'list', 'patch', 'delete'] }];
  if (opts.status ?? true) rules.push({ apiGroups: [GROUP], resources: [`${NODE_MAINTENANCE_PLURAL}/status`], verbs: ['get', 'patch', 'update'] });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name, namespace }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name, namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name, namespace }] },
  });
  const token = (await core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [], expirationSeconds: 3600 } } })).status?.token ?? '';
  if (token === '') throw new Error(`no token for ServiceAccount ${namespace}/${name}`);
  const custom = tokenKubeConfig(token, name).makeApiClient(CustomObjectsApi);
  const target = { group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL };
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  // RBAC reaches the authorizer through an informer.
  await waitFor(`ServiceAccount ${namespace}/${name} may read its requests`, async () => {
    try {
      await custom.listNamespacedCustomObject(target);
      return true;
    } catch {
      return undefined;
    }
  }, 60_000);
  const outcome = (done: string) => (p: Promise<unknown>): Promise<string> => p.then(() => done, refusalText);
  return {
    namespace,
    user: `system:serviceaccount:${namespace}:${name}`,
    custom,
    create: (nm, spec, meta = {}) =>
      outcome('created')(
        custom.createNamespacedCustomObject({
          ...target,
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: NODE_MAINTENANCE_KIND, metadata: { name: nm, namespace, ...meta }, spec },
        }),
      ),
    patchStatus: (nm, status) => outcome('patched')(custom.patchNamespacedCustomObjectStatus({ ...target, name: nm, body: { status } }, merge)),
    patch: (nm, body) => outcome('patched')(custom.patchNamespacedCustomObject({ ...target, name: nm, body }, merge)),
    delete: (nm) => outcome('deleted')(custom.deleteNamespacedCustomObject({ ...target, name: nm })),
  };
}
