// Field selector terms with their value escaped, as apimachinery's fields.EscapeValue does: a value read from an object
// a requestor wrote (a node name, a namespace) can never add a term or end one (`a,b`, `a=b`), issue 40.

/** `\` `,` and `=` each preceded by a backslash (fields.EscapeValue); every other character as it is. */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** `field=value` with the value escaped: one term, whatever the value holds. */
export function fieldSelectorTerm(field: string, value: string): string {
  return `${field}=${escapeFieldSelectorValue(value)}`;
}
