// The chart's ValidatingAdmissionPolicy (issue 31) on the real API server: rendered by `helm template` (release kmaint
// in namespace kmaint, so it names the testbed's kmaint ServiceAccount) and applied; then a requestor's ServiceAccount,
// allowed to write NodeMaintenances in its own namespace only, tries kmaint's requestor ID, a record annotation and a
// past deadline, and kmaint's ServiceAccount writes the same. With the policy disabled in values, nothing refuses.
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_CORDON_RECORDED, ANNOTATION_DEADLINE, ANNOTATION_NOT_BEFORE, ANNOTATION_REAPER_PROVIDER_ID, GROUP, LABEL_GANG, NODE_MAINTENANCE_KIND, NODE_MAINTENANCE_PLURAL, REAPER_REQUESTOR, VERSION } from '../shared/api/index.ts';
import { refusalText } from './support/attacker.ts';
import { helmIsCurrent, runHelm } from '../testbed/helm.ts';
import { adminKubeConfig, kmaintKubeConfig, kubectl, testbed, waitFor } from './support/cluster.ts';
import { KMAINT_NS, installCrds, removeAllNMs, setUnschedulable } from './support/kmaint.ts';
import { runKmaint } from './support/kmaint-cli.ts';

const NS = 'admission-requestor';
const REQUESTOR = 'requestor';
const POLICY = 'kmaint-requests';
const KMAINT_USER = 'system:serviceaccount:kmaint:kmaint';
/** The API server's words for a refusal (`<name>` stands for the object's name, see create()). */
const DENIED = `nodemaintenances.maintenance.nvidia.com "<name>" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}' denied request: `;

interface Rendered {
  kind: string;
  metadata: { name: string };
}

/** `helm template` of the chart as release kmaint in namespace kmaint, with `--set-json` pairs: the admission objects. */
async function renderPolicy(set: string[]): Promise<{ yaml: string; kinds: string[] }> {
  const r = await runHelm(['template', 'kmaint', 'charts/kmaint', '--namespace', 'kmaint', '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', '--show-only', 'templates/admission-policy.yaml', ...set.flatMap((s) => ['--set-json', s])]);
  if (r.code !== 0 && r.stderr.includes('could not find template')) return { yaml: '', kinds: [] };
  expect([r.code, r.stderr]).toEqual([0, '']);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Rendered | null).filter((d): d is Rendered => d !== null);
  return { yaml: r.stdout, kinds: docs.map((d) => `${d.kind}/${d.metadata.name}`) };
}

let node = '';
let other = '';
let requestor: CustomObjectsApi;
let kmaint: CustomObjectsApi;
let serial = 0;

function nm(name: string, spec: Record<string, unknown>, meta: { annotations?: Record<string, string>; labels?: Record<string, string> } = {}): Record<string, unknown> {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: NODE_MAINTENANCE_KIND, metadata: { name, ...meta }, spec: { nodeName: node, ...spec } };
}

/** Creates as `who`; the outcome is "created" or the HTTP code and the Status message, the object's name as `<name>`. */
async function create(who: CustomObjectsApi, namespace: string, body: Record<string, unknown>): Promise<string> {
  try {
    await who.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: NODE_MAINTENANCE_PLURAL, body });
    return 'created';
  } catch (err) {
    return refusal(err, (body['metadata'] as { name: string }).name);
  }
}

/** The refusal's code and message (test/support/attacker.ts), the object's name as `<name>`. */
function refusal(err: unknown, name: string): string {
  return refusalText(err).replaceAll(`"${name}"`, '"<name>"');
}

const unique = (prefix: string): string => `${prefix}-${++serial}`;
const inAnHour = (): string => new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe.skipIf(!helmIsCurrent())('the chart\'s admission policy on the real API server', () => {
  beforeAll(async () => {
    await installCrds();
    [node, other] = testbed().nodes.slice(-2) as [string, string];
    const kc = adminKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: REQUESTOR } } });
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({ namespace: NS, body: { metadata: { name: REQUESTOR }, rules: [
          { apiGroups: [GROUP], resources: [NODE_MAINTENANCE_PLURAL], verbs: ['create', 'get', 'patch', 'delete'] },
          // As upstream expects of requestors: their requests' status, for the RequestorFailed condition (issue 40).
          { apiGroups: [GROUP], resources: [`${NODE_MAINTENANCE_PLURAL}/status`], verbs: ['get', 'patch'] },
        ] } });
    await rbac.createNamespacedRoleBinding({
      namespace: NS,
      body: { metadata: { name: REQUESTOR }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: REQUESTOR }, subjects: [{ kind: 'ServiceAccount', name: REQUESTOR, namespace: NS }] },
    });
    const token = (await core.createNamespacedServiceAccountToken({ namespace: NS, name: REQUESTOR, body: { spec: { audiences: [], expirationSeconds: 3600 } } })).status?.token ?? '';
    const rk = new KubeConfig();
    rk.loadFromOptions({
      clusters: [{ name: 'testbed', server: testbed().server, caFile: testbed().caFile, skipTLSVerify: false }],
      users: [{ name: REQUESTOR, token }],
      contexts: [{ name: REQUESTOR, cluster: 'testbed', user: REQUESTOR }],
      currentContext: REQUESTOR,
    });
    requestor = rk.makeApiClient(CustomObjectsApi);
    kmaint = kmaintKubeConfig().makeApiClient(CustomObjectsApi);
    // The requestor's namespace may ask for `node` only (admissionPolicy.nodeNamePatterns).
    const rendered = await renderPolicy([`admissionPolicy.nodeNamePatterns={"${NS}":"^${node}$"}`]);
    expect(rendered.kinds).toEqual([`ValidatingAdmissionPolicy/${POLICY}`, `ValidatingAdmissionPolicyBinding/${POLICY}`]);
    const applied = await kubectl(['apply', '-f', '-'], { input: rendered.yaml });
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    // RBAC and the policy reach the API server's caches through informers: wait until both are in effect.
    await waitFor('the policy refuses the requestor and RBAC lets it try', async () => ((await create(requestor, NS, nm(unique('probe'), { requestorID: REAPER_REQUESTOR }))).startsWith(`403 ${DENIED}`) ? true : undefined), 30_000);
  });

  afterAll(async () => {
    if (node !== '') {
      await setUnschedulable(node, false);
      await kubectl(['annotate', 'node', node, 'kmaint.io/cordoned-by-']);
    }
    await kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', POLICY, '--ignore-not-found']);
    await removeAllNMs(NS);
    await removeAllNMs(KMAINT_NS);
    await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true']);
  });

  it('refuses a requestor\'s kmaint requestor ID, record annotations and labels, a past deadline, a far not-before and another team\'s node, each with its message', async () => {
    const past = '2020-01-01T00:00:00Z';
    const attempts = {
      reaperRequestor: await create(requestor, NS, nm(unique('reap'), { requestorID: REAPER_REQUESTOR })),
      reaperJoined: await create(requestor, NS, nm(unique('joined'), { requestorID: 'fw.example.com', additionalRequestors: [REAPER_REQUESTOR] })),
      recordAnnotation: await create(requestor, NS, nm(unique('record'), { requestorID: 'fw.example.com' }, { annotations: { [ANNOTATION_REAPER_PROVIDER_ID]: 'aws:///eu-west-1a/i-0123456789abcdef0' } })),
      recordLabel: await create(requestor, NS, nm(unique('label'), { requestorID: 'fw.example.com' }, { labels: { 'kmaint.io/reaper': 'true' } })),
      pastDeadline: await create(requestor, NS, nm(unique('deadline'), { requestorID: 'fw.example.com' }, { annotations: { [ANNOTATION_DEADLINE]: past } })),
      farNotBefore: await create(requestor, NS, nm(unique('notbefore'), { requestorID: 'fw.example.com' }, { annotations: { [ANNOTATION_NOT_BEFORE]: '2999-01-01T00:00:00Z' } })),
      otherNode: await create(requestor, NS, nm(unique('other'), { requestorID: 'fw.example.com', nodeName: other })),
    };
    // The time rules are Invalid (422), and name the request's creation time, which the API server stamps at the create.
    const expected = (what: string): string => expect.stringMatching(new RegExp(`^422 ${escape(DENIED)}${what}\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`)) as unknown as string;
    expect(attempts).toEqual({
      reaperRequestor: `403 ${DENIED}requestorID reaper.kmaint.io is reserved to kmaint: only ${KMAINT_USER} files requests for it`,
      reaperJoined: `403 ${DENIED}requestorID reaper.kmaint.io is reserved to kmaint: only ${KMAINT_USER} files requests for it`,
      recordAnnotation: `403 ${DENIED}annotation kmaint.io/reaper-provider-id is a record only kmaint writes: only ${KMAINT_USER} may set, change or remove it`,
      recordLabel: `403 ${DENIED}label kmaint.io/reaper marks the requests kmaint files itself: only ${KMAINT_USER} may set, change or remove it`,
      pastDeadline: expected(escape(`kmaint.io/deadline ${past} is refused: it must be an RFC 3339 time (e.g. 2026-12-01T06:00:00Z) no earlier than the request's creation `)),
      farNotBefore: expected(escape('kmaint.io/not-before 2999-01-01T00:00:00Z is refused: it must be an RFC 3339 time (e.g. 2026-12-01T06:00:00Z) at most 720h after the request\'s creation ')),
      otherNode: `403 ${DENIED}namespace ${NS} may request maintenance only of nodes whose name matches ^${node}$ (admissionPolicy.nodeNamePatterns); ${other} does not`,
    });
  });

  it('lets an honest requestor use its own keys (gang, future deadline), then refuses its patch adding a record', async () => {
    const name = unique('honest');
    expect(await create(requestor, NS, nm(name, { requestorID: 'fw.example.com' }, { annotations: { [ANNOTATION_DEADLINE]: inAnHour() }, labels: { [LABEL_GANG]: 'rack-1' } }))).toBe('created');
    const patched = await requestor
      .patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: NODE_MAINTENANCE_PLURAL, name, body: { metadata: { annotations: { [ANNOTATION_CORDON_RECORDED]: 'true' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch))
      .then(() => 'patched', (err: unknown) => refusal(err, name));
    expect(patched).toBe(`403 ${DENIED}annotation kmaint.io/cordon-recorded is a record only kmaint writes: only ${KMAINT_USER} may set, change or remove it`);
  });

  it('lets a requestor update a request carrying kmaint\'s records (joining as an additional requestor) while it leaves them as they are; removing one is refused', async () => {
    const name = unique('recorded');
    expect(await create(requestor, NS, nm(name, { requestorID: 'fw.example.com' }))).toBe('created');
    const patch = (who: CustomObjectsApi, body: Record<string, unknown>): Promise<string> =>
      who.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: NODE_MAINTENANCE_PLURAL, name, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)).then(
        () => 'patched',
        (err: unknown) => refusal(err, name),
      );
    expect([
      await patch(kmaint, { metadata: { annotations: { [ANNOTATION_CORDON_RECORDED]: 'true' } } }),
      await patch(requestor, { spec: { additionalRequestors: ['bios.example.com'] } }),
      await patch(requestor, { metadata: { annotations: { [ANNOTATION_CORDON_RECORDED]: null } } }),
    ]).toEqual(['patched', 'patched', `403 ${DENIED}annotation kmaint.io/cordon-recorded is a record only kmaint writes: only ${KMAINT_USER} may set, change or remove it`]);
  });

  it('on the status: lets a requestor set, change and remove its RequestorFailed condition, and refuses every other change, each with its message (issue 40)', async () => {
    const name = unique('status');
    expect(await create(requestor, NS, nm(name, { requestorID: 'fw.example.com' }))).toBe('created');
    const target = { group: GROUP, version: VERSION, namespace: NS, plural: NODE_MAINTENANCE_PLURAL, name };
    const patchStatus = (who: CustomObjectsApi, status: Record<string, unknown>): Promise<string> =>
      who.patchNamespacedCustomObjectStatus({ ...target, body: { status } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)).then(
        () => 'patched',
        (err: unknown) => refusal(err, name),
      );
    const pending = { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting: maxParallelOperations 1 reached (1 in progress)', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const failed = { type: 'RequestorFailed', status: 'True', reason: 'FailedMaintenance', message: 'firmware flash failed', lastTransitionTime: '2026-01-01T00:05:00Z' };
    const waiting = { type: 'kmaint.io/Waiting', status: 'True', reason: 'Parallel', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const refused = (what: string): string => `403 ${DENIED}status ${what} is kmaint's to write: only ${KMAINT_USER} may change it; a requestor may set, change or remove the RequestorFailed condition only`;
    expect({
      kmaintWritesPending: await patchStatus(kmaint, { conditions: [pending] }),
      setsRequestorFailed: await patchStatus(requestor, { conditions: [pending, failed] }),
      changesRequestorFailed: await patchStatus(requestor, { conditions: [pending, { ...failed, status: 'False', reason: 'Recovered' }] }),
      forgesScheduled: await patchStatus(requestor, { conditions: [{ ...pending, reason: 'Scheduled', message: 'admitted: slot 1 of 1' }, failed] }),
      dropsReady: await patchStatus(requestor, { conditions: [failed] }),
      forgesDrain: await patchStatus(requestor, { drain: { totalPods: 1, evictionPods: 0, drainProgress: 100 } }),
      forgesWait: await patchStatus(requestor, { waitForCompletion: ['default/pod-a'] }),
      removesRequestorFailed: await patchStatus(requestor, { conditions: [pending] }),
      // kmaint.io/Waiting (what a waiting request waits on) is kmaint's too: a requestor can neither forge nor drop it.
      forgesWaitingOn: await patchStatus(requestor, { conditions: [pending, waiting] }),
      kmaintWritesWaitingOn: await patchStatus(kmaint, { conditions: [pending, waiting] }),
      changesWaitingOn: await patchStatus(requestor, { conditions: [pending, { ...waiting, reason: 'Window' }] }),
      dropsWaitingOn: await patchStatus(requestor, { conditions: [pending] }),
    }).toEqual({
      kmaintWritesPending: 'patched',
      setsRequestorFailed: 'patched',
      changesRequestorFailed: 'patched',
      forgesScheduled: refused('condition Ready'),
      dropsReady: refused('condition Ready'),
      forgesDrain: refused('drain'),
      forgesWait: refused('waitForCompletion'),
      removesRequestorFailed: 'patched',
      forgesWaitingOn: refused('condition kmaint.io/Waiting'),
      kmaintWritesWaitingOn: 'patched',
      changesWaitingOn: refused('condition kmaint.io/Waiting'),
      dropsWaitingOn: refused('condition kmaint.io/Waiting'),
    });
    // The next test's takeover reads every request: this one's Waiting is not its business.
    await adminKubeConfig().makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...target });
  });

  it("lets an administrator's `kmaint takeover --to nvidia --apply` write node-initial-state.unschedulable and drop kmaint.io/Waiting (it may patch the Node), and still refuses a requestor's forgery of it on create and on update (issue 42)", async () => {
    const INITIAL = 'maintenance.nvidia.com/node-initial-state.unschedulable';
    const name = unique('takeover');
    expect(await create(requestor, NS, nm(name, { requestorID: 'fw.example.com' }))).toBe('created');
    // As a kmaint older than that record left its cordon: the node cordoned and recorded, the request without it.
    await setUnschedulable(node, true);
    expect((await kubectl(['annotate', 'node', node, `kmaint.io/cordoned-by=kmaint/${NS}/${name}`])).code).toBe(0);
    // And waiting, as kmaint's scheduler wrote it: the takeover drops that condition, as an administrator may (a
    // requestor may not: the test above).
    const pending = { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting: maxParallelOperations 1 reached (1 in progress)', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const waiting = { type: 'kmaint.io/Waiting', status: 'True', reason: 'Parallel', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
    await kmaint.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: NS, plural: NODE_MAINTENANCE_PLURAL, name, body: { status: { conditions: [pending, waiting] } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const takeover = await runKmaint(['--kubeconfig', testbed().kubeconfigPath, '--kmaint-namespace', KMAINT_NS, 'takeover', '--to', 'nvidia', '--apply'], 60_000);
    const target = { group: GROUP, version: VERSION, namespace: NS, plural: NODE_MAINTENANCE_PLURAL };
    const read = async (n: string): Promise<{ metadata: { annotations?: Record<string, string> }; status?: { conditions?: { type: string }[] } }> =>
      (await adminKubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...target, name: n })) as { metadata: { annotations?: Record<string, string> }; status?: { conditions?: { type: string }[] } };
    const after = await read(name);
    expect([takeover.code, takeover.stdout, takeover.stderr, after.metadata.annotations, after.status?.conditions?.map((c) => c.type)]).toEqual([
      0,
      `patch ${NS}/${name} annotations ${INITIAL}: kmaint cordoned ${node} for ${NS}/${name}: upstream uncordons it by node-initial-state.unschedulable "false"\n` +
        `status ${NS}/${name}: drop kmaint's kmaint.io/Waiting condition (Parallel) from ${NS}/${name}: upstream neither writes nor clears it\n`,
      '',
      { [INITIAL]: 'false' },
      ['Ready'],
    ]);
    const forged = `403 ${DENIED}annotation ${INITIAL} is a record only kmaint writes: only ${KMAINT_USER} or a user who may patch Node ${node} may set, change or remove it`;
    const patch = (body: Record<string, unknown>): Promise<string> =>
      requestor.patchNamespacedCustomObject({ ...target, name, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)).then(
        () => 'patched',
        (err: unknown) => refusal(err, name),
      );
    expect({
      forgedOnCreate: await create(requestor, NS, nm(unique('forged'), { requestorID: 'fw.example.com' }, { annotations: { [INITIAL]: 'false' } })),
      changed: await patch({ metadata: { annotations: { [INITIAL]: 'true' } } }),
      removed: await patch({ metadata: { annotations: { [INITIAL]: null } } }),
      kept: await patch({ spec: { additionalRequestors: ['bios.example.com'] } }),
    }).toEqual({ forgedOnCreate: forged, changed: forged, removed: forged, kept: 'patched' });
  });

  it('lets kmaint\'s ServiceAccount create the same requests', async () => {
    const made = [
      await create(kmaint, KMAINT_NS, nm(unique('reap'), { requestorID: REAPER_REQUESTOR, nodeName: other }, { annotations: { [ANNOTATION_REAPER_PROVIDER_ID]: 'aws:///eu-west-1a/i-0123456789abcdef0' }, labels: { 'kmaint.io/reaper': 'true' } })),
      await create(kmaint, KMAINT_NS, nm(unique('deadline'), { requestorID: 'cloud-events.kmaint.io', nodeName: other }, { annotations: { [ANNOTATION_DEADLINE]: '2020-01-01T00:00:00Z' } })),
    ];
    expect(made).toEqual(['created', 'created']);
  });

  it('with admissionPolicy.enabled=false the chart renders no policy, and once it is gone the same create is let through (kmaint\'s own read-side checks hold then)', async () => {
    expect((await renderPolicy(['admissionPolicy.enabled=false'])).kinds).toEqual([]);
    // What `helm upgrade --set admissionPolicy.enabled=false` does to the objects the chart no longer renders.
    const deleted = await kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', POLICY]);
    expect(deleted.code).toBe(0);
    const name = unique('unguarded');
    await waitFor('the policy no longer applies', async () => ((await create(requestor, NS, nm(name, { requestorID: REAPER_REQUESTOR }))) === 'created' ? true : undefined), 30_000);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
