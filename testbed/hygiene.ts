// What a test file left behind on the shared testbed. The testbed project runs its files one after another on one
// control plane; a file that ends with a node still cordoned or a NodeMaintenance still holding a finalizer changes
// what the next file sees (test/faults.test.ts's soak once started with a node another file had left cordoned).
// Pure: the setup file (test/setup/testbed-hygiene.ts) reads the cluster before and after each file and repairs.
// Records kmaint keeps on Nodes count too: a `kmaint.io/admitted` record or a handshake key another file left made a
// later file's pass find nothing to write (landing runs of 2026-12-02); and a CronJob left resumed runs kmaint's passes
// as pods beside the next file's own.

/** Node annotation keys kmaint writes or reads as its own records: `kmaint.io/…` and `<anything>.kmaint.io/…`. */
export function isKmaintRecordKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  return prefix === 'kmaint.io' || prefix.endsWith('.kmaint.io');
}

/** The parts of the cluster a file must give back as it found them. */
export interface HygieneView {
  /** Node name → cordoned (spec.unschedulable), Ready condition True. */
  nodes: ReadonlyMap<string, { cordoned: boolean; ready: boolean }>;
  /** NodeMaintenances as `namespace/name`, with their uid and finalizers. */
  maintenances: ReadonlyMap<string, { uid: string; finalizers: readonly string[] }>;
  /** Namespaces in phase Terminating → pods still in them (a namespace with none left disturbs no other file). */
  terminating: ReadonlyMap<string, number>;
  /** Node name → its annotations whose keys are kmaint's records (isKmaintRecordKey). */
  records: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** CronJobs as `namespace/name` → whether they are suspended. */
  cronJobs: ReadonlyMap<string, boolean>;
}

export interface Leftover {
  /** One line for the failure message. */
  what: string;
  /** How the setup file puts it back, if it can. */
  repair?:
    | { kind: 'uncordon'; node: string }
    | { kind: 'dropFinalizers'; namespace: string; name: string }
    | { kind: 'dropAnnotations'; node: string; keys: string[] }
    | { kind: 'suspendCronJob'; namespace: string; name: string };
}

/**
 * What `after` holds that `before` did not: cordons, NotReady nodes, NodeMaintenances, pods of terminating namespaces,
 * kmaint's records on Nodes that were not there, CronJobs resumed.
 */
export function leftovers(before: HygieneView, after: HygieneView): Leftover[] {
  const out: Leftover[] = [];
  for (const [name, node] of [...after.nodes].sort(([a], [b]) => a.localeCompare(b))) {
    const was = before.nodes.get(name);
    if (!was) continue;
    if (node.cordoned && !was.cordoned) out.push({ what: `node ${name} left cordoned`, repair: { kind: 'uncordon', node: name } });
    if (!node.ready && was.ready) out.push({ what: `node ${name} left NotReady` });
  }
  for (const [key, nm] of [...after.maintenances].sort(([a], [b]) => a.localeCompare(b))) {
    if (before.maintenances.get(key)?.uid === nm.uid) continue;
    const [namespace = '', name = ''] = key.split('/');
    out.push({
      what: `NodeMaintenance ${key} left behind${nm.finalizers.length > 0 ? ` (finalizers ${nm.finalizers.join(', ')})` : ''}`,
      ...(nm.finalizers.length > 0 ? { repair: { kind: 'dropFinalizers' as const, namespace, name } } : {}),
    });
  }
  for (const [ns, pods] of [...after.terminating].sort(([a], [b]) => a.localeCompare(b))) {
    if (pods > 0 && !before.terminating.has(ns)) out.push({ what: `namespace ${ns} still terminating with ${pods} pod${pods === 1 ? '' : 's'}` });
  }
  for (const [node, records] of [...after.records].sort(([a], [b]) => a.localeCompare(b))) {
    if (!before.nodes.has(node)) continue;
    const had = before.records.get(node) ?? {};
    const added = Object.keys(records).filter((k) => !(k in had)).sort();
    if (added.length > 0) out.push({ what: `node ${node} left ${added.join(', ')}`, repair: { kind: 'dropAnnotations', node, keys: added } });
  }
  for (const [key, suspended] of [...after.cronJobs].sort(([a], [b]) => a.localeCompare(b))) {
    if (suspended || before.cronJobs.get(key) === false) continue;
    const [namespace = '', name = ''] = key.split('/');
    out.push({ what: `CronJob ${key} left resumed`, repair: { kind: 'suspendCronJob', namespace, name } });
  }
  return out;
}
