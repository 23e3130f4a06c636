// Lists in messages kept to one readable line: the first few items, then how many more. The one place
// "and N more" is written (the lint rule of tools/lint/written-once.json refuses a new copy).

/**
 * `a, b, c and 4 more`: the first `max` items joined by `separator`, then the count of the rest. A separator other
 * than `, ` also stands before "and" (`a; b; and 4 more`), so clauses that hold commas stay apart.
 */
export function shortList(items: readonly string[], max: number, separator = ', '): string {
  if (items.length <= max) return items.join(separator);
  return `${items.slice(0, max).join(separator)}${separator === ', ' ? ' ' : separator}and ${items.length - max} more`;
}
