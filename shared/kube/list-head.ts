// The `metadata` of a JSON LIST answer read from its head, before its items are decoded: the continue token that lets
// the client ask for the next page while this one is decoded (client.ts's list). The API server writes a list's
// `kind`, `apiVersion` and `metadata` before `items`; this walks the top-level keys of the text as a JSON tokenizer
// would (strings with their escapes, nested values skipped by depth) rather than matching a pattern, and gives up —
// undefined, the caller then parses the whole text — on anything else: `items` first, a head longer than HEAD_LIMIT,
// or text that is not JSON. What it returns is JSON.parse's reading of the `metadata` value itself.

/** Characters of the head read before giving up: the metadata of a list is a few hundred (a continue token ~100-300). */
export const HEAD_LIMIT = 64 * 1024;

type Meta = Record<string, unknown>;

/** Index after the JSON string whose opening quote is at `i`, or -1. */
function endOfString(text: string, i: number): number {
  for (let j = i + 1; j < text.length && j < HEAD_LIMIT; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++; // backslash: the next character is escaped, whatever it is
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** Index after the JSON value starting at `i` (any kind, nested ones by depth), or -1. */
function endOfValue(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length && j < HEAD_LIMIT; j++) {
    const c = text[j];
    if (c === '"') {
      j = endOfString(text, j) - 1;
      if (j < 0) return -1;
      if (depth === 0) return j + 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return j; // the end of the enclosing object: a scalar ended here
      if (--depth === 0) return j + 1;
    } else if (depth === 0 && (c === ',' || c === ' ' || c === '\n' || c === '\r' || c === '\t')) return j;
  }
  return -1;
}

/** JSON.parse of one token or value; undefined when it is not JSON. */
function parsed(slice: string): unknown {
  try {
    return JSON.parse(slice);
  } catch {
    return undefined;
  }
}

function skipBlanks(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/** The top-level `metadata` object of a JSON LIST answer, when it comes before `items` within HEAD_LIMIT; else undefined. */
export function listMetadataFromHead(text: string): Meta | undefined {
  let i = skipBlanks(text, 0);
  if (text[i] !== '{') return undefined;
  i++;
  for (;;) {
    i = skipBlanks(text, i);
    if (text[i] !== '"') return undefined;
    const keyEnd = endOfString(text, i);
    if (keyEnd < 0) return undefined;
    const key = parsed(text.slice(i, keyEnd));
    i = skipBlanks(text, keyEnd);
    if (text[i] !== ':') return undefined;
    i = skipBlanks(text, i + 1);
    if (key === 'items') return undefined;
    const valueEnd = endOfValue(text, i);
    if (valueEnd < 0) return undefined;
    if (key === 'metadata') {
      const meta = parsed(text.slice(i, valueEnd));
      return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Meta) : undefined;
    }
    i = skipBlanks(text, valueEnd);
    if (text[i] !== ',') return undefined;
    i++;
  }
}
