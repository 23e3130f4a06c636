// Server-side printing (Accept: application/json;as=Table;g=meta.k8s.io;v=v1) for `kubectl get`: the built-in
// printers, custom resources by their printer columns, any other kind as Name + Created At.
import { objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';
import { findAll } from './jsonpath.ts';
import { keyOf, type KindInfo } from './kinds.ts';
import { CORE_PRINTERS } from './printers.ts';
import { humanDuration, NAME, type Printer } from './printer-kit.ts';
import { WORKLOAD_PRINTERS } from './workload-printers.ts';

export { humanDuration } from './printer-kit.ts';

function customPrinter(kind: KindInfo): Printer {
  const columns = kind.custom?.printerColumns ?? [];
  return {
    columns: [NAME, ...columns.map((c) => ({ name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority }))],
    cells: (obj, now) => [
      stringAt(objectAt(obj, 'metadata'), 'name') ?? '',
      ...columns.map((c): Json => {
        const value = findAll(obj, c.jsonPath)[0];
        if (value === undefined || value === null) return null;
        switch (c.type) {
          case 'string':
            return typeof value === 'string' ? value : JSON.stringify(value);
          case 'integer':
            return typeof value === 'number' ? Math.trunc(value) : null;
          case 'number':
            return typeof value === 'number' ? value : null;
          case 'boolean':
            return typeof value === 'boolean' ? value : null;
          case 'date':
            return typeof value === 'string' ? (Number.isNaN(Date.parse(value)) ? '<invalid>' : humanDuration(now - Date.parse(value))) : null;
          default:
            return null;
        }
      }),
    ],
  };
}

const DEFAULT_PRINTER: Printer = {
  columns: [NAME, { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 }],
  cells: (obj) => [stringAt(objectAt(obj, 'metadata'), 'name') ?? '', stringAt(objectAt(obj, 'metadata'), 'creationTimestamp') ?? ''],
};

function printerFor(kind: KindInfo): Printer {
  if (kind.custom) return customPrinter(kind);
  return CORE_PRINTERS[keyOf(kind)] ?? WORKLOAD_PRINTERS[keyOf(kind)] ?? DEFAULT_PRINTER;
}

export type IncludeObject = 'Metadata' | 'Object' | 'None';

export interface TableOptions {
  now: number;
  includeObject: IncludeObject;
  noHeaders: boolean;
  listMeta: { resourceVersion: string; continue?: string; remainingItemCount?: number };
}

/** A meta.k8s.io/v1 Table of `objects` (one for GET, a page for LIST, one per event for WATCH). */
export function toTable(kind: KindInfo, objects: readonly JsonObject[], options: TableOptions): JsonObject {
  const printer = printerFor(kind);
  const rows = objects.map((obj): JsonObject => {
    const row: JsonObject = { cells: printer.cells(obj, options.now) };
    if (options.includeObject === 'Object') row['object'] = obj;
    else if (options.includeObject === 'Metadata') row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: objectAt(obj, 'metadata') ?? {} };
    return row;
  });
  const metadata: JsonObject = { resourceVersion: options.listMeta.resourceVersion };
  if (options.listMeta.continue) metadata['continue'] = options.listMeta.continue;
  if (options.listMeta.remainingItemCount !== undefined) metadata['remainingItemCount'] = options.listMeta.remainingItemCount;
  const table: JsonObject = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata };
  if (!options.noHeaders) table['columnDefinitions'] = printer.columns.map((c) => ({ ...c }));
  table['rows'] = rows;
  return table;
}
