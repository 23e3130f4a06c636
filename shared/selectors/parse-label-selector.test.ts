import { describe, expect, it } from 'vitest';
import { UPSTREAM_OWN_POD_SELECTOR } from '#api';
import { formatLabelSelector, type LabelRequirement, type LabelSelectorOperator } from './label-selector.ts';
import { parseLabelSelector } from './parse-label-selector.ts';

const req = (key: string, operator: LabelSelectorOperator, ...values: string[]): LabelRequirement => ({ key, operator, values });

describe('parseLabelSelector accepts what labels.Parse accepts', () => {
  it.each<[string, string, LabelRequirement[]]>([
    ['empty string selects everything', '', []],
    ['whitespace only selects everything', ' \t\n ', []],
    ['equals', 'app=web', [req('app', '=', 'web')]],
    ['double equals is kept apart from equals', 'app==web', [req('app', '==', 'web')]],
    ['not equals', 'app!=web', [req('app', '!=', 'web')]],
    ['in with a set, values sorted', 'tier in (web, api)', [req('tier', 'in', 'api', 'web')]],
    ['notin with a set', 'tier notin (db)', [req('tier', 'notin', 'db')]],
    ['duplicate set values collapse', 'tier in (a,a,b)', [req('tier', 'in', 'a', 'b')]],
    ['exists', 'gpu', [req('gpu', 'exists')]],
    ['does not exist', '!gpu', [req('gpu', '!')]],
    ['does not exist with a space after !', '! gpu', [req('gpu', '!')]],
    ['greater than', 'rank>3', [req('rank', 'gt', '3')]],
    ['less than', 'rank < 10', [req('rank', 'lt', '10')]],
    ['empty exact value means the empty string', 'app=', [req('app', '=', '')]],
    ['empty exact value before a comma', 'app=,tier', [req('app', '=', ''), req('tier', 'exists')]],
    ['() is the set holding the empty string', 'app in ()', [req('app', 'in', '')]],
    ['(,a) holds the empty string and a', 'app in (,a)', [req('app', 'in', '', 'a')]],
    ['(a,) holds a and the empty string', 'app in (a,)', [req('app', 'in', '', 'a')]],
    ['(a,,b) holds the empty string between', 'app in (a,,b)', [req('app', 'in', '', 'a', 'b')]],
    ['(,) holds only the empty string', 'app in (,)', [req('app', 'in', '')]],
    ['whitespace everywhere', '  a = 1 ,  b  in  ( x , y )  , ! c ', [req('a', '=', '1'), req('b', 'in', 'x', 'y'), req('c', '!')]],
    ['no whitespace around in', 'b in(x)', [req('b', 'in', 'x')]],
    ['requirements sorted by key, stable for equal keys', 'z=1,a!=2,a=3', [req('a', '!=', '2'), req('a', '=', '3'), req('z', '=', '1')]],
    ['DNS prefix on the key', 'example.com/name=v', [req('example.com/name', '=', 'v')]],
    ['upper case, dots, dashes and underscores in a name', 'My_Name.x-1=Val_1.b-2', [req('My_Name.x-1', '=', 'Val_1.b-2')]],
    ['the words in and notin are valid keys and values', 'in in (notin),notin=in', [req('in', 'in', 'notin'), req('notin', '=', 'in')]],
    ['63-character name part', `${'a'.repeat(63)}=v`, [req('a'.repeat(63), '=', 'v')]],
    ['upstream implicit selector', UPSTREAM_OWN_POD_SELECTOR, [req('app.kubernetes.io/component', '!=', 'maintenance-operator-controller-manager')]],
  ])('%s: %j', (_rule, text, expected) => {
    expect(parseLabelSelector(text)).toEqual({ ok: true, selector: { requirements: expected } });
  });
});

describe('parseLabelSelector rejects what labels.Parse rejects, naming the bad token', () => {
  it.each<[string, string, string]>([
    ['leading comma', ',a', "found ',' at column 1, expected a label key or '!'"],
    ['trailing comma', 'a,', "found end of string at column 3, expected a label key or '!' after ','"],
    ['double comma', 'a,,b', "found ',' at column 3, expected a label key or '!' after ','"],
    ['operator without key', '=v', "found '=' at column 1, expected a label key or '!'"],
    ['two words without operator', 'a b', "found 'b' at column 3, expected an operator (=, ==, !=, in, notin, >, <)"],
    ['value followed by another word', 'a=b c', "found 'c' at column 5, expected ',' or end of string"],
    ['!k cannot take an operator', '!a=b', "found '=' at column 3, expected ',' or end of string"],
    ['! alone', '!', 'found end of string at column 2, expected a label key'],
    ['triple equals', 'a===b', "found '=' at column 4, expected a label value"],
    ['!== is != then =', 'a!==b', "found '=' at column 4, expected a label value"],
    ['in without parentheses', 'a in b', "found 'b' at column 6, expected '('"],
    ['unclosed set', 'a in (b', "found end of string at column 8, expected ',' or ')'"],
    ['set members need commas', 'a in (b c)', "found 'c' at column 9, expected ',' or ')'"],
    ['(a,,) is rejected upstream', 'a in (a,,)', "found ')' at column 10, expected a label value or ','"],
    ['set opened by an operator', 'a in (=)', "found '=' at column 7, expected a label value, ',' or ')'"],
    ['exact value cannot be a parenthesis', 'a=(b)', "found '(' at column 3, expected a label value"],
    ['bad key character', 'a$b=c', 'invalid label key "a$b" at column 1: name part "a$b" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')'],
    ['key ending in a dash', 'ab-=c', 'invalid label key "ab-" at column 1: name part "ab-" must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', \'my.name\', \'123-abc\')'],
    ['upper-case prefix', 'Example.com/a=b', 'invalid label key "Example.com/a" at column 1: prefix part "Example.com" must be a lowercase RFC 1123 subdomain: lowercase alphanumeric characters, \'-\' or \'.\', each dot-separated part starting and ending with an alphanumeric character (e.g. \'example.com\')'],
    ['empty prefix', '/a=b', 'invalid label key "/a" at column 1: prefix part must not be empty'],
    ['empty name after prefix', 'example.com/=b', 'invalid label key "example.com/" at column 1: name part must not be empty'],
    ['two slashes', 'a/b/c', "invalid label key \"a/b/c\" at column 1: must be a name with an optional DNS subdomain prefix and a single '/' (e.g. 'example.com/MyName')"],
    ['64-character name part', `${'a'.repeat(64)}`, `invalid label key "${'a'.repeat(64)}" at column 1: name part must be no more than 63 characters`],
    ['254-character prefix', `${'a'.repeat(254)}/n`, `invalid label key "${'a'.repeat(254)}/n" at column 1: prefix part must be no more than 253 characters`],
    ['bad value', 'a=-b', 'invalid value "-b" for label key "a": must be empty or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\', \'12345\')'],
    ['64-character value', `a=${'v'.repeat(64)}`, `invalid value "${'v'.repeat(64)}" for label key "a": must be no more than 63 characters`],
    ['bad value inside a set', 'a in (ok, no_)', 'invalid value "no_" for label key "a": must be empty or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\', \'12345\')'],
    ['gt needs an integer', 'a>b', 'key "a": operator gt needs exactly one integer value, got "b"'],
    ['gt needs a value', 'a>', 'key "a": operator gt needs exactly one integer value, got ""'],
    ['gt outside int64', 'a>9223372036854775808', 'key "a": operator gt needs exactly one integer value, got "9223372036854775808"'],
    ['non-ASCII is not a label character', 'app=wéb', 'invalid value "wéb" for label key "app": must be empty or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', \'my_value\', \'12345\')'],
    ['vertical tab is not whitespace upstream', 'a\u000b=b', `invalid label key "a\u000b" at column 1: name part "a\u000b" must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', 'my.name', '123-abc')`],
  ])('%s: %j', (_rule, text, detail) => {
    expect(parseLabelSelector(text)).toEqual({ ok: false, error: `invalid label selector "${text}": ${detail}` });
  });
});

describe('formatLabelSelector writes the canonical form labels.Selector.String() writes', () => {
  it.each<[string, string]>([
    ['', ''],
    ['b=1, a==2', 'a==2,b=1'],
    ['x in (c, a, b)', 'x in (a,b,c)'],
    ['x notin ()', 'x notin ()'],
    ['!y,z', '!y,z'],
    ['r>1,r<5,s!=t', 'r>1,r<5,s!=t'],
    [UPSTREAM_OWN_POD_SELECTOR, UPSTREAM_OWN_POD_SELECTOR],
  ])('%j -> %j', (text, expected) => {
    const parsed = parseLabelSelector(text);
    expect(parsed.ok && formatLabelSelector(parsed.selector)).toBe(expected);
    // The canonical form parses back to the same selector.
    const again = parseLabelSelector(expected);
    expect(again).toEqual(parsed);
  });
});
