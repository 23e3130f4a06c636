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
  private readonly instantsMs = new Map<number, Date>();
  /** An object with each key set of records built key by key (protobuf maps), made by JSON.parse: its hidden class. */
  private readonly shapes = new Map<string, Readonly<Record<string, string>>>();

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

  /** The pool's Date of `ms` since the epoch (a protobuf Time): one Date for every occurrence of the same instant. */
  instantAt(ms: number): Date {
    const have = this.instantsMs.get(ms);
    if (have !== undefined) return have;
    const d = new Date(ms);
    this.instantsMs.set(ms, d);
    return d;
  }

  /**
   * internValues for a record built key by key (protobufjs's maps): such an object, and any copy of it made by adding
   * keys, is a dictionary of its own once it has more than a dozen keys. The copy is spread from an object JSON.parse
   * made with the same keys in the same order, kept per key set, so every record with those keys shares one hidden
   * class as JSON's do; then its values are replaced by the pool's. Label and annotation keys hold no newline.
   */
  internRecord(rec: Readonly<Record<string, string>>): Record<string, string> {
    const keys = Object.keys(rec);
    const signature = keys.join('\n');
    let shape = this.shapes.get(signature);
    if (shape === undefined) {
      shape = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k) => [k, ''])))) as Record<string, string>;
      this.shapes.set(signature, shape);
    }
    const out: Record<string, string> = { ...shape };
    for (const k of keys) out[k] = this.intern(rec[k] as string);
    return out;
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
    return this.instants.size + this.instantsMs.size;
  }
}
