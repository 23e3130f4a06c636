// The what-if's timeline: callbacks due at simulated times, run in time order (then in the order they were added),
// so the run can jump from one due event to the next instead of waiting through quiet time.

interface Entry {
  readonly atMs: number;
  readonly seq: number;
  readonly run: () => void;
}

function before(a: Entry, b: Entry): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

/** A binary min-heap of due callbacks. */
export class EventQueue {
  private readonly heap: Entry[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** When the next callback is due, or Infinity when none is. */
  nextAt(): number {
    return this.heap[0]?.atMs ?? Infinity;
  }

  at(atMs: number, run: () => void): void {
    const heap = this.heap;
    heap.push({ atMs, seq: this.seq++, run });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Entry, heap[parent] as Entry)) break;
      [heap[i], heap[parent]] = [heap[parent] as Entry, heap[i] as Entry];
      i = parent;
    }
  }

  private pop(): Entry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l] as Entry, heap[m] as Entry)) m = l;
      if (r < heap.length && before(heap[r] as Entry, heap[m] as Entry)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m] as Entry, heap[i] as Entry];
      i = m;
    }
    return top;
  }

  /** Runs every callback due at or before `nowMs`, including ones they add that are also due. Returns how many ran. */
  runDue(nowMs: number): number {
    let ran = 0;
    while (this.nextAt() <= nowMs) {
      this.pop()?.run();
      ran++;
    }
    return ran;
  }
}
