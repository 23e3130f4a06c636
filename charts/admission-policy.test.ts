// The chart's ValidatingAdmissionPolicy (issue 31) as `helm template` renders it: on by default, off by value, naming
// the release's ServiceAccount, and reserving exactly kmaint's own requestor IDs, record annotations and labels (the
// constants of shared/api and shared/slurm, letter for letter). test/admission-policy.test.ts runs it on the API server.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  ANNOTATION_CLOUD_EVENTS,
  ANNOTATION_CORDON_RECORDED,
  ANNOTATION_DEADLINE,
  ANNOTATION_DEADLINE_REPORTED,
  ANNOTATION_DRAIN_START,
  ANNOTATION_GANG_SIZE,
  ANNOTATION_INITIAL_UNSCHEDULABLE,
  ANNOTATION_MEDIK8S_LEASE,
  ANNOTATION_NOT_BEFORE,
  ANNOTATION_READY_TIME,
  ANNOTATION_REBOOT_BOOT_ID,
  ANNOTATION_REBOOT_ISSUED,
  ANNOTATION_REBOOT_START,
  ANNOTATION_RELEASED_AT,
  ANNOTATION_DEVICE_TAINT_RULES,
  ANNOTATION_REAPER_FORCE_RETRY,
  ANNOTATION_REAPER_PROVIDER_ID,
  ANNOTATION_SLINKY_DRAINED,
  ANNOTATION_WAIT_POD_COMPLETION_START,
  CLOUD_EVENTS_REQUESTOR,
  REBOOT_SENTINEL_REQUESTOR,
  DEFAULT_HANDSHAKE_REQUESTOR,
  LABEL_CLOUD_EVENT,
  LABEL_REBOOT_SENTINEL,
  LABEL_GANG,
  LABEL_HANDSHAKE,
  LABEL_REAPER,
  LABEL_SRIOV_HANDSHAKE,
  REAPER_REQUESTOR,
  SRIOV_HANDSHAKE_REQUESTOR,
} from '../shared/api/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM } from '../shared/slurm/index.ts';
import { helmIsCurrent, runHelm } from '../testbed/helm.ts';

interface Policy {
  kind: string;
  metadata: { name: string };
  spec: {
    failurePolicy?: string;
    policyName?: string;
    validationActions?: string[];
    matchConstraints?: unknown;
    matchConditions?: Array<{ name: string; expression: string }>;
    variables?: Array<{ name: string; expression: string }>;
    validations?: Array<{ expression: string; reason: string; messageExpression: string }>;
  };
}

async function render(set: string[] = []): Promise<Policy[]> {
  const r = await runHelm(['template', 'ops', 'charts/kmaint', '--namespace', 'maint', '--kube-version', '1.35.4', '--set', 'operator.image.repository=registry.example.com', ...set.flatMap((s) => ['--set-json', s])]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Policy | null)
    .filter((o): o is Policy => o !== null && o.kind.startsWith('ValidatingAdmissionPolicy'));
}

const policyOf = (objs: Policy[]): Policy['spec'] => objs.find((o) => o.kind === 'ValidatingAdmissionPolicy')?.spec ?? {};
const variable = (objs: Policy[], name: string): string | undefined => policyOf(objs).variables?.find((v) => v.name === name)?.expression;
/** The quoted strings of a CEL list literal. */
const listOf = (cel: string | undefined): string[] => [...(cel ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1] ?? '');

describe.skipIf(!helmIsCurrent())('the chart\'s admission policy (helm template)', () => {
  it('by default: the policy and its binding, Deny, failing closed, on NodeMaintenance create and update by anyone but the release\'s ServiceAccount', async () => {
    const objs = await render();
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ValidatingAdmissionPolicy/ops-kmaint-requests', 'ValidatingAdmissionPolicyBinding/ops-kmaint-requests']);
    const spec = policyOf(objs);
    expect([spec.failurePolicy, spec.matchConstraints, spec.matchConditions]).toEqual([
      'Fail',
      { resourceRules: [{ apiGroups: ['maintenance.nvidia.com'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['nodemaintenances', 'nodemaintenances/status'] }] },
      [{ name: 'not-kmaint', expression: "request.userInfo.username != 'system:serviceaccount:maint:ops-kmaint' && !(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in []))" }],
    ]);
    expect(objs[1]?.spec).toEqual({ policyName: 'ops-kmaint-requests', validationActions: ['Deny'] });
    // The last: a requestor's status write touches RequestorFailed only (issue 40). The third: node-initial-state is
    // written by kmaint or by whoever may patch the request's Node (an administrator's `kmaint takeover --to nvidia`).
    expect(spec.validations?.map((v) => v.reason)).toEqual(['Forbidden', 'Forbidden', 'Forbidden', 'Forbidden', 'Invalid', 'Invalid', 'Forbidden']);
    expect(spec.validations?.[2]?.expression).toBe("!('maintenance.nvidia.com/node-initial-state.unschedulable' in variables.changedRecords) || variables.nodeWriter");
  });

  it('reserves exactly kmaint\'s requestor IDs, record annotations and labels; the requestors\' own keys are not among them', async () => {
    const objs = await render();
    const reserved = {
      requestors: listOf(variable(objs, 'reservedRequestors')),
      annotations: listOf(variable(objs, 'recordAnnotations')),
      labels: listOf(variable(objs, 'recordLabels')),
    };
    expect(reserved).toEqual({
      requestors: [REAPER_REQUESTOR, CLOUD_EVENTS_REQUESTOR, SRIOV_HANDSHAKE_REQUESTOR, DEFAULT_HANDSHAKE_REQUESTOR, REBOOT_SENTINEL_REQUESTOR],
      annotations: [
        ANNOTATION_CORDON_RECORDED,
        ANNOTATION_DRAIN_START,
        ANNOTATION_MEDIK8S_LEASE,
        ANNOTATION_REAPER_PROVIDER_ID,
        ANNOTATION_REAPER_FORCE_RETRY,
        ANNOTATION_CLOUD_EVENTS,
        ANNOTATION_DEADLINE_REPORTED,
        ANNOTATION_SLURM_RESERVATION,
        ANNOTATION_SLURM_RESERVATION_PROBLEM,
        ANNOTATION_SLURM_DRAINED,
        ANNOTATION_SLURM_DRAIN_START,
        ANNOTATION_SLINKY_DRAINED,
        ANNOTATION_INITIAL_UNSCHEDULABLE,
        ANNOTATION_WAIT_POD_COMPLETION_START,
        ANNOTATION_READY_TIME,
        ANNOTATION_RELEASED_AT,
        ANNOTATION_DEVICE_TAINT_RULES,
        ANNOTATION_REBOOT_ISSUED,
        ANNOTATION_REBOOT_BOOT_ID,
        ANNOTATION_REBOOT_START,
      ],
      labels: [LABEL_REAPER, LABEL_CLOUD_EVENT, LABEL_HANDSHAKE, LABEL_SRIOV_HANDSHAKE, LABEL_REBOOT_SENTINEL],
    });
    for (const own of [ANNOTATION_DEADLINE, ANNOTATION_NOT_BEFORE, ANNOTATION_GANG_SIZE, LABEL_GANG]) expect([...reserved.annotations, ...reserved.labels]).not.toContain(own);
  });

  it.each<{ rule: string; set: string[]; pick: (objs: Policy[]) => unknown; want: unknown }>([
    { rule: 'admissionPolicy.enabled=false renders neither object', set: ['admissionPolicy.enabled=false'], pick: (o) => o.length, want: 0 },
    {
      rule: 'admissionPolicy.notBeforeHorizon bounds kmaint.io/not-before',
      set: ['admissionPolicy.notBeforeHorizon="168h"'],
      pick: (o) => policyOf(o).validations?.[5]?.expression,
      want: "variables.notBefore == '' || (variables.notBefore.matches(variables.rfc3339) && timestamp(variables.notBefore) <= variables.created + duration('168h'))",
    },
    {
      rule: 'admissionPolicy.kmaintGroups: members of those groups write as kmaint (the Lambda roles\' group)',
      set: ['admissionPolicy.kmaintGroups=["kmaint-lambda"]'],
      pick: (o) => policyOf(o).matchConditions?.[0]?.expression,
      want: 'request.userInfo.username != \'system:serviceaccount:maint:ops-kmaint\' && !(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in ["kmaint-lambda"]))',
    },
    { rule: 'admissionPolicy.nodeNamePatterns empty (default): no node rule', set: [], pick: (o) => [variable(o, 'nodeNamePatterns'), policyOf(o).validations?.length], want: [undefined, 7] }, // 7: with the status rule (issue 40) and the node-initial-state rule (issue 42)
    {
      rule: 'admissionPolicy.nodeNamePatterns: a namespace asks only for the nodes its pattern matches',
      set: ['admissionPolicy.nodeNamePatterns={"team-a":"^gpu-a-[0-9]+$"}'],
      pick: (o) => [variable(o, 'nodeNamePatterns'), policyOf(o).validations?.[6]?.expression],
      want: ['{"team-a":"^gpu-a-[0-9]+$"}', '!(request.namespace in variables.nodeNamePatterns) || object.spec.nodeName.matches(variables.nodeNamePatterns[request.namespace])'],
    },
  ])('$rule', async ({ set, pick, want }) => {
    expect(pick(await render(set))).toEqual(want);
  });
});
