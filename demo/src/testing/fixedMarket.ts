/**
 * A hand-driven price source for tests: quotes are set explicitly and a tick
 * is sent only when a test asks, so fills happen exactly when expected.
 */
import type { Quote } from '../market/simulator.js';
import type { InstrumentSpec, PriceSource, PriceTick } from '../broker/instruments.js';

const SPECS: readonly InstrumentSpec[] = [
  { symbol: 'BTCUSDT', decimals: 2, volumeScale: 14 },
  { symbol: 'ETHUSDT', decimals: 2, volumeScale: 180 },
  { symbol: 'SOLUSDT', decimals: 3, volumeScale: 2400 },
  { symbol: 'EURUSD', decimals: 5, volumeScale: 2500000 },
  { symbol: 'XAUUSD', decimals: 2, volumeScale: 900 },
];

const START: Readonly<Record<string, readonly [string, string]>> = {
  BTCUSDT: ['67250.00', '67250.02'],
  ETHUSDT: ['3420.00', '3420.02'],
  SOLUSDT: ['152.400', '152.403'],
  EURUSD: ['1.08500', '1.08503'],
  XAUUSD: ['2331.50', '2331.75'],
};

/** A price source whose quotes move only when a test says so. */
export class FixedMarket implements PriceSource {
  private readonly quotes = new Map<string, Quote>();
  private readonly listeners = new Set<(tick: PriceTick) => void>();

  constructor() {
    for (const [symbol, [bid, ask]] of Object.entries(START)) this.set(symbol, bid, ask);
  }

  has(symbol: string): boolean {
    return this.quotes.has(symbol);
  }

  spec(symbol: string): InstrumentSpec | undefined {
    return SPECS.find((s) => s.symbol === symbol);
  }

  symbols(): readonly InstrumentSpec[] {
    return SPECS;
  }

  quote(symbol: string): Quote {
    const quote = this.quotes.get(symbol);
    if (!quote) throw new Error('unquoted');
    return quote;
  }

  subscribe(listener: (tick: PriceTick) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sets a quote without ticking; last is the bid. */
  set(symbol: string, bid: string, ask: string): void {
    this.quotes.set(symbol, { symbol, bid, ask, last: bid, time: '2026-01-05T12:00:00.000Z' });
  }

  /** Sends one tick of `symbol` at its current (or a new) quote. */
  tick(symbol: string, bid?: string, ask?: string): void {
    if (bid !== undefined && ask !== undefined) this.set(symbol, bid, ask);
    const quote = this.quote(symbol);
    for (const listener of this.listeners) listener({ symbol, quote });
  }
}
