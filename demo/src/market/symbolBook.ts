/**
 * One instrument's simulated price path: a mean-reverting random walk in log
 * price, recorded as contiguous one-minute bars.
 */
import { applyTrade, bucketStart, type Candle } from './candles.js';
import { createPrng, hashSeed, type Prng } from './prng.js';
import { roundToTick, type SymbolSpec } from './symbols.js';

const SUBSTEPS_PER_MINUTE = 4;
/** Pull back towards the base price per minute, so a long session stays plausible. */
const REVERSION_PER_MINUTE = 0.0004;

/** The price path and one-minute bars of one instrument. */
export class SymbolBook {
  readonly spec: SymbolSpec;
  private readonly prng: Prng;
  private readonly anchor: number;
  private readonly maxBars: number;
  private logPrice: number;
  private readonly bars: Candle[] = [];

  /**
   * Generates `historyMinutes` bars ending with the minute that holds `nowSeconds`;
   * the same seed and clock give the same bars.
   */
  constructor(spec: SymbolSpec, seed: number, nowSeconds: number, historyMinutes: number) {
    this.spec = spec;
    this.prng = createPrng(hashSeed(seed, spec.symbol));
    this.anchor = Math.log(spec.basePrice);
    this.maxBars = historyMinutes;
    this.logPrice = this.anchor + 0.02 * this.prng.gaussian();
    const last = bucketStart(nowSeconds, 60);
    for (let time = last - (historyMinutes - 1) * 60; time <= last; time += 60) this.bars.push(this.historyBar(time));
  }

  /** The last traded price. */
  price(): number {
    return this.bars[this.bars.length - 1]?.close ?? this.spec.basePrice;
  }

  /** Every one-minute bar held, oldest first (do not mutate). */
  minuteBars(): readonly Candle[] {
    return this.bars;
  }

  /** Moves the price over `elapsedSeconds` and books the trade in the bar of `nowSeconds`. */
  tick(nowSeconds: number, elapsedSeconds: number): number {
    this.openBarsUntil(bucketStart(nowSeconds, 60));
    const price = this.walk(Math.max(elapsedSeconds, 0.05) / 60);
    const volume = this.spec.volumeScale * (elapsedSeconds / 60) * (0.4 + Math.abs(this.prng.gaussian()));
    const bar = this.bars[this.bars.length - 1];
    if (bar) applyTrade(bar, price, volume);
    return price;
  }

  private historyBar(time: number): Candle {
    const open = this.price();
    const bar: Candle = { time, open, high: open, low: open, close: open, volume: 0 };
    for (let i = 0; i < SUBSTEPS_PER_MINUTE; i++) applyTrade(bar, this.walk(1 / SUBSTEPS_PER_MINUTE), 0);
    bar.volume = this.spec.volumeScale * (0.3 + Math.abs(this.prng.gaussian()) + 0.5 * this.prng.next());
    return bar;
  }

  /** Advances the walk by `minutes` and returns the new price on the tick grid. */
  private walk(minutes: number): number {
    const sigma = this.spec.volatility * Math.sqrt(minutes);
    const reversion = REVERSION_PER_MINUTE * minutes * (this.logPrice - this.anchor);
    this.logPrice += sigma * this.prng.gaussian() - reversion;
    return roundToTick(this.spec, Math.exp(this.logPrice));
  }

  /** Opens flat bars for minutes that passed without a tick (a background tab), keeping bars contiguous. */
  private openBarsUntil(minute: number): void {
    const last = this.bars[this.bars.length - 1];
    if (!last || minute <= last.time) return;
    const close = last.close;
    const first = Math.max(last.time + 60, minute - (this.maxBars - 1) * 60);
    for (let time = first; time <= minute; time += 60) {
      this.bars.push({ time, open: close, high: close, low: close, close, volume: 0 });
    }
    if (this.bars.length > this.maxBars + 120) this.bars.splice(0, this.bars.length - this.maxBars);
  }
}

/** Index of the first bar at or after `time` (bars ascending). */
export function firstIndexAtOrAfter(bars: readonly Candle[], time: number): number {
  let low = 0;
  let high = bars.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((bars[mid]?.time ?? Infinity) < time) low = mid + 1;
    else high = mid;
  }
  return low;
}
