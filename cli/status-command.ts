// `kmaint status [--watch]`: flags parsed once, one read rendered, or reads rendered until Ctrl-C or the timeout.
// One read, as kubectl get: -o json|yaml print the NodeMaintenance objects as one List, -o jsonpath=… applies a
// template to that List, and piped text starts with the table's header: the config and count lines are for a terminal
// (a config or CRD problem, and "no requests", still reach stderr); --no-headers leaves the header out. --watch is a
// log of views: each table with its config and count lines, or each view's rows as JSON lines / YAML documents.
import type { KubeClient } from '../shared/kube/index.ts';
import { parseDuration } from './duration.ts';
import { stringify } from 'yaml';
import { renderJsonPath } from './jsonpath.ts';
import { isDocumentFormat, renderDocuments, type OutputFormat } from './output-format.ts';
import type { RequestFilter } from './request-filter.ts';
import { readStatus, watchStatus, type StatusView } from './status.ts';
import { CLEAR_SCREEN, renderStatusNames, renderStatusText, statusChangeKey } from './status-render.ts';

export interface StatusFlags {
  watch?: boolean;
  /** Commander's --no-headers: false when given. */
  headers?: boolean;
  /** @default '2s' */
  interval: string;
  timeout?: string;
}

export interface StatusContext {
  client: KubeClient;
  logger: { debug(obj: object, msg?: string): void };
  /** kmaint's own namespace: where the MaintenanceOperatorConfig is read. */
  namespace: string;
  filter: RequestFilter;
  output: OutputFormat;
  /** The template of -o jsonpath=TEMPLATE. */
  jsonpath?: string;
  /** Colours and width when stdout is a terminal (text only); `tty` also makes --watch redraw. */
  terminal: { colour: boolean; width?: number };
  tty: boolean;
}

/** The requests as kubectl prints a list: `{apiVersion: v1, kind: List, items, metadata: {resourceVersion: ""}}`. */
export function statusList(view: StatusView): Record<string, unknown> {
  return { apiVersion: 'v1', items: view.objects ?? [], kind: 'List', metadata: { resourceVersion: '' } };
}

function renderer(ctx: StatusContext, flags: StatusFlags): (view: StatusView) => string {
  const format = ctx.output;
  if (isDocumentFormat(format)) {
    if (flags.watch) return (view) => renderDocuments(view.rows, format);
    return (view) => (format === 'json' ? `${JSON.stringify(statusList(view), null, 4)}\n` : stringify(statusList(view), { lineWidth: 0 }));
  }
  if (format === 'jsonpath') return (view) => renderJsonPath(ctx.jsonpath ?? '', statusList(view));
  if (format === 'name') return renderStatusNames;
  const tty = ctx.tty || flags.watch === true;
  return (view) => renderStatusText(view, { ...ctx.terminal, wide: format === 'wide', tty, headers: flags.headers !== false });
}

/** Off a terminal, what the config line would have warned about, and the "no requests" line, go to stderr. */
function notes(ctx: StatusContext, view: StatusView): string {
  if (ctx.tty || (ctx.output !== 'text' && ctx.output !== 'wide')) return '';
  const none = view.rows.length === 0 ? [`no NodeMaintenance requests${view.filtered ?? ''}`] : [];
  return [...(view.warnings ?? []), ...none].map((line) => `${line}\n`).join('');
}

export async function statusCommand(flags: StatusFlags, ctx: StatusContext): Promise<void> {
  const intervalMs = parseDuration(flags.interval);
  const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout);
  const render = renderer(ctx, flags);
  const read = async (): Promise<StatusView> => {
    const view = await readStatus(ctx.client, ctx.namespace, new Date(), ctx.filter);
    ctx.logger.debug({ requests: view.rows.length, apiRequests: ctx.client.counts.byVerb }, 'status read');
    return view;
  };
  if (!flags.watch) {
    const view = await read();
    process.stderr.write(notes(ctx, view));
    process.stdout.write(render(view));
    return;
  }
  const redraw = (ctx.output === 'text' || ctx.output === 'wide') && ctx.tty;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const write = (text: string): void => void process.stdout.write(redraw ? `${CLEAR_SCREEN}${text}` : text);
  await watchStatus({ read, render, write, redraw, intervalMs, ...(timeoutMs !== undefined ? { timeoutMs } : {}), signal: stop.signal }, statusChangeKey);
}
