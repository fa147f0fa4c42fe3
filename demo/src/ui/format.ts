/**
 * Number formatting for what a person reads (wire values stay decimal strings).
 */

const formatters = new Map<number, Intl.NumberFormat>();

/** A price with grouping and a fixed number of decimals, e.g. `67,250.10`. */
export function formatDisplayPrice(value: number, decimals: number): string {
  let formatter = formatters.get(decimals);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    formatters.set(decimals, formatter);
  }
  return formatter.format(value);
}

/** A signed percentage, e.g. `+1.25%`. */
export function formatPercent(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(2)}%`;
}

/** A compact volume, e.g. `12.4K`. */
export function formatVolume(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)}B`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}K`;
  return value.toFixed(value < 10 ? 3 : 1);
}
