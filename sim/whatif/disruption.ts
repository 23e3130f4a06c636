// The what-if's disruption controller: keeps every PodDisruptionBudget's status as kube-controller-manager would
// (the sim controllers' pure nextPdbStatus), recomputing only the budgets whose pods changed.
import type { V1PodDisruptionBudget, V1ReplicaSet, V1StatefulSet } from '@kubernetes/client-node';
import { labelSelectorFromObject, matchesLabels, type LabelSelector, type LabelSelectorObject } from '../../shared/selectors/index.ts';
import type { JsonObject, SimContext } from '../apiserver/index.ts';
import { frozenObject } from '../apiserver/store.ts';
import { buildScaleIndex, nextPdbStatus, type ScaleIndex } from '../controllers/disruption.ts';
import { isReady, isTerminating } from '../controllers/pod-facts.ts';
import { BudgetMembers, memberPdbStatus } from './budget-members.ts';
import { podView, type PodRecord } from './pod-record.ts';
import type { Controller } from './workloads.ts';


interface Budget {
  key: string;
  namespace: string;
  name: string;
  /** undefined: a nil or unreadable selector, which selects nothing. */
  selector: LabelSelector | undefined;
  /** metadata.generation when the selector was read: the members are the selected pods while it holds. */
  generation: number;
  members: BudgetMembers<PodRecord>;
}

export class WhatIfDisruption {
  private readonly budgets = new Map<string, Budget>();
  private readonly byNamespace = new Map<string, Budget[]>();
  /** Pod key -> the budgets selecting it (labels do not change on the what-if's pods). */
  private readonly podBudgets = new Map<string, Budget[]>();
  private readonly dirty = new Set<string>();
  private scale: ScaleIndex = buildScaleIndex({ replicaSets: [], deployments: [], statefulSets: [] });

  constructor(
    private readonly ctx: SimContext,
    private readonly now: () => Date,
  ) {}

  /** Scale of the controllers, for percentage and maxUnavailable budgets. */
  setControllers(controllers: readonly Controller[]): void {
    const meta = (c: Controller) => ({ name: c.name, namespace: c.namespace, uid: c.uid });
    this.scale = buildScaleIndex({
      replicaSets: controllers.filter((c) => c.kind !== 'StatefulSet').map((c): V1ReplicaSet => ({ metadata: meta(c), spec: { replicas: c.replicas, selector: {} } })),
      deployments: [],
      statefulSets: controllers.filter((c) => c.kind === 'StatefulSet').map((c): V1StatefulSet => ({ metadata: meta(c), spec: { replicas: c.replicas, selector: {}, serviceName: c.name, template: {} } })),
    });
  }

  addBudget(pdb: JsonObject): void {
    const b = pdb as unknown as V1PodDisruptionBudget;
    const namespace = b.metadata?.namespace ?? '';
    const name = b.metadata?.name ?? '';
    const sel = b.spec?.selector;
    const parsed = sel === undefined || sel === null ? undefined : labelSelectorFromObject(sel as LabelSelectorObject);
    const budget: Budget = { key: `${namespace}/${name}`, namespace, name, selector: parsed?.ok ? parsed.selector : undefined, generation: b.metadata?.generation ?? 0, members: new BudgetMembers() };
    this.budgets.set(budget.key, budget);
    this.byNamespace.set(namespace, [...(this.byNamespace.get(namespace) ?? []), budget]);
    this.dirty.add(budget.key);
  }

  /** Budgets whose stored status allows no disruption now, by key. */
  private readonly blocked = new Set<string>();

  /** A budget was written (by us or by an eviction): remember whether it allows any disruption. */
  noteStatus(pdb: JsonObject, gone: boolean): void {
    const b = pdb as unknown as V1PodDisruptionBudget;
    const key = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
    if (!gone && (b.status?.disruptionsAllowed ?? 0) <= 0) this.blocked.add(key);
    else this.blocked.delete(key);
  }

  /** The pod is selected by a budget that allows no disruption. */
  inBlockedBudget(podKey: string): boolean {
    return (this.podBudgets.get(podKey) ?? []).some((b) => this.blocked.has(b.key));
  }

  /** The budgets that select the pod, as namespace/name. */
  budgetsOf(podKey: string): string[] {
    return (this.podBudgets.get(podKey) ?? []).map((b) => b.key);
  }

  observe(r: PodRecord, gone: boolean): void {
    let budgets = this.podBudgets.get(r.key);
    if (!budgets) {
      budgets = (this.byNamespace.get(r.namespace) ?? []).filter((b) => b.selector !== undefined && matchesLabels(b.selector, r.labels));
      this.podBudgets.set(r.key, budgets);
    }
    const view = gone || budgets.length === 0 ? undefined : podView(r);
    for (const b of budgets) {
      if (view === undefined) b.members.delete(r.key);
      else b.members.set(r.key, r, { ready: isReady(view), terminating: isTerminating(view) });
      this.dirty.add(b.key);
    }
    if (gone) this.podBudgets.delete(r.key);
  }

  /** Writes the status of every budget whose pods changed; returns how many it wrote. */
  settle(): number {
    let written = 0;
    const now = this.now();
    const kind = this.ctx.kinds.lookup('policy', 'v1', 'poddisruptionbudgets');
    if (!kind) return 0;
    for (const key of this.dirty) {
      const b = this.budgets.get(key);
      const stored = b && this.ctx.store.get(kind, b.namespace, b.name);
      if (!b || !stored) continue;
      const pdb = frozenObject(stored) as unknown as V1PodDisruptionBudget;
      // The members are what selectedPods would pick while the selector is the one they were matched with.
      const fast = b.selector !== undefined && (pdb.metadata?.generation ?? 0) === b.generation ? memberPdbStatus(pdb, b.members, now) : 'needs-scale';
      const status = fast === 'needs-scale' ? nextPdbStatus(pdb, [...b.members.values()].map(podView), this.scale, now) : fast;
      if (!status) continue;
      // The controller's PUT of the status, read and written in the same instant (no eviction can come between,
      // so no conflict to retry): straight to the store, as the API server would store it. The frozen copy's
      // metadata is replaced, not changed (put stamps the resourceVersion); the text is what the JSON round trip
      // gave (put serialises it: Dates become their ISO strings).
      this.ctx.store.put(kind, { ...pdb, metadata: { ...pdb.metadata }, status } as unknown as JsonObject);
      written++;
    }
    this.dirty.clear();
    return written;
  }
}
