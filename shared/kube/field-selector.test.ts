import { describe, expect, it } from 'vitest';
import { escapeFieldSelectorValue, fieldSelectorTerm } from './field-selector.ts';

describe('escapeFieldSelectorValue (apimachinery fields.EscapeValue)', () => {
  it.each([
    { rule: 'a node name is unchanged', value: 'ip-10-0-1-7.eu-west-1.compute.internal', expected: 'ip-10-0-1-7.eu-west-1.compute.internal' },
    { rule: 'a comma cannot start another term', value: 'a,b', expected: 'a\\,b' },
    { rule: 'an equals sign cannot end the value', value: 'a=b', expected: 'a\\=b' },
    { rule: 'a backslash is escaped first, so an escape cannot be forged', value: 'a\\,b', expected: 'a\\\\\\,b' },
    { rule: 'every occurrence', value: ',=,\\', expected: '\\,\\=\\,\\\\' },
    { rule: 'other characters as they are', value: 'ä b!=', expected: 'ä b!\\=' },
    { rule: 'the empty value', value: '', expected: '' },
  ])('$rule', ({ value, expected }) => {
    expect(escapeFieldSelectorValue(value)).toBe(expected);
  });

  it('fieldSelectorTerm joins the field and the escaped value', () => {
    expect(fieldSelectorTerm('spec.nodeName', 'a,b')).toBe('spec.nodeName=a\\,b');
    expect(fieldSelectorTerm('metadata.name', 'node-1')).toBe('metadata.name=node-1');
  });
});
