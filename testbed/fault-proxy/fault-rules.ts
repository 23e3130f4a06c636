// Which fault a request gets: the Kubernetes verb and resource of an HTTP request, and a seeded pick among the
// rates of the first rule that matches it. Pure: the random source is passed in.
import type { Rng } from '../../sim/generator/prng.ts';

/**
 * Kinds of injected fault. `drop-before`: connection closed before the API server saw the request; `drop-after`: the
 * API server answered (the write happened) and the client saw only a closed connection; `410`: the API server's answer
 * to a continue token whose resourceVersion was compacted (meant for rules with `continued: true`).
 */
export const FAULT_KINDS = ['500', '503', '429', '409', 'drop-before', 'drop-after', '410', '403'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  /** Verbs this rule applies to (get, list, watch, create, update, patch, delete, deletecollection). @default every verb */
  verbs?: readonly string[];
  /** Resources, with subresource as in RBAC: `nodes`, `nodemaintenances/status`, `pods/eviction`. @default every resource */
  resources?: readonly string[];
  /** Only LISTs carrying a continue token (true) or only requests without one (false). @default either */
  continued?: boolean;
  /** Probability of each fault kind per request, each in [0, 1], summing to at most 1. */
  rates: Partial<Record<FaultKind, number>>;
  /** Fixed delay before the request is forwarded (or failed). @default 0 */
  latencyMs?: number;
  /** Extra delay drawn uniformly from [0, jitterMs). @default 0 */
  jitterMs?: number;
  /** Retry-After header of injected 429s, in seconds. @default 1 */
  retryAfterSeconds?: number;
  /** Inject at most this many faults under this rule, then let its requests through (one-shot faults). @default unlimited */
  maxFaults?: number;
  /**
   * With maxFaults: once spent, the rule no longer matches and the rules after it decide (a guaranteed first fault in
   * front of a rule that keeps its rates). @default false: a spent rule still matches and lets its requests through
   */
  thenNext?: boolean;
}

/** What a request is, in the API server's words. */
export interface RequestTarget {
  verb: string;
  /** `pods`, `pods/eviction`, `nodemaintenances/status`; '' for non-resource paths (/version, /openapi). */
  resource: string;
  /** Present (true) on a LIST asking for a later page with a continue token. */
  continued?: true;
}

export interface FaultDecision {
  fault: FaultKind | undefined;
  delayMs: number;
  retryAfterSeconds: number;
}

/**
 * The verb and resource of a request, as the API server's RequestInfo resolves them: /api/v1/… and
 * /apis/GROUP/VERSION/…, optionally namespaced, optionally with a name and a subresource.
 */
export function requestTarget(method: string, url: string): RequestTarget {
  const parsed = new URL(url, 'http://x');
  const parts = parsed.pathname.split('/').filter((p) => p !== '');
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === 'apis' && parts.length >= 3) rest = parts.slice(3);
  else return { verb: method.toLowerCase(), resource: '' };
  // namespaces/NS/<resource>… is a namespaced resource; namespaces alone, or namespaces/NS[/status|finalize], is the namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const [resource = '', name, subresource] = rest;
  const full = subresource ? `${resource}/${subresource}` : resource;
  const watch = parsed.searchParams.get('watch');
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      if (watch === 'true' || watch === '1') return { verb: 'watch', resource: full };
      if (!name && parsed.searchParams.get('continue')) return { verb: 'list', resource: full, continued: true };
      return { verb: name ? 'get' : 'list', resource: full };
    case 'POST':
      return { verb: 'create', resource: full };
    case 'PUT':
      return { verb: 'update', resource: full };
    case 'PATCH':
      return { verb: 'patch', resource: full };
    case 'DELETE':
      return { verb: name ? 'delete' : 'deletecollection', resource: full };
    default:
      return { verb: method.toLowerCase(), resource: full };
  }
}

function matches(rule: FaultRule, target: RequestTarget): boolean {
  if (rule.verbs && !rule.verbs.includes(target.verb)) return false;
  if (rule.resources && !rule.resources.includes(target.resource)) return false;
  if (rule.continued !== undefined && rule.continued !== (target.continued === true)) return false;
  return true;
}

/** Rejects rates outside [0, 1] or summing above 1, and unknown fault kinds. */
export function validateRules(rules: readonly FaultRule[]): void {
  rules.forEach((rule, i) => {
    let sum = 0;
    for (const [kind, rate] of Object.entries(rule.rates)) {
      if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new RangeError(`fault rule ${i}: unknown fault kind "${kind}" (one of ${FAULT_KINDS.join(', ')})`);
      if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) throw new RangeError(`fault rule ${i}: rate of ${kind} must be in [0, 1], got ${String(rate)}`);
      sum += rate;
    }
    if (sum > 1 + 1e-9) throw new RangeError(`fault rule ${i}: rates sum to ${sum}, more than 1`);
    for (const key of ['latencyMs', 'jitterMs', 'retryAfterSeconds', 'maxFaults'] as const) {
      const v = rule[key];
      if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new RangeError(`fault rule ${i}: ${key} must be a number >= 0, got ${String(v)}`);
    }
  });
}

/**
 * The first matching rule decides; no rule matching means no fault and no delay. Exactly two draws per
 * request (fault, jitter) whatever the outcome, so one request's rule never shifts the stream of the next.
 * `injected` counts faults per rule for `maxFaults`; the decision adds to it.
 */
export function decideFault(target: RequestTarget, rules: readonly FaultRule[], rng: Rng, injected: Map<FaultRule, number> = new Map()): FaultDecision {
  const faultDraw = rng.next();
  const jitterDraw = rng.next();
  const spent = (r: FaultRule): boolean => r.thenNext === true && r.maxFaults !== undefined && (injected.get(r) ?? 0) >= r.maxFaults;
  const rule = rules.find((r) => matches(r, target) && !spent(r));
  if (!rule) return { fault: undefined, delayMs: 0, retryAfterSeconds: 0 };
  let fault: FaultKind | undefined;
  let upTo = 0;
  for (const kind of FAULT_KINDS) {
    upTo += rule.rates[kind] ?? 0;
    if (faultDraw < upTo) {
      fault = kind;
      break;
    }
  }
  if (fault !== undefined && rule.maxFaults !== undefined) {
    const spent = injected.get(rule) ?? 0;
    if (spent >= rule.maxFaults) fault = undefined;
    else injected.set(rule, spent + 1);
  }
  const delayMs = (rule.latencyMs ?? 0) + Math.floor(jitterDraw * (rule.jitterMs ?? 0));
  return { fault, delayMs, retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
}

/**
 * Rules that spread `rate` evenly over every fault kind: reads get 500, 503, 429 and both drops; writes also get
 * 409 (a conflict on a read would be a lie no API server tells).
 */
export function uniformFaults(rate: number, opts: { latencyMs?: number; jitterMs?: number; retryAfterSeconds?: number } = {}): FaultRule[] {
  const readKinds: FaultKind[] = ['500', '503', '429', 'drop-before', 'drop-after'];
  const writeKinds: FaultKind[] = [...readKinds, '409'];
  const spread = (kinds: FaultKind[]): Partial<Record<FaultKind, number>> => Object.fromEntries(kinds.map((k) => [k, rate / kinds.length]));
  return [
    // Watches are long-lived streams: a delay or a status would only stall them, so they pass untouched.
    { verbs: ['watch'], rates: {} },
    { verbs: ['get', 'list'], rates: spread(readKinds), ...opts },
    { rates: spread(writeKinds), ...opts },
  ];
}
