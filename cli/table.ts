// A borderless, kubectl-style text table: columns padded to their widest cell, two spaces apart, the last column
// unpadded and cut to the terminal width. Widths count characters of plain text; colour is added after padding.

export type Colour = 'red' | 'green' | 'yellow' | 'cyan' | 'magenta' | 'dim' | 'bold';

const ANSI: Record<Colour, string> = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', magenta: '\x1b[35m', dim: '\x1b[2m', bold: '\x1b[1m' };
const RESET = '\x1b[0m';

export interface Cell {
  text: string;
  colour?: Colour;
}

export interface TableOptions {
  /** Emit ANSI colours. @default false */
  colour?: boolean;
  /** Cut the last column so each line fits this many characters (a TTY's columns). @default no limit */
  width?: number;
}

function paint(text: string, colour: Colour | undefined, enabled: boolean): string {
  return enabled && colour && text !== '' ? `${ANSI[colour]}${text}${RESET}` : text;
}

const length = (s: string): number => [...s].length;

function cut(text: string, room: number): string {
  const chars = [...text];
  return chars.length <= room ? text : `${chars.slice(0, Math.max(0, room - 1)).join('')}…`;
}

/** One string per line, header first, without trailing spaces or newlines. */
export function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly Cell[]>, opts: TableOptions = {}): string[] {
  const colour = opts.colour ?? false;
  const all: Array<readonly Cell[]> = [headers.map((text) => ({ text, colour: 'bold' as const })), ...rows];
  const widths = headers.map((_, i) => all.reduce((max, r) => Math.max(max, length(r[i]?.text ?? '')), -Infinity));
  const lastIndex = headers.length - 1;
  return all.map((row) => {
    let used = 0;
    const parts = row.map((cell, i) => {
      if (i === lastIndex) {
        const text = opts.width === undefined ? cell.text : cut(cell.text, opts.width - used);
        return paint(text, cell.colour, colour);
      }
      const width = widths[i] ?? 0;
      used += width + 2;
      return `${paint(cell.text, cell.colour, colour)}${' '.repeat(width - length(cell.text))}`;
    });
    return parts.join('  ').trimEnd();
  });
}
