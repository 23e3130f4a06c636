// The phase timeline of a maintenance run, from transitions as they were observed (the demo's snapshots, the what-if's
// store events): one lane per node with a span per phase seen, and the unavailable and in-progress counts over time.
// Pure data: the HTML report (html.ts) draws it.

/** A phase as the report names it: the Ready reason, 'new' before the first pass, 'deleting' once the requestor deleted it. */
export type TimelinePhase = string;

export interface PhaseSpan {
  /** namespace/name of the request. */
  request: string;
  phase: TimelinePhase;
  startMs: number;
  endMs: number;
  /** What the request is about beyond its node, on each of its spans: a device request's devices and holders (issue 45). */
  note?: string;
}

export interface NodeLane {
  node: string;
  /** In time order; several requests on one node follow each other. */
  spans: PhaseSpan[];
}

export interface CountPoint {
  atMs: number;
  /** Nodes cordoned, not ready or under maintenance (as the scheduler counts them). */
  unavailable: number;
  /** Requests in progress (past Pending, or being deleted). */
  inProgress: number;
}

export interface Timeline {
  /** Simulated ms from the start of the run to the last observation. */
  endMs: number;
  /** Nodes that got a request, by name. */
  lanes: NodeLane[];
  /** Every change of the counts, in time order; the first point is the start. */
  counts: CountPoint[];
  limits: { maxParallelOperations: number | null; maxUnavailable: number | 'unlimited' | null };
}

interface Open {
  node: string;
  phase: TimelinePhase;
  startMs: number;
}

/** Folds observed transitions into spans. Times are ms since the start of the run, never decreasing. */
export class TimelineRecorder {
  private readonly open = new Map<string, Open>();
  private readonly lanes = new Map<string, PhaseSpan[]>();
  private readonly points: CountPoint[] = [];
  private readonly notes = new Map<string, string>();
  private lastMs = 0;

  /** Says what `request` is about on every span of it, drawn ones and later ones (the last note given wins). */
  note(request: string, text: string): void {
    this.notes.set(request, text);
  }

  /** The span with the request's note, if it has one. */
  private noted(span: PhaseSpan): PhaseSpan {
    const note = this.notes.get(span.request);
    return note === undefined ? span : { ...span, note };
  }

  /** `request` was observed in `phase` on `node` at `atMs`; a repeat of its current phase is no transition. */
  phase(request: string, node: string, phase: TimelinePhase, atMs: number): void {
    this.lastMs = Math.max(this.lastMs, atMs);
    const current = this.open.get(request);
    if (current?.phase === phase) return;
    if (current) this.close(request, current, atMs);
    this.open.set(request, { node, phase, startMs: atMs });
  }

  /** The request is gone (cleanup let it go): its last span ends. */
  released(request: string, atMs: number): void {
    this.lastMs = Math.max(this.lastMs, atMs);
    const current = this.open.get(request);
    if (!current) return;
    this.close(request, current, atMs);
    this.open.delete(request);
  }

  /** The counts at `atMs`; kept only when they changed. */
  counts(atMs: number, unavailable: number, inProgress: number): void {
    this.lastMs = Math.max(this.lastMs, atMs);
    const last = this.points.at(-1);
    if (last && last.unavailable === unavailable && last.inProgress === inProgress) return;
    if (last && last.atMs === atMs) this.points.pop();
    this.points.push({ atMs, unavailable, inProgress });
  }

  private close(request: string, span: Open, atMs: number): void {
    const spans = this.lanes.get(span.node) ?? [];
    spans.push({ request, phase: span.phase, startMs: span.startMs, endMs: atMs });
    this.lanes.set(span.node, spans);
  }

  /** The timeline so far; spans still open end at `endMs`. */
  timeline(limits: Timeline['limits'], endMs = this.lastMs): Timeline {
    const lanes = new Map([...this.lanes].map(([node, spans]) => [node, spans.map((s) => this.noted(s))]));
    for (const [request, span] of this.open) {
      const spans = lanes.get(span.node) ?? [];
      spans.push(this.noted({ request, phase: span.phase, startMs: span.startMs, endMs: Math.max(endMs, span.startMs) }));
      lanes.set(span.node, spans);
    }
    return {
      endMs,
      lanes: [...lanes]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([node, spans]) => ({ node, spans: spans.sort((a, b) => a.startMs - b.startMs || (a.endMs - b.endMs)) })),
      counts: [...this.points],
      limits,
    };
  }
}
