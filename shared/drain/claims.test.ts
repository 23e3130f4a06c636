// The claim-matching rule: a podEvictionFilters entry matches a pod by a requested resource name OR by a name one of
// its allocated, reserved DRA devices answers to (driver, device class, the driver's mapped resource names).
import type { ResourceV1ResourceClaim, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DRA_RESOURCE_NAMES, type DrainSpec } from '#api';
import { deviceResourceNames, devicesHeldBy, indexClaims, unmatchedDraMessage, unreadableClaimsMessage, type DraView } from './claims.ts';
import { podKey } from './pod-facts.ts';
import { selectPodsForDrain } from './select-pods.ts';
import { aClaim, aPod } from './test-builders.ts';

/** The seed example's GPU-only drain. */
const GPU_ONLY: DrainSpec = { force: true, deleteEmptyDir: true, podEvictionFilters: [{ byResourceNameRegex: 'nvidia.com/gpu-*' }, { byResourceNameRegex: 'nvidia.com/rdma*' }] };
const DEFAULT_TABLE = new Map(DEFAULT_DRA_RESOURCE_NAMES.map((e) => [e.driver, e.resourceNames]));

function view(claims: readonly ResourceV1ResourceClaim[], resourceNames: ReadonlyMap<string, readonly string[]> = DEFAULT_TABLE): DraView {
  return { claims: indexClaims(claims), resourceNames };
}

interface Row {
  rule: string;
  pods: V1Pod[];
  claims: ResourceV1ResourceClaim[];
  spec?: DrainSpec;
  resourceNames?: ReadonlyMap<string, readonly string[]>;
  evict: string[];
  skipped: number;
  /** The Ready note (unmatchedDraMessage), or undefined. */
  note: string | undefined;
}

const GPU0 = 'gpu.nvidia.com/worker-01/gpu-0';

const ROWS: Row[] = [
  {
    rule: 'resource request only: matched by the requested name, as upstream',
    pods: [aPod({ name: 'req', requests: ['nvidia.com/gpu'] })],
    claims: [],
    evict: ['default/req'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'claim only: a template claim, allocated by gpu.nvidia.com and reserved for the pod, matches nvidia.com/gpu-* through the default table',
    pods: [aPod({ name: 'dra', claims: [{ name: 'gpu', generated: 'dra-gpu-x7k2p' }] })],
    claims: [aClaim({ name: 'dra-gpu-x7k2p', devices: [GPU0], reservedFor: ['dra'] })],
    evict: ['default/dra'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'both a request and a claim: matched once',
    pods: [aPod({ name: 'both', requests: ['nvidia.com/gpu'], claims: [{ name: 'gpu', claim: 'both-gpu' }] })],
    claims: [aClaim({ name: 'both-gpu', devices: [GPU0], reservedFor: ['both'] })],
    evict: ['default/both'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'claim not yet allocated: no device held, no match, nothing to report',
    pods: [aPod({ name: 'pending', claims: [{ name: 'gpu', claim: 'pending-gpu' }] })],
    claims: [aClaim({ name: 'pending-gpu' })],
    evict: [],
    skipped: 1,
    note: undefined,
  },
  {
    rule: 'template claim not created yet (no resourceClaimName in status): no match',
    pods: [aPod({ name: 'early', claims: [{ name: 'gpu', generated: null }] })],
    claims: [],
    evict: [],
    skipped: 1,
    note: undefined,
  },
  {
    rule: 'claim shared by two pods: both reserved, both matched',
    pods: [aPod({ name: 'a', claims: [{ name: 'gpu', claim: 'shared' }] }), aPod({ name: 'b', claims: [{ name: 'gpu', claim: 'shared' }] })],
    claims: [aClaim({ name: 'shared', devices: [GPU0], reservedFor: ['a', 'b'] })],
    evict: ['default/a', 'default/b'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: "claim on another node's pod: a pod here naming it, but not in reservedFor, holds nothing",
    pods: [aPod({ name: 'plain' }), aPod({ name: 'late', claims: [{ name: 'gpu', claim: 'far-gpu' }] })],
    claims: [aClaim({ name: 'far-gpu', devices: ['gpu.nvidia.com/worker-02/gpu-0'], reservedFor: ['far'] })],
    evict: [],
    skipped: 2,
    note: undefined,
  },
  {
    rule: 'same name in another namespace: claims are looked up in the pod namespace only',
    pods: [aPod({ name: 'dra', namespace: 'team-a', claims: [{ name: 'gpu', claim: 'gpu-claim' }] })],
    claims: [aClaim({ name: 'gpu-claim', namespace: 'team-b', devices: [GPU0], reservedFor: ['dra'] })],
    evict: [],
    skipped: 1,
    note: undefined,
  },
  {
    rule: 'a filter that matches nothing: the DRA pod stays and the note names it with its device',
    pods: [aPod({ name: 'dra', claims: [{ name: 'gpu', generated: 'dra-gpu-x7k2p' }] }), aPod({ name: 'plain' })],
    claims: [aClaim({ name: 'dra-gpu-x7k2p', devices: [GPU0], reservedFor: ['dra'] })],
    spec: { ...GPU_ONLY, podEvictionFilters: [{ byResourceNameRegex: 'example.com/fpga' }] },
    evict: [],
    skipped: 2,
    note: 'podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: default/dra (gpu.nvidia.com/worker-01/gpu-0)',
  },
  {
    rule: 'a driver outside the table: nvidia.com/gpu-* does not match gpu.example.com, and the note says so',
    pods: [aPod({ name: 'other', claims: [{ name: 'gpu', claim: 'other-gpu' }] })],
    claims: [aClaim({ name: 'other-gpu', deviceClassName: 'gpu.example.com', devices: ['gpu.example.com/worker-01/gpu-3'], reservedFor: ['other'] })],
    evict: [],
    skipped: 1,
    note: 'podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: default/other (gpu.example.com/worker-01/gpu-3)',
  },
  {
    rule: 'the driver name itself matches a filter (RE2, found anywhere)',
    pods: [aPod({ name: 'other', claims: [{ name: 'gpu', claim: 'other-gpu' }] })],
    claims: [aClaim({ name: 'other-gpu', deviceClassName: 'big-gpus', devices: ['gpu.example.com/worker-01/gpu-3'], reservedFor: ['other'] })],
    spec: { ...GPU_ONLY, podEvictionFilters: [{ byResourceNameRegex: '^gpu\\.example\\.com$' }] },
    evict: ['default/other'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'the device class name matches a filter',
    pods: [aPod({ name: 'other', claims: [{ name: 'gpu', claim: 'other-gpu' }] })],
    claims: [aClaim({ name: 'other-gpu', deviceClassName: 'big-gpus', devices: ['gpu.example.com/worker-01/gpu-3'], reservedFor: ['other'] })],
    spec: { ...GPU_ONLY, podEvictionFilters: [{ byResourceNameRegex: '^big-gpus$' }] },
    evict: ['default/other'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'a configured table: gpu.example.com -> example.com/gpu is matched by example.com/gpu',
    pods: [aPod({ name: 'other', claims: [{ name: 'gpu', claim: 'other-gpu' }] })],
    claims: [aClaim({ name: 'other-gpu', deviceClassName: 'gpu.example.com', devices: ['gpu.example.com/worker-01/gpu-3'], reservedFor: ['other'] })],
    spec: { ...GPU_ONLY, podEvictionFilters: [{ byResourceNameRegex: 'example.com/gpu' }] },
    resourceNames: new Map([['gpu.example.com', ['example.com/gpu']]]),
    evict: ['default/other'],
    skipped: 0,
    note: undefined,
  },
  {
    rule: 'an empty table turns the mapping off: the NVIDIA DRA pod is left, and the note says so',
    pods: [aPod({ name: 'dra', claims: [{ name: 'gpu', claim: 'dra-gpu' }] })],
    claims: [aClaim({ name: 'dra-gpu', devices: [GPU0], reservedFor: ['dra'] })],
    resourceNames: new Map(),
    evict: [],
    skipped: 1,
    note: 'podEvictionFilters match no pod on the node, yet 1 pod holds DRA devices the filters do not match, left running: default/dra (gpu.nvidia.com/worker-01/gpu-0)',
  },
  {
    rule: 'filters that match some pod: no note, even when another pod holds an unmatched device',
    pods: [aPod({ name: 'req', requests: ['nvidia.com/gpu'] }), aPod({ name: 'other', claims: [{ name: 'gpu', claim: 'other-gpu' }] })],
    claims: [aClaim({ name: 'other-gpu', deviceClassName: 'gpu.example.com', devices: ['gpu.example.com/worker-01/gpu-3'], reservedFor: ['other'] })],
    evict: ['default/req'],
    skipped: 1,
    note: undefined,
  },
  {
    rule: 'no filters: every pod is in scope, no note',
    pods: [aPod({ name: 'dra', claims: [{ name: 'gpu', claim: 'dra-gpu' }] }), aPod({ name: 'plain' })],
    claims: [aClaim({ name: 'dra-gpu', devices: [GPU0], reservedFor: ['dra'] })],
    spec: { force: true, deleteEmptyDir: true },
    evict: ['default/dra', 'default/plain'],
    skipped: 0,
    note: undefined,
  },
];

describe('podEvictionFilters with DRA claims', () => {
  it.each(ROWS)('$rule', ({ pods, claims, spec, resourceNames, evict, skipped, note }) => {
    const selection = selectPodsForDrain(pods, spec ?? GPU_ONLY, { dra: view(claims, resourceNames) });
    expect({
      evict: selection.evict.map(podKey),
      skipped: selection.skipped,
      note: selection.draUnmatched === undefined ? undefined : unmatchedDraMessage(selection.draUnmatched),
    }).toEqual({ evict, skipped, note });
  });

  it('without a DRA view (no claims read) a claim-only pod is not matched, as before', () => {
    const pod = aPod({ name: 'dra', claims: [{ name: 'gpu', claim: 'dra-gpu' }] });
    expect(selectPodsForDrain([pod], GPU_ONLY).evict).toEqual([]);
  });
});

describe('devicesHeldBy', () => {
  it('lists every allocated device of every reserved claim, sorted, with the class each was requested by', () => {
    const pod = aPod({ name: 'p', claims: [{ name: 'b', claim: 'claim-b' }, { name: 'a', generated: 'claim-a' }] });
    const claims = indexClaims([
      aClaim({ name: 'claim-b', devices: ['gpu.nvidia.com/worker-01/gpu-1', 'gpu.nvidia.com/worker-01/gpu-0'], reservedFor: ['p'] }),
      aClaim({ name: 'claim-a', deviceClassName: 'nic.example.com', devices: ['nic.example.com/worker-01/nic-0'], reservedFor: ['p'] }),
    ]);
    expect(devicesHeldBy(pod, claims)).toEqual([
      { claim: 'default/claim-a', driver: 'nic.example.com', pool: 'worker-01', device: 'nic-0', deviceClassName: 'nic.example.com' },
      { claim: 'default/claim-b', driver: 'gpu.nvidia.com', pool: 'worker-01', device: 'gpu-0', deviceClassName: 'gpu.nvidia.com' },
      { claim: 'default/claim-b', driver: 'gpu.nvidia.com', pool: 'worker-01', device: 'gpu-1', deviceClassName: 'gpu.nvidia.com' },
    ]);
  });

  it('takes the class of the chosen firstAvailable subrequest ("<request>/<subrequest>")', () => {
    const pod = aPod({ name: 'p', claims: [{ name: 'gpu', claim: 'c' }] });
    const claim: ResourceV1ResourceClaim = {
      metadata: { name: 'c', namespace: 'default' },
      spec: { devices: { requests: [{ name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: 'big-gpus' }, { name: 'small', deviceClassName: 'small-gpus' }] }] } },
      status: { allocation: { devices: { results: [{ request: 'gpu/small', driver: 'gpu.nvidia.com', pool: 'worker-01', device: 'gpu-0' }] } }, reservedFor: [{ resource: 'pods', name: 'p', uid: 'uid-p' }] },
    };
    expect(devicesHeldBy(pod, indexClaims([claim])).map((d) => d.deviceClassName)).toEqual(['small-gpus']);
  });

  it('reads a resource.k8s.io/v1beta1 claim (Kubernetes 1.32, 1.33): the class sits on the request, not under exactly', () => {
    const pod = aPod({ name: 'p', claims: [{ name: 'gpu', claim: 'c' }] });
    // As the API server serves it at v1beta1: the v1 client type has no request-level deviceClassName.
    const claim = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c', namespace: 'default' },
      spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'big-gpus', allocationMode: 'ExactCount', count: 1 }] } },
      status: { allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'worker-01', device: 'gpu-0' }] } }, reservedFor: [{ resource: 'pods', name: 'p', uid: 'uid-p' }] },
    } as unknown as ResourceV1ResourceClaim;
    expect(devicesHeldBy(pod, indexClaims([claim]))).toEqual([{ claim: 'default/c', driver: 'gpu.example.com', pool: 'worker-01', device: 'gpu-0', deviceClassName: 'big-gpus' }]);
    // So a filter on the class matches the pod, as it does at v1.
    const selection = selectPodsForDrain([pod], { force: true, podEvictionFilters: [{ byResourceNameRegex: '^big-gpus$' }] }, { dra: { claims: indexClaims([claim]), resourceNames: new Map() } });
    expect(selection.evict.map(podKey)).toEqual(['default/p']);
  });
});

describe('unreadableClaimsMessage', () => {
  it('names the problem and the first three pods that reference claims, sorted, and counts the rest', () => {
    const pods = ['d', 'a', 'c', 'b'].map((name) => aPod({ name, claims: [{ name: 'gpu', claim: `${name}-gpu` }] })).concat(aPod({ name: 'plain' }));
    expect(unreadableClaimsMessage('HTTP 403: forbidden', pods)).toBe(
      'waiting to drain: cannot read DRA ResourceClaims (HTTP 403: forbidden), and podEvictionFilters must see the DRA devices of default/a, default/b, default/c and 1 more; nothing is evicted until they can be read',
    );
  });
});

describe('deviceResourceNames', () => {
  it.each([
    ['NVIDIA DRA GPU: driver, class (the same name once), mapped name', 'gpu.nvidia.com', 'gpu.nvidia.com', ['gpu.nvidia.com', 'nvidia.com/gpu']],
    ['a driver outside the table: driver and class only', 'gpu.example.com', 'big-gpus', ['gpu.example.com', 'big-gpus']],
  ])('%s', (_rule, driver, deviceClassName, names) => {
    expect(deviceResourceNames({ claim: 'default/c', driver, pool: 'p', device: 'd', deviceClassName }, DEFAULT_TABLE)).toEqual(names);
  });
});

describe('unmatchedDraMessage', () => {
  it('shows three pods and two devices each at most, and counts the rest', () => {
    const holders = ['a', 'b', 'c', 'd'].map((name) => ({
      pod: aPod({ name }),
      devices: ['gpu-0', 'gpu-1', 'gpu-2'].map((device) => ({ claim: `default/${name}`, driver: 'gpu.nvidia.com', pool: 'n1', device, deviceClassName: 'gpu.nvidia.com' })),
    }));
    const each = '(gpu.nvidia.com/n1/gpu-0, gpu.nvidia.com/n1/gpu-1 and 1 more)';
    expect(unmatchedDraMessage(holders)).toBe(
      `podEvictionFilters match no pod on the node, yet 4 pods hold DRA devices the filters do not match, left running: default/a ${each}, default/b ${each}, default/c ${each} and 1 more`,
    );
  });
});
