// -o jsonpath=TEMPLATE: kubectl's template syntax (kubernetes.io/docs/reference/kubectl/jsonpath) on a List as status
// prints it, and the templates kmaint refuses with one line (exit 2).
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './errors.ts';
import { renderJsonPath } from './jsonpath.ts';

const LIST = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { metadata: { name: 'fw', namespace: 'team-a', labels: { 'app.kubernetes.io/name': 'fw-tool' } }, spec: { nodeName: 'n1' } },
    { metadata: { name: 'os', namespace: 'team-a', labels: {} }, spec: { nodeName: 'n2' } },
  ],
};

describe('renderJsonPath', () => {
  it.each<[string, string, string]>([
    ['a path matching several values prints them separated by spaces', '{.items[*].metadata.name}', 'fw os'],
    ['a leading $ is the root too', '{$.kind}', 'List'],
    ['an index, and a negative one from the end', '{.items[0].spec.nodeName} {.items[-1].spec.nodeName}', 'n1 n2'],
    ['a key with dots in brackets', "{.items[0].metadata.labels['app.kubernetes.io/name']}", 'fw-tool'],
    ['range … end with quoted separators', '{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}', 'team-a/fw\tn1\nteam-a/os\tn2\n'],
    ['an object prints as JSON', '{.items[1].metadata.labels}', '{}'],
    ['a path matching nothing prints nothing', '{.items[*].status.phase}', ''],
    ['text around the expressions stays', 'kind={.kind}.', 'kind=List.'],
  ])('%s', (_rule, template, want) => {
    expect(renderJsonPath(template, LIST)).toBe(want);
  });

  it.each<[string, string, string]>([
    ['a filter', '{.items[?(@.spec.nodeName=="n1")]}', '-o jsonpath={.items[?(@.spec.nodeName=="n1")]}: cannot read "[?(@.spec.nodeName=="n1")]" (kmaint reads fields, [\'names\'], [n] and [*])'],
    ['range without end', '{range .items[*]}{.metadata.name}', '-o jsonpath={range .items[*]}{.metadata.name}: {range} without {end}'],
    ['end without range', '{.kind}{end}', '-o jsonpath={.kind}{end}: {end} without {range}'],
  ])('refuses %s (exit 2)', (_rule, template, message) => {
    let caught: unknown;
    try {
      renderJsonPath(template, LIST);
    } catch (err) {
      caught = err;
    }
    expect([(caught as Error | undefined)?.message, exitCodeOf(caught)]).toEqual([message, 2]);
  });
});
