/**
 * The simulated market: a seeded random walk per instrument, one-minute bars
 * aggregated on demand to chart intervals, and live quotes every ~500 ms.
 */
import type { QuoteEvent } from '../../../src/protocol/index.js';
import { aggregateCandles, bucketStart, INTERVAL_SECONDS, type Candle, type Interval } from './candles.js';
import { hashSeed } from './prng.js';
import { firstIndexAtOrAfter, SymbolBook } from './symbolBook.js';
import { formatPrice, roundToTick, SYMBOLS, type SymbolSpec } from './symbols.js';

/** A quote as the `data.quotes` channel carries it: decimal strings, ISO time. */
export type Quote = QuoteEvent;

/** One live update of one instrument. */
export interface MarketTick {
  readonly symbol: string;
  readonly price: number;
  readonly quote: Quote;
}

/** How the market is built. */
export interface MarketOptions {
  /** Same seed and clock, same market. */
  seed: number;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  now?: () => number;
  /** One-minute bars of history per instrument (default 300 hours). */
  historyMinutes?: number;
  symbols?: readonly SymbolSpec[];
}

/** The change since the same time yesterday (or since the oldest bar held). */
export interface DayChange {
  readonly reference: number;
  readonly change: number;
  /** Percent, e.g. -1.25. */
  readonly changePercent: number;
}

const DEFAULT_HISTORY_MINUTES = 300 * 60;
/** Most bars of any interval handed to a chart: "a few hundred". */
export const MAX_CHART_BARS = 500;

/** A deterministic simulated market with a subscribe API for ticks. */
export class MarketSimulator {
  readonly seed: number;
  private readonly now: () => number;
  private readonly books = new Map<string, SymbolBook>();
  private readonly listeners = new Set<(tick: MarketTick) => void>();
  private lastTickMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MarketOptions) {
    this.seed = options.seed;
    this.now = options.now ?? Date.now;
    this.lastTickMs = this.now();
    const history = options.historyMinutes ?? DEFAULT_HISTORY_MINUTES;
    for (const spec of options.symbols ?? SYMBOLS) {
      this.books.set(spec.symbol, new SymbolBook(spec, options.seed, this.lastTickMs / 1000, history));
    }
  }

  /** Every instrument, in watchlist order. */
  symbols(): SymbolSpec[] {
    return [...this.books.values()].map((book) => book.spec);
  }

  /** The instrument, or undefined when the market does not quote it. */
  spec(symbol: string): SymbolSpec | undefined {
    return this.books.get(symbol)?.spec;
  }

  /** True when the market quotes this ticker. */
  has(symbol: string): boolean {
    return this.books.has(symbol);
  }

  /** The last `limit` bars of `interval`, oldest first; the last one is still forming. */
  candles(symbol: string, interval: Interval, limit = MAX_CHART_BARS): Candle[] {
    const bars = this.book(symbol).minuteBars();
    const last = bars[bars.length - 1];
    if (!last) return [];
    const seconds = INTERVAL_SECONDS[interval];
    const from = bucketStart(last.time, seconds) - (Math.max(limit, 1) - 1) * seconds;
    return aggregateCandles(bars.slice(firstIndexAtOrAfter(bars, from)), seconds);
  }

  /**
   * Older history, as a terminal fetches it when the person (or an agent)
   * scrolls before the bars it holds: the `limit` bars of `interval` of the
   * fixed window that holds `time` (windows tile the time axis, so every time
   * has one window and the same seed always gives it the same bars). Each
   * window is a price path of its own, not continuous with the live bars.
   */
  archiveCandles(symbol: string, interval: Interval, time: number, limit = MAX_CHART_BARS): Candle[] {
    const spec = this.book(symbol).spec;
    const seconds = INTERVAL_SECONDS[interval];
    const span = Math.max(limit, 1) * seconds;
    const window = Math.floor(time / span);
    const lastMinute = (window + 1) * span - 60;
    const book = new SymbolBook(spec, hashSeed(this.seed, interval, window), lastMinute, span / 60);
    return aggregateCandles(book.minuteBars(), seconds);
  }

  /** Bars of `interval` whose bucket starts at or after `time`. */
  candlesSince(symbol: string, interval: Interval, time: number): Candle[] {
    const bars = this.book(symbol).minuteBars();
    const seconds = INTERVAL_SECONDS[interval];
    return aggregateCandles(bars.slice(firstIndexAtOrAfter(bars, bucketStart(time, seconds))), seconds);
  }

  /** The last traded price. */
  lastPrice(symbol: string): number {
    return this.book(symbol).price();
  }

  /** The current quote. */
  quote(symbol: string): Quote {
    const book = this.book(symbol);
    return quoteOf(book.spec, book.price(), this.now());
  }

  /** The change against the price 24 hours before the last bar. */
  dayChange(symbol: string): DayChange {
    const bars = this.book(symbol).minuteBars();
    const last = bars[bars.length - 1];
    const index = last ? firstIndexAtOrAfter(bars, last.time - 86_400) : 0;
    const reference = bars[index]?.open ?? this.lastPrice(symbol);
    const change = this.lastPrice(symbol) - reference;
    return { reference, change, changePercent: reference === 0 ? 0 : (change / reference) * 100 };
  }

  /** Calls `listener` with every tick of every instrument; returns the unsubscribe. */
  subscribe(listener: (tick: MarketTick) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many tick listeners are subscribed (tests check channel sources release theirs). */
  listenerCount(): number {
    return this.listeners.size;
  }

  /** Moves every instrument to the clock's time and notifies subscribers. */
  advance(): void {
    const nowMs = this.now();
    const elapsed = Math.max(nowMs - this.lastTickMs, 0) / 1000;
    this.lastTickMs = nowMs;
    for (const book of this.books.values()) {
      const price = book.tick(nowMs / 1000, elapsed);
      const tick: MarketTick = { symbol: book.spec.symbol, price, quote: quoteOf(book.spec, price, nowMs) };
      for (const listener of this.listeners) listener(tick);
    }
  }

  /** Ticks every `periodMs` until {@link stop}. */
  start(periodMs = 500): void {
    this.stop();
    this.timer = setInterval(() => this.advance(), periodMs);
  }

  /** True between {@link start} and {@link stop}. */
  ticking(): boolean {
    return this.timer !== undefined;
  }

  /** Stops ticking. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private book(symbol: string): SymbolBook {
    const book = this.books.get(symbol);
    if (!book) throw new Error(`The market does not quote ${symbol}.`);
    return book;
  }
}

/** A quote around `last`, its spread from the instrument's tick size. */
export function quoteOf(spec: SymbolSpec, last: number, timeMs: number): Quote {
  const half = (spec.spreadTicks / 2) * 10 ** -spec.decimals;
  const bid = roundToTick(spec, last - half);
  const ask = Math.max(roundToTick(spec, last + half), bid + 10 ** -spec.decimals);
  return {
    symbol: spec.symbol,
    bid: formatPrice(spec, bid),
    ask: formatPrice(spec, ask),
    last: formatPrice(spec, last),
    time: new Date(timeMs).toISOString(),
  };
}
