/**
 * Candles and their aggregation from one-minute bars to coarser intervals.
 */

/** Chart intervals the terminal offers. */
export const INTERVALS = ['1m', '5m', '15m', '1h'] as const;
/** A chart interval. */
export type Interval = (typeof INTERVALS)[number];

/** Seconds per interval. */
export const INTERVAL_SECONDS: Readonly<Record<Interval, number>> = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600 };

/** One OHLCV bar; `time` is the bucket start in unix seconds. */
export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** True for one of {@link INTERVALS}. */
export function isInterval(value: string): value is Interval {
  return (INTERVALS as readonly string[]).includes(value);
}

/** The start of the bucket holding `time` (unix seconds). */
export function bucketStart(time: number, intervalSeconds: number): number {
  return Math.floor(time / intervalSeconds) * intervalSeconds;
}

/**
 * Folds time-ordered bars into buckets of `intervalSeconds`. Bars already
 * coarser than the interval are not split; callers pass one-minute bars.
 */
export function aggregateCandles(bars: readonly Candle[], intervalSeconds: number): Candle[] {
  const out: Candle[] = [];
  let current: Candle | undefined;
  for (const bar of bars) {
    const time = bucketStart(bar.time, intervalSeconds);
    if (current && current.time === time) {
      current.high = Math.max(current.high, bar.high);
      current.low = Math.min(current.low, bar.low);
      current.close = bar.close;
      current.volume += bar.volume;
    } else {
      current = { ...bar, time };
      out.push(current);
    }
  }
  return out;
}

/** Applies a trade at `price` to a bar in place. */
export function applyTrade(bar: Candle, price: number, volume: number): void {
  bar.high = Math.max(bar.high, price);
  bar.low = Math.min(bar.low, price);
  bar.close = price;
  bar.volume += volume;
}
