// Parses the string form of a label selector exactly as apimachinery's labels.Parse does (same tokens, same
// accepted and rejected inputs), returning a value instead of throwing; errors name the offending token and column.
import { labelKeyError } from './label-syntax.ts';
import { newRequirement, selectorOf, type LabelRequirement, type LabelSelectorOperator, type LabelSelectorResult } from './label-selector.ts';

type TokenKind = 'identifier' | 'in' | 'notin' | '=' | '==' | '!=' | '!' | '>' | '<' | '(' | ')' | ',' | 'end';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** 1-based position in the selector text. */
  readonly column: number;
}

/** Where a token is read: keys and values treat the words `in`/`notin` as plain identifiers, operators do not. */
type Context = 'value' | 'operator';

/** The characters that end an identifier and start an operator; "!=" and "==" are the only two-character tokens. */
const SPECIAL: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['=', '='],
  ['!', '!'],
  ['(', '('],
  [')', ')'],
  [',', ','],
  ['>', '>'],
  ['<', '<'],
]);
/** Only these four, as upstream: any other whitespace character is part of an identifier (and then invalid). */
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i] ?? '')) i++;
    if (i >= text.length) {
      tokens.push({ kind: 'end', text: '', column: i + 1 });
      return tokens;
    }
    const start = i;
    const single = SPECIAL.get(text[i] ?? '');
    if (single !== undefined) {
      // Longest match, as the upstream lexer scans operators.
      const pair = text.slice(i, i + 2);
      const kind: TokenKind = pair === '!=' || pair === '==' ? pair : single;
      tokens.push({ kind, text: kind, column: start + 1 });
      i += kind.length;
      continue;
    }
    while (i < text.length && !SPECIAL.has(text[i] ?? '') && !WHITESPACE.has(text[i] ?? '')) i++;
    const word = text.slice(start, i);
    tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'identifier', text: word, column: start + 1 });
  }
}

class SyntaxFailure {
  constructor(readonly message: string) {}
}

function describe(token: Token): string {
  return token.kind === 'end' ? `end of string at column ${token.column}` : `'${token.text}' at column ${token.column}`;
}

function unexpected(token: Token, expected: string): SyntaxFailure {
  return new SyntaxFailure(`found ${describe(token)}, expected ${expected}`);
}

class TokenStream {
  private position = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  peek(context: Context = 'value'): Token {
    return this.view(this.tokens[Math.min(this.position, this.tokens.length - 1)], context);
  }

  take(context: Context = 'value'): Token {
    const token = this.peek(context);
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  private view(token: Token | undefined, context: Context): Token {
    const actual = token ?? { kind: 'end', text: '', column: 1 };
    return context === 'value' && (actual.kind === 'in' || actual.kind === 'notin') ? { ...actual, kind: 'identifier' } : actual;
  }
}

const BINARY_OPERATORS: Partial<Record<TokenKind, LabelSelectorOperator>> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: 'in',
  notin: 'notin',
  '>': 'gt',
  '<': 'lt',
};

/** `k=v`, `k==v`, `k!=v`, `k>1`, `k<1`: one value, possibly empty (`k=` means "k is the empty string"). */
function parseExactValue(stream: TokenStream): string[] | SyntaxFailure {
  const next = stream.peek();
  if (next.kind === 'end' || next.kind === ',') return [''];
  const token = stream.take();
  return token.kind === 'identifier' ? [token.text] : unexpected(token, 'a label value');
}

/** `(a,b)`; empty members are the empty string, as upstream reads `()`, `(,a)` and `(a,,b)` (but rejects `(a,,)`). */
function parseValueList(stream: TokenStream): string[] | SyntaxFailure {
  const open = stream.take();
  if (open.kind !== '(') return unexpected(open, "'('");
  const first = stream.peek();
  if (first.kind === ')') {
    stream.take();
    return [''];
  }
  if (first.kind !== 'identifier' && first.kind !== ',') return unexpected(first, "a label value, ',' or ')'");
  const values: string[] = [];
  for (;;) {
    const token = stream.take();
    if (token.kind === 'identifier') {
      values.push(token.text);
      const after = stream.peek();
      if (after.kind === ')') break;
      if (after.kind !== ',') return unexpected(after, "',' or ')'");
    } else if (token.kind === ',') {
      if (values.length === 0) values.push('');
      const after = stream.peek();
      if (after.kind === ')') {
        values.push('');
        break;
      }
      if (after.kind === ',') {
        stream.take();
        values.push('');
      }
    } else {
      return unexpected(token, "a label value or ','");
    }
  }
  const close = stream.take();
  return close.kind === ')' ? values : unexpected(close, "')'");
}

function parseRequirement(stream: TokenStream): LabelRequirement | SyntaxFailure {
  let keyToken = stream.take();
  const negated = keyToken.kind === '!';
  if (negated) keyToken = stream.take();
  if (keyToken.kind !== 'identifier') return unexpected(keyToken, 'a label key');
  const key = keyToken.text;
  const keyError = labelKeyError(key);
  if (keyError !== undefined) return new SyntaxFailure(`invalid label key "${key}" at column ${keyToken.column}: ${keyError}`);

  let operator: LabelSelectorOperator;
  let values: string[] | SyntaxFailure;
  const next = stream.peek();
  if (negated) {
    operator = '!';
    values = [];
  } else if (next.kind === 'end' || next.kind === ',') {
    operator = 'exists';
    values = [];
  } else {
    const operatorToken = stream.take('operator');
    const found = BINARY_OPERATORS[operatorToken.kind];
    if (found === undefined) return unexpected(operatorToken, 'an operator (=, ==, !=, in, notin, >, <)');
    operator = found;
    values = found === 'in' || found === 'notin' ? parseValueList(stream) : parseExactValue(stream);
  }
  if (values instanceof SyntaxFailure) return values;
  const built = newRequirement(key, operator, values);
  return built.ok ? built.requirement : new SyntaxFailure(built.error);
}

function parseRequirements(stream: TokenStream): LabelRequirement[] | SyntaxFailure {
  const requirements: LabelRequirement[] = [];
  if (stream.peek().kind === 'end') return requirements;
  for (;;) {
    const start = stream.peek();
    if (start.kind !== 'identifier' && start.kind !== '!') {
      return unexpected(start, requirements.length === 0 ? "a label key or '!'" : "a label key or '!' after ','");
    }
    const requirement = parseRequirement(stream);
    if (requirement instanceof SyntaxFailure) return requirement;
    requirements.push(requirement);
    const separator = stream.take();
    if (separator.kind === 'end') return requirements;
    if (separator.kind !== ',') return unexpected(separator, "',' or end of string");
  }
}

/**
 * Parses `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`, comma-separated and ANDed.
 * The empty (or all-whitespace) string selects everything.
 */
export function parseLabelSelector(text: string): LabelSelectorResult {
  const parsed = parseRequirements(new TokenStream(lex(text)));
  if (parsed instanceof SyntaxFailure) return { ok: false, error: `invalid label selector "${text}": ${parsed.message}` };
  return { ok: true, selector: selectorOf(parsed) };
}
