/**
 * What the chart controls need from a chart, so they can be tested without a
 * DOM: the lightweight-charts pane implements it in the page.
 */
import type { TradingLineStore } from './tradingLines.js';
import type { Interval } from '../market/candles.js';

/** A span of time in unix seconds, `from` before `to` (lightweight-charts' own shape, inside the demo). */
export interface TimeRange {
  from: number;
  to: number;
}

/**
 * A span of time in unix seconds as agents and tests see it: TradeScript's public
 * vocabulary (`chart.setVisibleRange` takes `[{startTime, endTime}]`, SPEC §10).
 */
export interface VisibleRange {
  startTime: number;
  endTime: number;
}

/** The public form of a chart range. */
export function toVisibleRange(range: TimeRange): VisibleRange {
  return { startTime: range.from, endTime: range.to };
}

/** The chart's form of a public range. */
export function toTimeRange(range: VisibleRange): TimeRange {
  return { from: range.startTime, to: range.endTime };
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
  /** When the newest bar (the one still forming) starts: no range may start after it. */
  newestTime(): number;
  /**
   * Applies a range as a program (no person gesture) and returns what the chart
   * then shows; a range before the loaded bars fetches that older history first.
   */
  applyVisibleRange(range: TimeRange): TimeRange;
  /** Shows another instrument (the caller checked the market quotes it). */
  setSymbol(symbol: string): void;
  setInterval(interval: Interval): void;
  /** The last price of the chart's instrument, as a decimal string. */
  lastPrice(): string;
}
