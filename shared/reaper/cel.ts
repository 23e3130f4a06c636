// The reaper's CEL predicates: one typed environment over a Node view, checked when the config loads, with RE2
// regular expressions only. @marcbachmann/cel-js runs its built-in `matches` on V8's RegExp (exponential on
// patterns such as `(a+)+$`) and its overload cannot be replaced, so `matches` is rejected at load time and
// `re2Matches` (re2js, linear time) is offered instead.
import { errorMessage } from '../errors/index.ts';
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** What a predicate sees of a Node (see node-view.ts for how each is derived). */
export interface NodeFacts {
  name: string;
  labels: ReadonlyMap<string, string>;
  annotations: ReadonlyMap<string, string>;
  /** Condition type -> status ("True", "False", "Unknown"). */
  conditions: ReadonlyMap<string, string>;
  cordoned: boolean;
  /** Whole seconds since creationTimestamp (0 when unknown). */
  ageSeconds: bigint;
  /** spec.providerID, '' when unset. */
  providerID: string;
  /** The zone label's value, '' when unset. */
  zone: string;
}

/** Variables a predicate may use, with their CEL types (the README lists the same). */
export const PREDICATE_VARIABLES: Readonly<Record<keyof NodeFacts, string>> = {
  name: 'string',
  labels: 'map<string, string>',
  annotations: 'map<string, string>',
  conditions: 'map<string, string>',
  cordoned: 'bool',
  ageSeconds: 'int',
  providerID: 'string',
  zone: 'string',
};

/** Parse limits: predicates are one-liners; these bound what a config can make every pass evaluate. */
const LIMITS = { maxAstNodes: 1000, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 };

/** Compiled RE2 patterns by source; a config holds few, and a pass evaluates them on every Node. */
const compiled = new Map<string, RE2JS>();
const COMPILED_MAX = 256;

function re2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function buildEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, limits: LIMITS });
  for (const [name, type] of Object.entries(PREDICATE_VARIABLES)) env.registerVariable(name, type);
  // Same meaning as CEL's `matches` (RE2 syntax, unanchored search), on a linear-time engine.
  env.registerFunction('string.re2Matches(string): bool', (text: string, pattern: string) => re2(pattern).matcher(text).find());
  return env;
}

const environment = buildEnvironment();

export interface Predicate {
  /** The CEL source as configured. */
  source: string;
  evaluate(facts: NodeFacts): PredicateResult;
}

export type PredicateResult = { ok: true; value: boolean } | { ok: false; error: string };
export type CompileResult = { ok: true; predicate: Predicate } | { ok: false; error: string };

/** First line of a cel-js message (the rest is a caret drawing of the source). */
function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}

function isAstNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** Every call in the tree: `[name, literal first argument or undefined]` for `x.f(...)` and `f(...)`. */
function calls(node: unknown, out: Array<{ name: string; pattern?: string; start?: number }>): void {
  if (Array.isArray(node)) {
    for (const item of node) calls(item, out);
    return;
  }
  if (!isAstNode(node)) return;
  const args: unknown = node.args;
  if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(args) && typeof args[0] === 'string') {
    const callArgs: unknown = node.op === 'rcall' ? args[2] : args[1];
    const patternArg: unknown = Array.isArray(callArgs) ? callArgs[node.op === 'rcall' ? 0 : 1] : undefined;
    const literal = isAstNode(patternArg) && patternArg.op === 'value' && typeof patternArg.args === 'string' ? patternArg.args : undefined;
    out.push({ name: args[0], ...(literal !== undefined ? { pattern: literal } : {}), ...(typeof node.start === 'number' ? { start: node.start } : {}) });
  }
  calls(args, out);
}

/**
 * Parses and type-checks `source` as a bool predicate over a Node. Errors name what is wrong in one line:
 * syntax, unknown variables or functions, a non-bool result, `matches` (use re2Matches), an invalid RE2 literal.
 */
export function compilePredicate(source: string): CompileResult {
  const checked = parseChecked(source);
  if (!checked.ok) return checked;
  const { parsed, type } = checked;
  if (type !== 'bool') return { ok: false, error: `the expression is of type ${type}, expected bool` };
  return {
    ok: true,
    predicate: {
      source,
      evaluate(facts: NodeFacts): PredicateResult {
        try {
          const value: unknown = parsed({ ...facts });
          return typeof value === 'boolean' ? { ok: true, value } : { ok: false, error: `the expression gave ${typeof value}, expected bool` };
        } catch (err) {
          return { ok: false, error: firstLine(errorMessage(err)) };
        }
      },
    },
  };
}

/** An expression over a Node giving a list of strings (spec.reaper.devicesFrom). */
export interface ListExpression {
  source: string;
  evaluate(facts: NodeFacts): { ok: true; value: string[] } | { ok: false; error: string };
}

/** Parses and type-checks `source` as a list of strings over a Node (`[]` and list<dyn> pass, checked when evaluated). */
export function compileStringList(source: string): { ok: true; expression: ListExpression } | { ok: false; error: string } {
  const checked = parseChecked(source);
  if (!checked.ok) return checked;
  const { parsed, type } = checked;
  if (!['list<string>', 'list<dyn>', 'list<T>'].includes(type)) return { ok: false, error: `the expression is of type ${type}, expected list<string>` };
  return {
    ok: true,
    expression: {
      source,
      evaluate(facts: NodeFacts) {
        try {
          const value: unknown = parsed({ ...facts });
          if (!Array.isArray(value)) return { ok: false, error: `the expression gave ${typeof value}, expected a list of strings` };
          const items: unknown[] = value;
          const bad = items.find((v) => typeof v !== 'string');
          return bad === undefined ? { ok: true, value: items as string[] } : { ok: false, error: `the list holds a ${typeof bad}, expected strings only` };
        } catch (err) {
          return { ok: false, error: firstLine(errorMessage(err)) };
        }
      },
    },
  };
}

/** Parse, the RE2 rules and the type check shared by both kinds of expression; the checked type on success. */
function parseChecked(source: string): { ok: true; parsed: ReturnType<Environment['parse']>; type: string } | { ok: false; error: string } {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment.parse(source);
  } catch (err) {
    return { ok: false, error: firstLine(errorMessage(err)) };
  }
  const found: Array<{ name: string; pattern?: string; start?: number }> = [];
  calls(parsed.ast, found);
  const matches = found.find((c) => c.name === 'matches');
  if (matches) {
    return { ok: false, error: `matches() runs on the JavaScript regex engine, which user patterns can stall (ReDoS); use re2Matches() (RE2) instead${matches.start !== undefined ? ` (at column ${matches.start + 1})` : ''}` };
  }
  for (const c of found) {
    if (c.name !== 're2Matches' || c.pattern === undefined) continue;
    try {
      re2(c.pattern);
    } catch (err) {
      return { ok: false, error: `re2Matches(${JSON.stringify(c.pattern)}): invalid RE2 pattern: ${errorMessage(err)}` };
    }
  }
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, error: firstLine(checked.error?.message ?? 'type check failed') };
  return { ok: true, parsed, type: checked.type ?? 'unknown' };
}
