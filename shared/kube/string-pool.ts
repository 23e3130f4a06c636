// One copy of each string a page of a LIST repeats across its objects. JSON.parse gives every label value, annotation
// and condition reason or message of every node its own copy: on a GPU fleet the same 60 labels and 14 conditions
// differ in a handful of values, so a 10,000-node snapshot held 13.5 KiB a node, 8.7 KiB with the copies shared
// (bench:scale's nodes; docs/large-clusters.md). Equal strings stay equal: only memory changes. The same goes for the
// instants of conditions: a Date is ~130 B of heap and a GPU node's 14 conditions carried 28 of them (3.6 KiB a node,
// the largest part of the snapshot), while the API server writes them to the second, so a page of nodes names a few
// hundred instants at most. Shared Dates are safe because nothing mutates a snapshot (planners are pure).

/** Strings longer than this are rarely repeated (a node's own ids, long messages): not worth a table entry. */
const MAX_POOLED_LENGTH = 256;

export class StringPool {
  private readonly seen = new Map<string, string>();
  private readonly instants = new Map<string, Date>();

  /** The pool's copy of `s`, which becomes the copy when the pool has none. */
  intern(s: string): string {
    if (s.length > MAX_POOLED_LENGTH) return s;
    const have = this.seen.get(s);
    if (have !== undefined) return have;
    this.seen.set(s, s);
    return s;
  }

  /** The pool's Date of the RFC 3339 text `s`: one Date for every occurrence of the same text. */
  instant(s: string): Date {
    const have = this.instants.get(s);
    if (have !== undefined) return have;
    const d = new Date(s);
    this.instants.set(s, d);
    return d;
  }

  /**
   * A copy of `rec` whose values are the pool's. Copied by spreading, then values replaced: the copy keeps the hidden
   * class JSON.parse gave the object, shared by every node with the same keys; adding 60 keys one by one to `{}` made
   * each a dictionary of its own (3.2 KiB a node's labels, against 0.5 KiB).
   */
  internValues(rec: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = { ...rec };
    for (const k of Object.keys(out)) {
      const v = out[k];
      if (typeof v === 'string') out[k] = this.intern(v);
    }
    return out;
  }

  /** Distinct strings held. */
  get size(): number {
    return this.seen.size;
  }

  /** Distinct instants held. */
  get instantCount(): number {
    return this.instants.size;
  }
}
