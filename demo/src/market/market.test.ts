import { describe, expect, it, vi } from 'vitest';
import { aggregateCandles, bucketStart, type Candle } from './candles.js';
import { createPrng, hashSeed } from './prng.js';
import { MarketSimulator, quoteOf } from './simulator.js';
import { findSymbol } from './symbols.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 30);

function market(seed: number, clock = { ms: T0 }): MarketSimulator {
  return new MarketSimulator({ seed, now: () => clock.ms, historyMinutes: 600 });
}

describe('seeded PRNG', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const c = createPrng(43);
    const seqA = Array.from({ length: 8 }, () => a.next());
    expect(Array.from({ length: 8 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 8 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('hashes parts so that order and separation matter', () => {
    expect(hashSeed('ab', 'c')).not.toBe(hashSeed('a', 'bc'));
    expect(hashSeed(1, 'BTCUSDT')).toBe(hashSeed(1, 'BTCUSDT'));
  });
});

describe('market simulator determinism', () => {
  it('builds the same history and live ticks from the same seed and clock', () => {
    const clockA = { ms: T0 };
    const clockB = { ms: T0 };
    const a = market(7, clockA);
    const b = market(7, clockB);
    expect(a.candles('BTCUSDT', '1m')).toEqual(b.candles('BTCUSDT', '1m'));
    for (let i = 0; i < 20; i++) {
      clockA.ms += 500;
      clockB.ms += 500;
      a.advance();
      b.advance();
    }
    expect(a.quote('ETHUSDT')).toEqual(b.quote('ETHUSDT'));
    expect(a.candles('ETHUSDT', '5m', 10)).toEqual(b.candles('ETHUSDT', '5m', 10));
  });

  it('gives another path for another seed', () => {
    expect(market(1).candles('BTCUSDT', '1m', 50)).not.toEqual(market(2).candles('BTCUSDT', '1m', 50));
  });

  it('keeps one instrument unchanged when the symbol list changes', () => {
    const btc = findSymbol('BTCUSDT');
    if (!btc) throw new Error('BTCUSDT missing');
    const alone = new MarketSimulator({ seed: 9, now: () => T0, historyMinutes: 120, symbols: [btc] });
    expect(alone.candles('BTCUSDT', '1m')).toEqual(
      new MarketSimulator({ seed: 9, now: () => T0, historyMinutes: 120 }).candles('BTCUSDT', '1m'),
    );
  });

  it('ends history at the minute of the clock with contiguous one-minute bars', () => {
    const bars = market(3).candles('SOLUSDT', '1m', 1000);
    expect(bars).toHaveLength(600);
    expect(bars.at(-1)?.time).toBe(bucketStart(T0 / 1000, 60));
    for (let i = 1; i < bars.length; i++) expect((bars[i]?.time ?? 0) - (bars[i - 1]?.time ?? 0)).toBe(60);
    for (const bar of bars)
      expect(bar.high >= Math.max(bar.open, bar.close) && bar.low <= Math.min(bar.open, bar.close)).toBe(true);
  });

  it('books live ticks into the forming bar and opens a new bar on the next minute', () => {
    const clock = { ms: T0 };
    const sim = market(5, clock);
    const ticks: string[] = [];
    const stop = sim.subscribe((tick) => {
      if (tick.symbol === 'BTCUSDT') ticks.push(tick.quote.last);
    });
    clock.ms += 500;
    sim.advance();
    expect(sim.candles('BTCUSDT', '1m', 1)[0]?.close).toBe(sim.lastPrice('BTCUSDT'));
    clock.ms += 60_000;
    sim.advance();
    stop();
    clock.ms += 500;
    sim.advance();
    expect(ticks).toHaveLength(2);
    expect(sim.candles('BTCUSDT', '1m', 1)[0]?.time).toBe(bucketStart(clock.ms / 1000, 60));
  });
});

describe('the market clock (the demo hook a bench pauses it through)', () => {
  it('ticks every period after start, not at all after stop, and again after a restart', () => {
    vi.useFakeTimers();
    try {
      const sim = market(5);
      let ticks = 0;
      sim.subscribe((tick) => {
        if (tick.symbol === 'BTCUSDT') ticks++;
      });
      sim.start(500);
      vi.advanceTimersByTime(1_500);
      expect([ticks, sim.ticking()]).toEqual([3, true]);
      sim.stop();
      vi.advanceTimersByTime(5_000);
      expect([ticks, sim.ticking()]).toEqual([3, false]);
      sim.start(500);
      vi.advanceTimersByTime(1_000);
      expect([ticks, sim.ticking()]).toEqual([5, true]);
      sim.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('older history on demand', () => {
  // The seed example of reference 004 scrolls to 2025-01-01/02, long before the live bars.
  const SEED_END = 1_735_776_000;

  it('fetches a fixed window of contiguous bars holding the time, the same on every fetch', () => {
    const sim = market(7);
    const bars = sim.archiveCandles('BTCUSDT', '1m', SEED_END);
    expect(bars).toHaveLength(500);
    expect(bars[0]!.time).toBeLessThanOrEqual(SEED_END);
    expect(bars[bars.length - 1]!.time).toBeGreaterThanOrEqual(SEED_END);
    for (let i = 1; i < bars.length; i++) expect(bars[i]!.time - bars[i - 1]!.time).toBe(60);
    expect(sim.archiveCandles('BTCUSDT', '1m', bars[0]!.time)).toEqual(bars);
    expect(market(7).archiveCandles('BTCUSDT', '1m', SEED_END)).toEqual(bars);
    expect(sim.archiveCandles('BTCUSDT', '1m', bars[0]!.time - 60)).not.toEqual(bars);
  });

  it('folds the window into the interval asked for and leaves the live bars alone', () => {
    const sim = market(7);
    const live = sim.candles('BTCUSDT', '1h');
    const hours = sim.archiveCandles('BTCUSDT', '1h', SEED_END, 48);
    expect(hours).toHaveLength(48);
    for (const bar of hours) expect(bar.time % 3_600).toBe(0);
    expect(sim.candles('BTCUSDT', '1h')).toEqual(live);
  });
});

describe('candle aggregation', () => {
  const minute = (time: number, open: number, high: number, low: number, close: number): Candle => ({
    time,
    open,
    high,
    low,
    close,
    volume: 1,
  });

  it('folds one-minute bars into 5m buckets: first open, max high, min low, last close, summed volume', () => {
    const bars = [
      minute(600, 10, 12, 9, 11),
      minute(660, 11, 15, 10, 14),
      minute(720, 14, 14, 8, 9),
      minute(900, 9, 10, 9, 10),
    ];
    expect(aggregateCandles(bars, 300)).toEqual([
      { time: 600, open: 10, high: 15, low: 8, close: 9, volume: 3 },
      { time: 900, open: 9, high: 10, low: 9, close: 10, volume: 1 },
    ]);
  });

  it('gives the same 1h candles as folding the simulator one-minute bars by hand', () => {
    const sim = market(11);
    const minutes = sim.candles('ETHUSDT', '1m', 600);
    const hours = sim.candles('ETHUSDT', '1h', 5);
    expect(hours).toHaveLength(5);
    expect(hours).toEqual(aggregateCandles(minutes, 3600).slice(-5));
    expect(hours.every((bar) => bar.time % 3600 === 0)).toBe(true);
  });

  it('returns only buckets at or after a time from candlesSince', () => {
    const sim = market(4);
    const last = sim.candles('BTCUSDT', '15m', 3);
    expect(sim.candlesSince('BTCUSDT', '15m', last[1]?.time ?? 0)).toEqual(last.slice(1));
  });
});

describe('quotes', () => {
  it('are decimal strings with bid below ask at the instrument precision', () => {
    const spec = findSymbol('XRPUSDT');
    if (!spec) throw new Error('XRPUSDT missing');
    const quote = quoteOf(spec, 0.5231, T0);
    expect(quote).toEqual({
      symbol: 'XRPUSDT',
      bid: '0.5231',
      ask: '0.5232',
      last: '0.5231',
      time: new Date(T0).toISOString(),
    });
    const sim = market(1);
    const q = sim.quote('BTCUSDT');
    expect(q.last).toMatch(/^\d+\.\d{2}$/);
    expect(Number(q.bid)).toBeLessThan(Number(q.ask));
  });
});
