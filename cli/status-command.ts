// `kmaint status [--watch]`: flags parsed once, one read rendered, or reads rendered until Ctrl-C or the timeout.
import type { KubeClient } from '../shared/kube/index.ts';
import { parseDuration } from './duration.ts';
import { isDocumentFormat, renderDocuments, type OutputFormat } from './output-format.ts';
import type { RequestFilter } from './request-filter.ts';
import { readStatus, watchStatus, type StatusView } from './status.ts';
import { CLEAR_SCREEN, renderStatusNames, renderStatusText, statusChangeKey } from './status-render.ts';

export interface StatusFlags {
  watch?: boolean;
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
  /** Colours and width when stdout is a terminal (text only); `tty` also makes --watch redraw. */
  terminal: { colour: boolean; width?: number };
  tty: boolean;
}

function renderer(ctx: StatusContext): (view: StatusView) => string {
  const format = ctx.output;
  if (isDocumentFormat(format)) return (view) => renderDocuments(view.rows, format);
  if (format === 'name') return renderStatusNames;
  return (view) => renderStatusText(view, { ...ctx.terminal, wide: format === 'wide' });
}

export async function statusCommand(flags: StatusFlags, ctx: StatusContext): Promise<void> {
  const intervalMs = parseDuration(flags.interval);
  const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout);
  const render = renderer(ctx);
  const read = async (): Promise<StatusView> => {
    const view = await readStatus(ctx.client, ctx.namespace, new Date(), ctx.filter);
    ctx.logger.debug({ requests: view.rows.length, apiRequests: ctx.client.counts.byVerb }, 'status read');
    return view;
  };
  if (!flags.watch) {
    process.stdout.write(render(await read()));
    return;
  }
  const redraw = (ctx.output === 'text' || ctx.output === 'wide') && ctx.tty;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const write = (text: string): void => void process.stdout.write(redraw ? `${CLEAR_SCREEN}${text}` : text);
  await watchStatus({ read, render, write, redraw, intervalMs, ...(timeoutMs !== undefined ? { timeoutMs } : {}), signal: stop.signal }, statusChangeKey);
}
