// The slurmrestd client: version detection (v0.0.40-v0.0.42, newest first), the token header, and every failure
// as a value (unreachable, token refused, errors[] in a 500 or even a 200), with messages that never carry the token.
// Reservations have their own detection (v0.0.43+, Slurm 25.05 or later: older slurmrestd serves them read-only).
import { RESERVATION_API_VERSIONS, SLURM_API_VERSIONS, type ReservationApiVersion, type SlurmApiVersion } from './settings.ts';

export interface SlurmNodeInfo {
  name: string;
  /** Base state first, then flags: ["ALLOCATED","DRAIN"]. */
  state: string[];
  /** "" when none was ever set (24.11 keeps it after an undrain). */
  reason: string;
  /**
   * When the reason was set (Unix seconds: slurmrestd's `reason_changed_at`; in the token-free mode, when Slinky's Drain
   * condition turned True). Slurm's own clock of a drain, which no requestor writes: the drain timeout counts from it.
   */
  reasonSetAt?: number;
}

/** A reservation as slurmctld lists it. */
export interface SlurmReservationInfo {
  name: string;
  /** Unix seconds. */
  startTime: number;
  /** Unix seconds; 0 when Slurm gave none (an infinite reservation, which kmaint no longer makes). */
  endTime: number;
  /** The node list as Slurm prints it ("n1", "n[1-2]"). */
  nodeList: string;
  flags: string[];
}

/** What kmaint creates: a maintenance reservation of `nodes` from `startTime` to `endTime` (extended while needed, deleted on release). */
export interface SlurmReservationSpec {
  name: string;
  nodes: string[];
  /** Unix seconds. */
  startTime: number;
  /** Unix seconds: never unbounded, so a reservation kmaint loses track of ends on its own. */
  endTime: number;
  users: string[];
  comment: string;
}

export type SlurmProblemKind = 'unreachable' | 'token' | 'server' | 'unknown-node' | 'no-version';
export interface SlurmProblem {
  kind: SlurmProblemKind;
  message: string;
}
export type SlurmResult<T> = { ok: true; value: T } | { ok: false; problem: SlurmProblem };

export interface SlurmClientOptions {
  url: string;
  token: string;
  /** @default "auto" */
  apiVersion?: 'auto' | SlurmApiVersion;
  /** Per request. @default 5000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface SlurmError {
  error?: string;
  error_number?: number;
  description?: string;
}

/** Slurm's "Protocol authentication error": a token it cannot verify. */
const AUTH_ERROR_NUMBER = 1007;
/** "Invalid node name specified". */
const INVALID_NODE_ERROR_NUMBER = 2018;
/** "Requested reservation is invalid": what deleting a reservation that is not there answers. */
const INVALID_RESERVATION_ERROR_NUMBER = 2053;

function errorText(e: SlurmError): string {
  const parts = [e.error, e.description].filter((p): p is string => typeof p === 'string' && p !== '');
  return `${parts.join(': ') || 'unknown error'}${e.error_number !== undefined ? ` (error ${e.error_number})` : ''}`;
}

/** A time as slurmrestd writes it: a number (v0.0.39) or `{ set, infinite, number }` (v0.0.40+); 0, unset or infinite is none. */
function unixSeconds(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : v !== null && typeof v === 'object' && (v as { set?: unknown }).set !== false && (v as { infinite?: unknown }).infinite !== true ? (v as { number?: unknown }).number : undefined;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

function causeText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    if (typeof cause?.code === 'string') return cause.code;
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'timed out';
    return typeof cause?.message === 'string' ? cause.message : err.message;
  }
  return String(err);
}

export class SlurmRestClient {
  readonly url: string;
  private readonly token: string;
  private version: SlurmApiVersion | undefined;
  private reservationVersion: ReservationApiVersion | undefined;
  private readonly timeoutMs: number;
  private readonly signal: AbortSignal | undefined;
  /** Requests sent, by "METHOD path-template", for the pass summary. */
  readonly counts: Record<string, number> = {};

  constructor(opts: SlurmClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.token = opts.token;
    this.version = opts.apiVersion === undefined || opts.apiVersion === 'auto' ? undefined : opts.apiVersion;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.signal = opts.signal;
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, counted: string, body?: unknown): Promise<SlurmResult<{ status: number; json: Record<string, unknown> | undefined; text: string }>> {
    this.counts[counted] = (this.counts[counted] ?? 0) + 1;
    const signals = [AbortSignal.timeout(this.timeoutMs), ...(this.signal ? [this.signal] : [])];
    try {
      const res = await fetch(`${this.url}${path}`, {
        method,
        headers: { 'X-SLURM-USER-TOKEN': this.token, 'Content-Type': 'application/json', Accept: 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.any(signals),
        // The token goes to spec.slurm.url only: a redirect elsewhere would carry the header with it.
        redirect: 'error',
      });
      const text = await res.text();
      let json: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      return { ok: true, value: { status: res.status, json, text } };
    } catch (err) {
      return { ok: false, problem: { kind: 'unreachable', message: `cannot reach slurmrestd at ${this.url}: ${causeText(err)}` } };
    }
  }

  /** Status and errors[] of one response, as a problem; undefined when it succeeded. */
  private problemOf(doing: string, r: { status: number; json: Record<string, unknown> | undefined; text: string }): SlurmProblem | undefined {
    const errors = Array.isArray(r.json?.['errors']) ? (r.json['errors'] as SlurmError[]) : [];
    if (r.status === 401) return { kind: 'token', message: `${doing}: slurmrestd refused the request (401 ${r.text.trim() || 'Unauthorized'}): no valid token (check spec.slurm.tokenEnv / tokenSecret)` };
    if (r.status === 511 || errors.some((e) => e.error_number === AUTH_ERROR_NUMBER)) {
      return { kind: 'token', message: `${doing}: slurmrestd rejected the token (${r.status} ${errors[0] ? errorText(errors[0]) : 'authentication error'}): check spec.slurm.tokenEnv / tokenSecret` };
    }
    if (r.status === 200 && errors.length === 0) return undefined;
    const first = errors[0];
    const unknownNode = errors.some((e) => e.error_number === INVALID_NODE_ERROR_NUMBER || /Failure to query node\b/.test(e.description ?? ''));
    const detail = first ? errorText(first) : `HTTP ${r.status}${r.text ? `: ${r.text.trim().slice(0, 200)}` : ''}`;
    return { kind: unknownNode ? 'unknown-node' : 'server', message: `${doing}: slurmrestd answered ${r.status}: ${detail}` };
  }

  /** The first of `versions` the server offers: one GET of ping each, newest first, until one is not 404; none is `none`. */
  private async detect<V extends string>(versions: readonly V[], doing: string, none: string): Promise<SlurmResult<V>> {
    for (const v of versions) {
      const r = await this.call('GET', `/slurm/${v}/ping`, 'GET ping');
      if (!r.ok) return r;
      if (r.value.status === 404) continue;
      const problem = r.value.status === 200 ? undefined : this.problemOf(doing, r.value);
      return problem ? { ok: false, problem } : { ok: true, value: v };
    }
    return { ok: false, problem: { kind: 'no-version', message: none } };
  }

  /** The API version to use: pinned, or the newest the server offers. */
  async apiVersion(): Promise<SlurmResult<SlurmApiVersion>> {
    if (this.version) return { ok: true, value: this.version };
    const found = await this.detect(SLURM_API_VERSIONS, 'detecting the API version', `slurmrestd at ${this.url} offers none of ${SLURM_API_VERSIONS.join(', ')} (needs Slurm 23.11 or later with openapi/slurmctld)`);
    if (found.ok) this.version = found.value;
    return found;
  }

  /** Every Slurm node with its state and reason. */
  async listNodes(): Promise<SlurmResult<SlurmNodeInfo[]>> {
    const v = await this.apiVersion();
    if (!v.ok) return v;
    const r = await this.call('GET', `/slurm/${v.value}/nodes`, 'GET nodes');
    if (!r.ok) return r;
    const problem = this.problemOf('listing Slurm nodes', r.value);
    if (problem) return { ok: false, problem };
    const raw = Array.isArray(r.value.json?.['nodes']) ? (r.value.json['nodes'] as Array<Record<string, unknown>>) : [];
    const nodes = raw.map((n): SlurmNodeInfo => {
      const setAt = unixSeconds(n['reason_changed_at']);
      return {
        name: typeof n['name'] === 'string' ? n['name'] : '',
        state: Array.isArray(n['state']) ? (n['state'] as unknown[]).filter((s): s is string => typeof s === 'string') : typeof n['state'] === 'string' ? [n['state']] : [],
        reason: typeof n['reason'] === 'string' ? n['reason'] : '',
        ...(setAt !== undefined ? { reasonSetAt: setAt } : {}),
      };
    });
    return { ok: true, value: nodes };
  }

  private async update(name: string, body: Record<string, unknown>, doing: string): Promise<SlurmResult<void>> {
    const v = await this.apiVersion();
    if (!v.ok) return v;
    const r = await this.call('POST', `/slurm/${v.value}/node/${encodeURIComponent(name)}`, 'POST node', body);
    if (!r.ok) return r;
    const problem = this.problemOf(doing, r.value);
    return problem ? { ok: false, problem } : { ok: true, value: undefined };
  }

  /** Sets DRAIN with `reason` (a DRAIN without a reason would keep whatever reason the node had). */
  drain(name: string, reason: string): Promise<SlurmResult<void>> {
    return this.update(name, { state: ['DRAIN'], reason }, `draining Slurm node ${name}`);
  }

  /** Clears DRAIN (24.11 keeps the reason text). */
  undrain(name: string): Promise<SlurmResult<void>> {
    return this.update(name, { state: ['UNDRAIN'] }, `undraining Slurm node ${name}`);
  }

  /**
   * The newest API version that can create reservations (v0.0.43+), one GET of ping each until one is not 404; none
   * is a 'no-version' problem naming the Slurm release that has it. Independent of spec.slurm.apiVersion, which pins
   * the node calls.
   */
  async reservationApiVersion(): Promise<SlurmResult<ReservationApiVersion>> {
    if (this.reservationVersion) return { ok: true, value: this.reservationVersion };
    const none = `slurmrestd at ${this.url} cannot create reservations: it offers none of ${RESERVATION_API_VERSIONS.join(', ')} (Slurm 25.05 or later; older slurmrestd serves reservations read-only)`;
    const found = await this.detect(RESERVATION_API_VERSIONS, 'detecting the reservation API version', none);
    if (found.ok) this.reservationVersion = found.value;
    return found;
  }

  /** Every reservation slurmctld has. */
  async listReservations(): Promise<SlurmResult<SlurmReservationInfo[]>> {
    const v = await this.reservationApiVersion();
    if (!v.ok) return v;
    const r = await this.call('GET', `/slurm/${v.value}/reservations/`, 'GET reservations');
    if (!r.ok) return r;
    const problem = this.problemOf('listing Slurm reservations', r.value);
    if (problem) return { ok: false, problem };
    const raw = Array.isArray(r.value.json?.['reservations']) ? (r.value.json['reservations'] as Array<Record<string, unknown>>) : [];
    return {
      ok: true,
      value: raw.map((x) => {
        const start = x['start_time'] as { number?: unknown } | undefined;
        const end = x['end_time'] as { number?: unknown; infinite?: unknown } | undefined;
        const list = x['node_list'];
        return {
          name: typeof x['name'] === 'string' ? x['name'] : '',
          startTime: typeof start?.number === 'number' ? start.number : 0,
          endTime: typeof end?.number === 'number' && end.infinite !== true ? end.number : 0,
          nodeList: typeof list === 'string' ? list : Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string').join(',') : '',
          flags: Array.isArray(x['flags']) ? (x['flags'] as unknown[]).filter((f): f is string => typeof f === 'string') : [],
        };
      }),
    };
  }

  /** Creates a MAINT reservation (IGNORE_JOBS: running jobs do not stop it) from its start to its end. */
  async createReservation(spec: SlurmReservationSpec): Promise<SlurmResult<void>> {
    const v = await this.reservationApiVersion();
    if (!v.ok) return v;
    const body = {
      name: spec.name,
      start_time: { set: true, number: spec.startTime },
      end_time: { set: true, number: spec.endTime },
      node_list: spec.nodes,
      flags: ['MAINT', 'IGNORE_JOBS'],
      users: spec.users,
      comment: spec.comment,
    };
    const r = await this.call('POST', `/slurm/${v.value}/reservation`, 'POST reservation', body);
    if (!r.ok) return r;
    const problem = this.problemOf(`creating Slurm reservation ${spec.name}`, r.value);
    return problem ? { ok: false, problem } : { ok: true, value: undefined };
  }

  /** Moves a reservation that has not started to a new start and end (POST of its name updates an existing one). */
  async moveReservation(name: string, startTime: number, endTime: number): Promise<SlurmResult<void>> {
    const v = await this.reservationApiVersion();
    if (!v.ok) return v;
    const r = await this.call('POST', `/slurm/${v.value}/reservation`, 'POST reservation', { name, start_time: { set: true, number: startTime }, end_time: { set: true, number: endTime } });
    if (!r.ok) return r;
    const problem = this.problemOf(`moving Slurm reservation ${name}`, r.value);
    return problem ? { ok: false, problem } : { ok: true, value: undefined };
  }

  /** Moves the end of an existing reservation (POST of its name: slurmrestd updates a reservation that exists). */
  async extendReservation(name: string, endTime: number): Promise<SlurmResult<void>> {
    const v = await this.reservationApiVersion();
    if (!v.ok) return v;
    const r = await this.call('POST', `/slurm/${v.value}/reservation`, 'POST reservation', { name, end_time: { set: true, number: endTime } });
    if (!r.ok) return r;
    const problem = this.problemOf(`extending Slurm reservation ${name}`, r.value);
    return problem ? { ok: false, problem } : { ok: true, value: undefined };
  }

  /** Deletes a reservation; one that is not there (any more) counts as deleted. */
  async deleteReservation(name: string): Promise<SlurmResult<void>> {
    const v = await this.reservationApiVersion();
    if (!v.ok) return v;
    const r = await this.call('DELETE', `/slurm/${v.value}/reservation/${encodeURIComponent(name)}`, 'DELETE reservation');
    if (!r.ok) return r;
    const errors = Array.isArray(r.value.json?.['errors']) ? (r.value.json['errors'] as SlurmError[]) : [];
    if (errors.length > 0 && errors.every((e) => e.error_number === INVALID_RESERVATION_ERROR_NUMBER)) return { ok: true, value: undefined };
    const problem = this.problemOf(`deleting Slurm reservation ${name}`, r.value);
    return problem ? { ok: false, problem } : { ok: true, value: undefined };
  }
}
