// Gangs across passes and scopes (issues 30, 31): a gang partly admitted by an earlier pass (one member's status write
// failed) completes before anything else starts; a request label's gang is scoped by namespace; a gang by node label
// binds one requestor's requests in one namespace and never the requests kmaint files itself.
import { describe } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_GANG_SIZE, CLOUD_EVENTS_REQUESTOR, LABEL_CLOUD_EVENT, LABEL_GANG, LABEL_REAPER, REAPER_REQUESTOR, cloudEventRequestName, reapRequestName } from '#api';
import type { NodeMaintenance } from '#api';
import { KMAINT_NAMESPACE, aNode, itPlansEachRow, limits, pending, someNodes, withAdmission } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const NEVER_RESERVE = { gangReserveAfterSeconds: 2_000_000_000 };
/** The clique rules of issues 21 and 30 without issue 40's timeout: an incomplete clique gang waits for its other nodes. */
const NEVER_INCOMPLETE = { gangIncompleteAdmitAfterSeconds: 2_000_000_000 };

const member = (name: string, node: string, day: number, more: { phase?: string; namespace?: string; size?: number } = {}): NodeMaintenance =>
  pending(name, node, day, {
    labels: { [LABEL_GANG]: 'train' },
    ...(more.phase !== undefined ? { phase: more.phase } : {}),
    ...(more.namespace !== undefined ? { namespace: more.namespace } : {}),
    ...(more.size !== undefined ? { annotations: { [ANNOTATION_GANG_SIZE]: String(more.size) } } : {}),
  });
const busy = pending('busy', 'node-06', 1, { phase: 'Draining', requestorID: 'other' });
/** Older than the gang and with a deadline at risk: without the rule it would go first. */
const urgent = pending('urgent', 'node-04', 1, { requestorID: 'cloud', annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T00:10:00Z' } });
/** The request the reaper files for `node`, as it files it: kmaint's namespace, its name, label and requestorID. */
const reapRequest = (node: string, day: number): NodeMaintenance =>
  pending(reapRequestName(node), node, day, { namespace: KMAINT_NAMESPACE, requestorID: REAPER_REQUESTOR, labels: { [LABEL_REAPER]: 'true' } });
const clique = (): ReturnType<typeof aNode>[] => [...['tray-1', 'tray-2', 'tray-3'].map((name) => aNode({ name, labels: { [CLIQUE]: 'uuid.1' } })), aNode({ name: 'cpu' })];

const partial: PlanRow[] = [
  {
    rule: 'partly admitted (g1, g2 Scheduled; g3 still Pending): g3 is admitted first, counted with its whole gang of 3, before an older single with a deadline at risk',
    nodes: someNodes(6),
    maintenances: [urgent, member('g1', 'node-01', 2, { phase: 'Scheduled' }), member('g2', 'node-02', 3, { phase: 'Scheduled' }), member('g3', 'node-03', 4), busy],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/g3': 'admitted: slot 4 of 4, with gang train (3 requests)' },
    waiting: { 'default/urgent': 'maxParallelOperations 4 reached (4 in progress)' },
    blocked: true,
  },
  {
    rule: 'partly admitted and the rest does not fit now: it holds freed slots at once (no gangReserveAfterSeconds), so the single behind it waits',
    nodes: someNodes(6),
    maintenances: [urgent, member('g1', 'node-01', 2, { phase: 'Scheduled' }), member('g2', 'node-02', 3, { phase: 'Scheduled' }), member('g3', 'node-03', 4), busy, pending('s2', 'node-05', 1)],
    limits: withAdmission(limits(3, 'unlimited'), NEVER_RESERVE),
    admitted: {},
    waiting: {
      'default/g3': 'gang train (3 requests) has 2 admitted and completes before anything else starts: maxParallelOperations 3 reached (3 in progress)',
      'default/s2': 'freed slots are held for gang train, waiting since 2025-12-04T00:00:00Z',
      'default/urgent': 'freed slots are held for gang train, waiting since 2025-12-04T00:00:00Z',
    },
    blocked: true,
  },
];

const nodeTaken: PlanRow[] = [
  {
    rule: "a member whose node's other request is admitted this pass reads as the next pass will see it: in progress, not ranked first",
    nodes: someNodes(2),
    maintenances: [member('g1', 'node-01', 2), member('g2', 'node-02', 3), pending('s1', 'node-01', 4, { annotations: { [ANNOTATION_DEADLINE]: '2026-01-01T00:00:00Z' } })],
    limits: withAdmission(limits(1, 'unlimited'), NEVER_RESERVE),
    admitted: { 'default/s1': 'admitted: slot 1 of 1' },
    waiting: {
      'default/g1': 'another request for node node-01 is in progress (default/s1)',
      'default/g2': 'gang train (2 requests) cannot start: request default/g1 waits: another request for node node-01 is in progress (default/s1)',
    },
    blocked: true,
  },
];

const namespaces: PlanRow[] = [
  {
    rule: 'the same kmaint.io/gang in another namespace with a conflicting size is another gang: this one starts',
    nodes: someNodes(6),
    maintenances: [
      member('a1', 'node-01', 2, { namespace: 'team-a', size: 2 }),
      member('a2', 'node-02', 3, { namespace: 'team-a', size: 2 }),
      member('b1', 'node-03', 4, { namespace: 'team-b', size: 3 }),
    ],
    limits: withAdmission(limits(4, 'unlimited'), NEVER_RESERVE),
    admitted: { 'team-a/a1': 'admitted: slot 1 of 4, with gang train (2 requests)', 'team-a/a2': 'admitted: slot 2 of 4, with gang train (2 requests)' },
    waiting: { 'team-b/b1': 'gang train (1 requests) cannot start: 2 of its 3 requests missing (kmaint.io/gang-size 3, 1 found)' },
    blocked: true,
  },
];

const nodeLabel: PlanRow[] = [
  // Issue 40: kmaint's own requests are known by where and by whom they were made, never by requestorID alone.
  {
    rule: "a requestor's copy of the reaper's request (requestorID, label, name) in its own namespace is bound to its clique like any request",
    nodes: clique(),
    maintenances: [pending(reapRequestName('tray-1'), 'tray-1', 2, { requestorID: REAPER_REQUESTOR, labels: { [LABEL_REAPER]: 'true' } })],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: {},
    waiting: { 'default/reap-tray-1': 'gang nvidia.com/gpu.clique=uuid.1 (1 requests) cannot start: node tray-2 of the gang has no request; node tray-3 of the gang has no request' },
    blocked: true,
  },
  {
    rule: "a request in kmaint's namespace with the reaper's requestorID and label but not the name the reaper computes is bound to its clique",
    nodes: clique(),
    maintenances: [pending('reap-tray-2', 'tray-1', 2, { namespace: KMAINT_NAMESPACE, requestorID: REAPER_REQUESTOR, labels: { [LABEL_REAPER]: 'true' } })],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: {},
    waiting: { 'kmaint/reap-tray-2': 'gang nvidia.com/gpu.clique=uuid.1 (1 requests) cannot start: node tray-2 of the gang has no request; node tray-3 of the gang has no request' },
    blocked: true,
  },
  {
    rule: 'a cloud-event request on one node of a clique is a single: it starts without the other nodes',
    nodes: clique(),
    maintenances: [pending(cloudEventRequestName('tray-1'), 'tray-1', 2, { namespace: KMAINT_NAMESPACE, requestorID: CLOUD_EVENTS_REQUESTOR, labels: { [LABEL_CLOUD_EVENT]: 'true' } })],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: { 'kmaint/cloud-event-tray-1': 'admitted: slot 1 of 4' },
    waiting: {},
    blocked: false,
  },
  {
    rule: "a reaper request does not complete another requestor's clique gang, and is a single itself",
    nodes: clique(),
    maintenances: [pending('u1', 'tray-1', 2, { requestorID: 'upgrader' }), pending('u2', 'tray-2', 3, { requestorID: 'upgrader' }), reapRequest('tray-3', 4)],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: { 'kmaint/reap-tray-3': 'admitted: slot 1 of 4' },
    waiting: {
      'default/u1': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
      'default/u2': 'gang nvidia.com/gpu.clique=uuid.1 (2 requests) cannot start: node tray-3 of the gang has no request',
    },
    blocked: true,
  },
  {
    rule: "one requestor's requests on every node of a clique start together; on a one-node clique another requestor's request is its own gang (fewer pending: first)",
    nodes: [...clique(), aNode({ name: 'tray-4', labels: { [CLIQUE]: 'uuid.2' } })],
    maintenances: [
      pending('u1', 'tray-1', 2, { requestorID: 'upgrader' }),
      pending('u2', 'tray-2', 3, { requestorID: 'upgrader' }),
      pending('u3', 'tray-3', 4, { requestorID: 'upgrader' }),
      pending('f4', 'tray-4', 5, { requestorID: 'firmware' }),
      pending('f4b', 'tray-4', 6, { requestorID: 'upgrader', namespace: 'other' }),
    ],
    limits: withAdmission(limits(4, 'unlimited'), { gangNodeLabel: CLIQUE, ...NEVER_RESERVE, ...NEVER_INCOMPLETE }),
    admitted: {
      'default/f4': 'admitted: slot 1 of 4, with gang nvidia.com/gpu.clique=uuid.2 (1 requests)',
      'default/u1': 'admitted: slot 2 of 4, with gang nvidia.com/gpu.clique=uuid.1 (3 requests)',
      'default/u2': 'admitted: slot 3 of 4, with gang nvidia.com/gpu.clique=uuid.1 (3 requests)',
      'default/u3': 'admitted: slot 4 of 4, with gang nvidia.com/gpu.clique=uuid.1 (3 requests)',
    },
    waiting: { 'other/f4b': 'another request for node tray-4 is in progress (default/f4)' },
    blocked: false,
  },
];

describe('a partly admitted gang completes first (issue 30)', () => {
  itPlansEachRow(partial);
});
describe("a gang member's node taken by this pass's admission", () => {
  itPlansEachRow(nodeTaken);
});
describe('gangs by request label are scoped by namespace (issue 31)', () => {
  itPlansEachRow(namespaces);
});
describe('gangs by node label bind one requestor, never kmaint itself (issue 30)', () => {
  itPlansEachRow(nodeLabel);
});
