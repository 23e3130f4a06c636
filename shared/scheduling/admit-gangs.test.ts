// Gang admission (issue 21) as tables: a gang is admitted whole in one pass under every limit or not at all, reports
// what keeps it out, and holds freed slots only once it has waited gangReserveAfterSeconds. Each row also passes twice.
import { describe } from 'vitest';
import { ANNOTATION_GANG_SIZE, LABEL_GANG } from '#api';
import type { NodeMaintenance } from '#api';
import { aNode, aPoolNode, itPlansEachRow, limits, pending, POOL, withAdmission } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

const A = 'us-east-1a';
const B = 'us-east-1b';
const CLIQUE = 'nvidia.com/gpu.clique';
/** Longer than any row's wait: gangs do not hold slots unless a row says so. */
const NEVER_RESERVE = { gangReserveAfterSeconds: 2_000_000_000 };
/** The clique rules of issues 21 and 30 without issue 40's timeout: an incomplete clique gang waits for its other nodes. */
const NEVER_INCOMPLETE = { gangIncompleteAdmitAfterSeconds: 2_000_000_000 };

/** cpu-1..3 and gpu-1, gpu-3 in zone a; cpu-4, gpu-2 in zone b; pools general and gpu. */
function cluster(cordoned: string[] = []): ReturnType<typeof aPoolNode>[] {
  const layout: Array<[string, string, string]> = [
    ['cpu-1', 'general', A],
    ['cpu-2', 'general', A],
    ['cpu-3', 'general', A],
    ['cpu-4', 'general', B],
    ['gpu-1', 'gpu', A],
    ['gpu-2', 'gpu', B],
    ['gpu-3', 'gpu', A],
  ];
  return layout.map(([name, pool, zone]) => aPoolNode(name, pool, zone, { unschedulable: cordoned.includes(name) }));
}

/** A request of gang `gang` created on day `day` of December 2025. */
const member = (gang: string, name: string, node: string, day: number, more: { size?: number; deleting?: boolean } = {}): NodeMaintenance =>
  pending(name, node, day, {
    labels: { [LABEL_GANG]: gang },
    ...(more.size !== undefined ? { annotations: { [ANNOTATION_GANG_SIZE]: String(more.size) } } : {}),
    ...(more.deleting === true ? { deleting: true } : {}),
  });

const gpuPool = { name: 'gpu', nodeSelector: { matchLabels: { [POOL]: 'gpu' } }, maxUnavailable: 2 };
const inProgress = (name: string, node: string): NodeMaintenance => pending(name, node, 1, { phase: 'Draining', requestorID: 'other' });

const rows: PlanRow[] = [
  {
    rule: 'fits: all three requests of the gang are admitted in one pass, each message naming the gang',
    nodes: cluster(),
    maintenances: [member('train', 'g1', 'cpu-1', 2), member('train', 'g2', 'cpu-2', 3), member('train', 'g3', 'cpu-3', 4), pending('s1', 'cpu-4', 5)],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: {
      'default/g1': 'admitted: slot 1 of 4, with gang train (3 requests)',
      'default/g2': 'admitted: slot 2 of 4, with gang train (3 requests)',
      'default/g3': 'admitted: slot 3 of 4, with gang train (3 requests)',
      'default/s1': 'admitted: slot 4 of 4',
    },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'does not fit: none of the gang starts, and a single ranked after it takes the free slot (the gang has not waited long enough to hold slots)',
    nodes: cluster(),
    maintenances: [inProgress('busy', 'gpu-1'), member('train', 'g1', 'cpu-1', 2), member('train', 'g2', 'cpu-2', 3), member('train', 'g3', 'cpu-3', 4), pending('s1', 'cpu-4', 5)],
    limits: withAdmission(limits(3, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/s1': 'admitted: slot 2 of 3' },
    waiting: {
      'default/g1': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 1 of its members, at default/g2',
      'default/g2': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 1 of its members, at default/g2',
      'default/g3': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 1 of its members, at default/g2',
    },
    blocked: true,
  },
  {
    rule: 'does not fit, waited gangReserveAfterSeconds: the gang holds freed slots and the single behind it waits for the gang',
    nodes: cluster(),
    maintenances: [inProgress('busy', 'gpu-1'), member('train', 'g1', 'cpu-1', 2), member('train', 'g2', 'cpu-2', 3), member('train', 'g3', 'cpu-3', 4), pending('s1', 'cpu-4', 5)],
    limits: withAdmission(limits(3, 'unlimited'), { gangReserveAfterSeconds: 600 }),
    admitted: {},
    waiting: {
      'default/g1': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 2 of its members, at default/g3',
      'default/g2': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 2 of its members, at default/g3',
      'default/g3': 'gang train (3 requests) starts all at once or not at all: maxParallelOperations 3 reached (3 in progress) counting 2 of its members, at default/g3',
      'default/s1': 'freed slots are held for gang train, waiting since 2025-12-02T00:00:00Z',
    },
    blocked: true,
  },
  {
    rule: 'larger than the limit: reported, never partially admitted, holds no slots, and the single behind it starts',
    nodes: cluster(),
    maintenances: [member('train', 'g1', 'cpu-1', 2), member('train', 'g2', 'cpu-2', 3), member('train', 'g3', 'cpu-3', 4), pending('s1', 'cpu-4', 5)],
    limits: withAdmission(limits(2, 'unlimited'), { gangReserveAfterSeconds: 0 }),
    admitted: { 'default/s1': 'admitted: slot 1 of 2' },
    waiting: {
      'default/g1':
        'gang train (3 requests) is larger than a limit and is never partially admitted: with only its own requests in maintenance, maxParallelOperations 2 reached (2 in progress)',
      'default/g2':
        'gang train (3 requests) is larger than a limit and is never partially admitted: with only its own requests in maintenance, maxParallelOperations 2 reached (2 in progress)',
      'default/g3':
        'gang train (3 requests) is larger than a limit and is never partially admitted: with only its own requests in maintenance, maxParallelOperations 2 reached (2 in progress)',
    },
    blocked: true,
  },
  {
    rule: 'mixed with singles under a pool and a zone limit: the older single in zone a leaves no room for the gang, later singles elsewhere start',
    nodes: cluster(),
    maintenances: [pending('s-cpu1', 'cpu-1', 1), member('gpus', 'g1', 'gpu-1', 2), member('gpus', 'g3', 'gpu-3', 3), pending('s-cpu4', 'cpu-4', 4), pending('s-gpu2', 'gpu-2', 5)],
    limits: withAdmission(limits(10, 'unlimited'), { pools: [gpuPool], maxUnavailablePerZone: 2, ...NEVER_RESERVE }),
    admitted: { 'default/s-cpu1': 'admitted: slot 1 of 10', 'default/s-cpu4': 'admitted: slot 2 of 10', 'default/s-gpu2': 'admitted: slot 3 of 10' },
    waiting: {
      'default/g1':
        'gang gpus (2 requests) starts all at once or not at all: pool gpu: maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready) counting 1 of its members, at default/g3',
      'default/g3':
        'gang gpus (2 requests) starts all at once or not at all: pool gpu: maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready) counting 1 of its members, at default/g3',
    },
    blocked: true,
  },
  {
    rule: 'mixed with singles under a pool and a zone limit: a gang that has waited holds the zone and pool for itself, the singles after it wait',
    nodes: cluster(),
    maintenances: [pending('s-cpu1', 'cpu-1', 1), member('gpus', 'g1', 'gpu-1', 2), member('gpus', 'g3', 'gpu-3', 3), pending('s-cpu4', 'cpu-4', 4), pending('s-gpu2', 'gpu-2', 5)],
    limits: withAdmission(limits(10, 'unlimited'), { pools: [gpuPool], maxUnavailablePerZone: 2, gangReserveAfterSeconds: 600 }),
    admitted: { 'default/s-cpu1': 'admitted: slot 1 of 10' },
    waiting: {
      'default/g1':
        'gang gpus (2 requests) starts all at once or not at all: zone us-east-1a: maxUnavailablePerZone 2 reached (2 under maintenance + 0 cordoned or not ready) counting 1 of its members, at default/g3',
      'default/g3':
        'gang gpus (2 requests) starts all at once or not at all: zone us-east-1a: maxUnavailablePerZone 2 reached (2 under maintenance + 0 cordoned or not ready) counting 1 of its members, at default/g3',
      'default/s-cpu4': 'freed slots are held for gang gpus, waiting since 2025-12-02T00:00:00Z',
      'default/s-gpu2': 'freed slots are held for gang gpus, waiting since 2025-12-02T00:00:00Z',
    },
    blocked: true,
  },
  {
    rule: 'one member missing (kmaint.io/gang-size 3, two requests): the gang is reported and none starts',
    nodes: cluster(),
    maintenances: [member('train', 'g1', 'cpu-1', 2, { size: 3 }), member('train', 'g2', 'cpu-2', 3, { size: 3 }), pending('s1', 'cpu-4', 5)],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/s1': 'admitted: slot 1 of 4' },
    waiting: {
      'default/g1': 'gang train (2 requests) cannot start: 1 of its 3 requests missing (kmaint.io/gang-size 3, 2 found)',
      'default/g2': 'gang train (2 requests) cannot start: 1 of its 3 requests missing (kmaint.io/gang-size 3, 2 found)',
    },
    blocked: true,
  },
  {
    rule: 'one member deleted before the gang started: the others are reported and none starts',
    nodes: cluster(),
    maintenances: [member('train', 'g1', 'cpu-1', 2, { size: 3 }), member('train', 'g2', 'cpu-2', 3, { size: 3, deleting: true }), member('train', 'g3', 'cpu-3', 4, { size: 3 })],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: {},
    waiting: {
      'default/g1': 'gang train (2 requests) cannot start: request default/g2 was deleted before the gang started; 1 of its 3 requests missing (kmaint.io/gang-size 3, 2 found)',
      'default/g3': 'gang train (2 requests) cannot start: request default/g2 was deleted before the gang started; 1 of its 3 requests missing (kmaint.io/gang-size 3, 2 found)',
    },
    blocked: true,
  },
  {
    rule: 'gang by node label (NVLink clique): a node of the clique without a request keeps the others from starting',
    nodes: [aNode({ name: 'tray-1', labels: { [CLIQUE]: 'uuid.1' } }), aNode({ name: 'tray-2', labels: { [CLIQUE]: 'uuid.1' } }), aNode({ name: 'tray-3', labels: { [CLIQUE]: 'uuid.1' } }), aNode({ name: 'cpu' })],
    maintenances: [pending('t1', 'tray-1', 2), pending('t2', 'tray-2', 3), pending('c', 'cpu', 4)],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: { 'default/c': 'admitted: slot 1 of 4' },
    waiting: {
      'default/t1': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
      'default/t2': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
    },
    blocked: true,
  },
  {
    rule: "one member's node already unavailable: it takes a slot but no availability budget, so the gang fits maxUnavailable 2",
    nodes: cluster(['cpu-1']),
    maintenances: [member('train', 'g1', 'cpu-1', 2), member('train', 'g2', 'cpu-2', 3), pending('s1', 'cpu-3', 4)],
    limits: withAdmission(limits(4, 2), NEVER_RESERVE),
    admitted: {
      'default/g1': 'admitted: slot 1 of 4, node already unavailable, with gang train (2 requests)',
      'default/g2': 'admitted: slot 2 of 4, unavailable 2 of 2, with gang train (2 requests)',
    },
    waiting: { 'default/s1': 'maxUnavailable 2 reached (2 under maintenance + 0 cordoned or not ready)' },
    blocked: true,
  },
];

describe('gang admission (issue 21)', () => {
  itPlansEachRow(rows);
});
