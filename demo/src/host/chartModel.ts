/**
 * What the chart controls need from a chart, so they can be tested without a
 * DOM: the lightweight-charts pane implements it in the page.
 */
import type { TradingLineStore } from '../chart/tradingLines.js';
import type { Interval } from '../market/candles.js';

/** A span of time in unix seconds, `from` before `to`. */
export interface TimeRange {
  from: number;
  to: number;
}

/** One chart as its controls see it. */
export interface ChartModel {
  readonly chartId: string;
  readonly lines: TradingLineStore;
  symbol(): string;
  interval(): Interval;
  /** What the chart shows now. */
  visibleRange(): TimeRange;
  /** The span of the loaded bars. */
  dataRange(): TimeRange;
  /** Applies a range as a program (no person gesture) and returns what the chart then shows. */
  applyVisibleRange(range: TimeRange): TimeRange;
  /** Shows another instrument (the caller checked the market quotes it). */
  setSymbol(symbol: string): void;
  setInterval(interval: Interval): void;
  /** The last price of the chart's instrument, as a decimal string. */
  lastPrice(): string;
}
