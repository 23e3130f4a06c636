// listMetadataFromHead: the metadata of a LIST answer read before its items, or undefined (the caller then parses it
// all) whenever the head is not what the API server writes.
import { describe, expect, it } from 'vitest';
import { HEAD_LIMIT, listMetadataFromHead } from './list-head.ts';

const items = '[{"metadata":{"name":"node-0","annotations":{"a":"}]\\"{"}}}]';

describe('listMetadataFromHead', () => {
  it.each([
    { rule: "the API server's order: kind, apiVersion, metadata, items", text: `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},"items":${items}}`, expected: { resourceVersion: '9', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ' } },
    { rule: 'the last page: no continue', text: `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":${items}}`, expected: { resourceVersion: '9' } },
    { rule: 'pretty-printed, with blanks everywhere JSON allows them', text: `{\n  "kind" : "NodeList" ,\n\t"metadata" : { "resourceVersion" : "9" } ,\r\n "items": ${items}}`, expected: { resourceVersion: '9' } },
    { rule: 'escaped quotes and braces in a string before metadata are skipped as string', text: `{"kind":"a\\"},\\"metadata\\":{\\"continue\\":\\"x\\"}","metadata":{"continue":"y"},"items":[]}`, expected: { continue: 'y' } },
    { rule: 'nested objects, arrays, numbers and literals before metadata are skipped whole', text: `{"x":{"metadata":{"continue":"inner"}},"n":-1.5e3,"t":true,"z":null,"l":[1,{"a":"]"}],"metadata":{"continue":"outer"},"items":[]}`, expected: { continue: 'outer' } },
    { rule: 'an escaped key is read as JSON reads it', text: `{"\\u006detadata":{"continue":"c"},"items":[]}`, expected: { continue: 'c' } },
    { rule: 'items before metadata: not read from the head', text: `{"kind":"NodeList","items":${items},"metadata":{"continue":"c"}}`, expected: undefined },
    { rule: 'no metadata at all', text: '{"kind":"NodeList","apiVersion":"v1"}', expected: undefined },
    { rule: 'metadata that is not an object', text: '{"metadata":["c"],"items":[]}', expected: undefined },
    { rule: 'metadata null', text: '{"metadata":null,"items":[]}', expected: undefined },
    { rule: 'not an object', text: `[{"metadata":{"continue":"c"}}]`, expected: undefined },
    { rule: 'truncated inside metadata', text: '{"kind":"NodeList","metadata":{"continue":"c', expected: undefined },
    { rule: 'not JSON inside metadata', text: '{"metadata":{continue:"c"},"items":[]}', expected: undefined },
    { rule: 'a key without its colon', text: '{"kind" "NodeList","metadata":{"continue":"c"}}', expected: undefined },
    { rule: 'empty text', text: '', expected: undefined },
  ])('$rule', ({ text, expected }) => {
    expect(listMetadataFromHead(text)).toEqual(expected);
  });

  it('gives up when the metadata does not end within HEAD_LIMIT characters', () => {
    const long = 'x'.repeat(HEAD_LIMIT);
    expect(listMetadataFromHead(`{"kind":"${long}","metadata":{"continue":"c"},"items":[]}`)).toBeUndefined();
    expect(listMetadataFromHead(`{"kind":"NodeList","metadata":{"continue":"c"},"items":["${long}"]}`)).toEqual({ continue: 'c' });
  });
});
