// One copy of each string a page of a LIST repeats across its objects. JSON.parse gives every label value, annotation
// and condition reason or message of every node its own copy: on a GPU fleet the same 60 labels and 14 conditions
// differ in a handful of values, so a 10,000-node snapshot held 13.5 KiB a node, 8.7 KiB with the copies shared
// (bench:scale's nodes; docs/large-clusters.md). Equal strings stay equal: only memory changes.

/** Strings longer than this are rarely repeated (a node's own ids, long messages): not worth a table entry. */
const MAX_POOLED_LENGTH = 256;

export class StringPool {
  private readonly seen = new Map<string, string>();

  /** The pool's copy of `s`, which becomes the copy when the pool has none. */
  intern(s: string): string {
    if (s.length > MAX_POOLED_LENGTH) return s;
    const have = this.seen.get(s);
    if (have !== undefined) return have;
    this.seen.set(s, s);
    return s;
  }

  /** A copy of `rec` whose values are the pool's. */
  internValues(rec: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(rec)) out[k] = typeof v === 'string' ? this.intern(v) : v;
    return out;
  }

  /** Distinct strings held. */
  get size(): number {
    return this.seen.size;
  }
}
