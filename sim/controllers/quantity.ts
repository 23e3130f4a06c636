// Kubernetes resource quantities ("100m", "16Mi", "1.5Gi", "2e3") as plain numbers of base units.

const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const PATTERN = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** The quantity in base units (cores, bytes, counts), or undefined when it is not a quantity. */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const m = PATTERN.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]);
  if (m[2] !== undefined) return Number(`${m[1]}${m[2]}`);
  const suffix = m[3] ?? '';
  return value * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}
