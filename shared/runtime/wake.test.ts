import { describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_DESIRED_STATE, ANNOTATION_DRAIN_START, ANNOTATION_READY_TIME, ANNOTATION_RELEASED_AT, ANNOTATION_WAIT_POD_COMPLETION_START } from '../api/index.ts';
import type { MaintenanceOperatorConfig, NodeMaintenance } from '../api/index.ts';
import type { ListedVersion } from '../kube/index.ts';
import { loadConfig, type BaseSnapshot } from '../pass/index.ts';
import { aLifecycleMaintenance } from '../lifecycle/test-builders.ts';
import { aNode } from '../scheduling/test-builders.ts';
import { MAX_WATCH_TARGETS, planWake, wokenRoundDelayMs, type WakePlan } from './wake.ts';

const NOW_MS = Date.parse('2026-01-01T00:00:00Z');
const MAX_WAIT = 25_000;

const listed = (resource: string, extra: Partial<ListedVersion> = {}): ListedVersion => ({ resource, path: `/x/${resource}`, resourceVersion: '7', seq: 1, ...extra });
const NMS = listed('nodemaintenances');
const PODS = listed('pods', { fieldSelector: 'spec.nodeName=node-1' });
const PDBS = listed('poddisruptionbudgets');
const NODES = listed('nodes');

function base(opts: { maintenances?: NodeMaintenance[]; nodes?: V1Node[]; spec?: Record<string, unknown> } = {}): BaseSnapshot {
  const nodeList = opts.nodes ?? [aNode({ name: 'node-1' })];
  const config = opts.spec ? ({ metadata: { name: 'default', namespace: 'kmaint' }, spec: opts.spec } as unknown as MaintenanceOperatorConfig) : undefined;
  return { nodes: new Map(nodeList.map((n) => [n.metadata?.name ?? '', n])), nodeList, maintenances: opts.maintenances ?? [], malformed: [], rawConfig: config };
}

const draining = (annotations: Record<string, string>, timeoutSeconds: number): NodeMaintenance =>
  aLifecycleMaintenance({ name: 'nm-1', nodeName: 'node-1', phase: 'Draining', annotations, spec: { drainSpec: { timeoutSeconds } } });

interface Row {
  rule: string;
  base: BaseSnapshot | undefined;
  listed?: ListedVersion[];
  medik8sSeen?: boolean;
  expected: WakePlan;
}

const rows: Row[] = [
  {
    rule: 'pods being drained and a budget: watch requests, pods and budgets (not nodes: they heartbeat), until the longest wait',
    base: base({ maintenances: [draining({}, 0)] }),
    expected: { kind: 'watch', targets: [NMS, PODS, PDBS], atMs: NOW_MS + MAX_WAIT },
  },
  {
    rule: 'a drain window closing sooner: wake one second after it closes',
    base: base({ maintenances: [draining({ [ANNOTATION_DRAIN_START]: '2025-12-31T23:59:50Z' }, 15)] }),
    expected: { kind: 'watch', targets: [NMS, PODS, PDBS], atMs: NOW_MS + 6_000 },
  },
  {
    rule: 'a window that closed already is not a timer (the round acted on it, or it would spin)',
    base: base({ maintenances: [draining({ [ANNOTATION_DRAIN_START]: '2025-12-31T23:00:00Z' }, 15)] }),
    expected: { kind: 'watch', targets: [NMS, PODS, PDBS], atMs: NOW_MS + MAX_WAIT },
  },
  {
    rule: 'a wait for pods with a timeout: its end',
    base: base({
      maintenances: [
        aLifecycleMaintenance({
          name: 'nm-1',
          nodeName: 'node-1',
          phase: 'WaitForPodCompletion',
          annotations: { [ANNOTATION_WAIT_POD_COMPLETION_START]: '2025-12-31T23:59:59Z' },
          spec: { waitForPodCompletion: { podSelector: 'app=job', timeoutSeconds: 10 } },
        }),
      ],
    }),
    expected: { kind: 'watch', targets: [NMS, PODS, PDBS], atMs: NOW_MS + 10_000 },
  },
  {
    rule: 'a Ready request: garbage collection after maxNodeMaintenanceTimeSeconds',
    base: base({ maintenances: [aLifecycleMaintenance({ name: 'nm-1', nodeName: 'node-1', phase: 'Ready', annotations: { [ANNOTATION_READY_TIME]: '2025-12-31T23:59:58Z' } })], spec: { maxNodeMaintenanceTimeSeconds: 5 } }),
    listed: [NMS],
    expected: { kind: 'watch', targets: [NMS], atMs: NOW_MS + 4_000 },
  },
  {
    rule: 'a released request held for spec.releaseDelaySeconds: one second after the delay ends (cleanup lets it go, the scheduler admits)',
    base: base({ maintenances: [aLifecycleMaintenance({ name: 'nm-1', nodeName: 'node-1', phase: 'Ready', deleting: true, annotations: { [ANNOTATION_RELEASED_AT]: '2025-12-31T23:59:50Z' } })], spec: { releaseDelaySeconds: 15 } }),
    listed: [NMS],
    expected: { kind: 'watch', targets: [NMS], atMs: NOW_MS + 6_000 },
  },
  {
    rule: 'the same record with the delay off: no timer',
    base: base({ maintenances: [aLifecycleMaintenance({ name: 'nm-1', nodeName: 'node-1', phase: 'Ready', deleting: true, annotations: { [ANNOTATION_RELEASED_AT]: '2025-12-31T23:59:50Z' } })] }),
    listed: [NMS],
    expected: { kind: 'watch', targets: [NMS], atMs: NOW_MS + MAX_WAIT },
  },
  { rule: 'nothing read: poll', base: undefined, expected: { kind: 'poll', why: 'nothing read this round' } },
  { rule: 'medik8s node leases read: poll', base: base(), medik8sSeen: true, expected: { kind: 'poll', why: 'medik8s node leases are read' } },
  {
    rule: 'spec.slurm set: poll',
    base: base({ spec: { slurm: { enabled: true, url: 'http://slurm:6820', tokenEnv: 'SLURM_JWT' } } }),
    expected: { kind: 'poll', why: 'spec.slurm is set (slurmrestd cannot be watched)' },
  },
  {
    rule: 'spec.slurm token-free (Slinky pod conditions): poll, saying why',
    base: base({ spec: { slurm: { enabled: true, mode: 'pod', podSelector: 'app.kubernetes.io/name=slurmd' } } }),
    expected: { kind: 'poll', why: "spec.slurm is set (token-free: Slinky's pod conditions are read with the drain's pods, not watched)" },
  },
  { rule: 'the reaper on: poll', base: base({ spec: { reaper: { enabled: true } } }), expected: { kind: 'poll', why: 'the reaper reads node health' } },
  { rule: 'cloud scheduled events on: poll (EC2 cannot be watched)', base: base({ spec: { cloudEvents: { enabled: true } } }), expected: { kind: 'poll', why: 'spec.cloudEvents is on (cloud scheduled events cannot be watched)' } },
  {
    rule: 'a handshake in progress on a node: poll',
    base: base({ nodes: [{ ...aNode({ name: 'node-1' }), metadata: { name: 'node-1', annotations: { [ANNOTATION_DESIRED_STATE]: 'Drain_Required' } } }] }),
    expected: { kind: 'poll', why: 'a node-annotation handshake is in progress' },
  },
  {
    rule: 'a node back to Idle is no handshake in progress',
    base: base({ nodes: [{ ...aNode({ name: 'node-1' }), metadata: { name: 'node-1', annotations: { [ANNOTATION_DESIRED_STATE]: 'Idle' } } }] }),
    listed: [NMS],
    expected: { kind: 'watch', targets: [NMS], atMs: NOW_MS + MAX_WAIT },
  },
  { rule: 'a LIST that is not watched (leases): poll', base: base(), listed: [NMS, listed('leases')], expected: { kind: 'poll', why: 'the round read something that is not watched' } },
  { rule: 'no NodeMaintenance LIST this round: poll', base: base(), listed: [PODS], expected: { kind: 'poll', why: 'no NodeMaintenance LIST to watch from' } },
  {
    rule: 'too many LISTs: poll',
    base: base(),
    listed: [NMS, ...Array.from({ length: MAX_WATCH_TARGETS }, (_, i) => listed('pods', { fieldSelector: `spec.nodeName=node-${i}` }))],
    expected: { kind: 'poll', why: `more than ${MAX_WATCH_TARGETS} LISTs to watch` },
  },
];

describe('planWake', () => {
  it.each(rows)('$rule', (row) => {
    const read = row.base ? { base: row.base, config: loadConfig(row.base, row.base.nodeCount ?? row.base.nodeList.length, 'kmaint') } : undefined;
    expect(planWake({ read, listed: row.listed ?? [NODES, NMS, PODS, PDBS], medik8sSeen: row.medik8sSeen ?? false, nowMs: NOW_MS, maxWaitMs: MAX_WAIT })).toEqual(row.expected);
  });
});

describe('wokenRoundDelayMs', () => {
  it.each<[string, number, number, number, number]>([
    ['a change right after the round waits out the poll interval', 250, 1000, 100, 900],
    ['a change late in the interval waits only the settle time', 250, 1000, 900, 250],
    ['a change after the interval waits the settle time', 250, 1000, 5000, 250],
    ['the first backoff step (500 ms), change at once', 250, 500, 0, 500],
    ['no settle time, interval already spent', 0, 500, 800, 0],
  ])('%s', (_name, settle, interval, since, expected) => {
    expect(wokenRoundDelayMs(settle, interval, since)).toBe(expected);
  });
});
