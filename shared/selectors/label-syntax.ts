// Label key and value syntax as apimachinery validates it (IsQualifiedName, IsValidLabelValue), and Go's int64 parsing.
// Hand-written scanners instead of regular expressions: linear in the input, and each failure can say what is wrong.

const QUALIFIED_NAME_MAX = 63;
const DNS_SUBDOMAIN_MAX = 253;
const LABEL_VALUE_MAX = 63;

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', 'my.name', '123-abc')";
const PREFIX_RULE =
  "must be a lowercase RFC 1123 subdomain: lowercase alphanumeric characters, '-' or '.', each dot-separated part starting and ending with an alphanumeric character (e.g. 'example.com')";
const VALUE_RULE =
  "must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', 'my_value', '12345')";

function isAlphanumeric(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

function isLowerAlphanumeric(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, the shape shared by label names and non-empty label values. */
function isQualifiedNameShape(text: string): boolean {
  if (text.length === 0) return false;
  if (!isAlphanumeric(text[0] ?? '') || !isAlphanumeric(text[text.length - 1] ?? '')) return false;
  for (const ch of text) {
    if (!isAlphanumeric(ch) && ch !== '-' && ch !== '_' && ch !== '.') return false;
  }
  return true;
}

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*` */
function isDnsSubdomainShape(text: string): boolean {
  return text.split('.').every((part) => {
    if (part.length === 0) return false;
    if (!isLowerAlphanumeric(part[0] ?? '') || !isLowerAlphanumeric(part[part.length - 1] ?? '')) return false;
    for (const ch of part) {
      if (!isLowerAlphanumeric(ch) && ch !== '-') return false;
    }
    return true;
  });
}

/** Why `key` is not a valid label key (`[prefix/]name`), or undefined when it is. */
export function labelKeyError(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) {
    return "must be a name with an optional DNS subdomain prefix and a single '/' (e.g. 'example.com/MyName')";
  }
  const [prefix, name] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : [undefined, parts[0] ?? ''];
  if (prefix !== undefined) {
    if (prefix.length === 0) return 'prefix part must not be empty';
    if (prefix.length > DNS_SUBDOMAIN_MAX) return `prefix part must be no more than ${DNS_SUBDOMAIN_MAX} characters`;
    if (!isDnsSubdomainShape(prefix)) return `prefix part "${prefix}" ${PREFIX_RULE}`;
  }
  if (name.length === 0) return 'name part must not be empty';
  if (name.length > QUALIFIED_NAME_MAX) return `name part must be no more than ${QUALIFIED_NAME_MAX} characters`;
  if (!isQualifiedNameShape(name)) return `name part "${name}" ${NAME_RULE}`;
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is (the empty string is valid). */
export function labelValueError(value: string): string | undefined {
  if (value.length > LABEL_VALUE_MAX) return `must be no more than ${LABEL_VALUE_MAX} characters`;
  if (value.length > 0 && !isQualifiedNameShape(value)) return VALUE_RULE;
  return undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(text, 10, 64): optional sign, decimal digits, int64 range; undefined otherwise. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}
