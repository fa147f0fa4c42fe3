/**
 * What the paper broker trades: each quoted instrument's tick and lot grid,
 * the liquidity one market tick offers at the touch, and the fee rate. All
 * instruments settle in USDT (USD-quoted ones at par, a paper convention).
 */
import type { Quote } from '../market/simulator.js';
import { parseDecimal, roundTo, step, type Units } from './decimal.js';

/** The market facts the broker needs of one instrument. */
export interface InstrumentSpec {
  readonly symbol: string;
  /** Price decimals; the tick is 10^-decimals. */
  readonly decimals: number;
  /** Typical volume per minute, in base units. */
  readonly volumeScale: number;
}

/** One market update, as the broker consumes it. */
export interface PriceTick {
  readonly symbol: string;
  readonly quote: Quote;
}

/** Where the broker gets prices: the simulated market satisfies this. */
export interface PriceSource {
  has(symbol: string): boolean;
  spec(symbol: string): InstrumentSpec | undefined;
  symbols(): readonly InstrumentSpec[];
  quote(symbol: string): Quote;
  subscribe(listener: (tick: PriceTick) => void): () => void;
}

/** The broker's trading rules for one instrument. */
export interface Instrument {
  readonly symbol: string;
  readonly priceDecimals: number;
  readonly quantityDecimals: number;
  /** Smallest order quantity. */
  readonly minQuantity: Units;
  /** Largest order quantity. */
  readonly maxQuantity: Units;
  /** What one tick can fill at the touch; larger orders fill over several ticks. */
  readonly liquidityPerTick: Units;
  /** Fee as a fraction of notional. */
  readonly feeRate: Units;
}

/** Lot decimals of the demo's instruments; others get two. */
const QUANTITY_DECIMALS: Readonly<Record<string, number>> = {
  BTCUSDT: 4,
  ETHUSDT: 3,
  SOLUSDT: 2,
  BNBUSDT: 2,
  XRPUSDT: 0,
  DOGEUSDT: 0,
  EURUSD: 0,
  XAUUSD: 2,
};

const CRYPTO_FEE = parseDecimal('0.0005');
const OTHER_FEE = parseDecimal('0.0002');
/** Ticks per minute of the demo market (one every 500 ms). */
const TICKS_PER_MINUTE = 120;

/** The rules for one instrument of the source. */
export function instrumentOf(spec: InstrumentSpec): Instrument {
  const quantityDecimals = QUANTITY_DECIMALS[spec.symbol] ?? 2;
  const lot = step(quantityDecimals);
  // A tick offers a few times the average per-tick volume, so small orders fill at once and large ones in parts.
  const perTick = (spec.volumeScale * 4) / TICKS_PER_MINUTE;
  const liquidity = roundTo(parseDecimal(perTick.toFixed(Math.min(quantityDecimals, 12))), quantityDecimals);
  return {
    symbol: spec.symbol,
    priceDecimals: spec.decimals,
    quantityDecimals,
    minQuantity: lot,
    maxQuantity: liquidity * 1000n > lot ? liquidity * 1000n : lot,
    liquidityPerTick: liquidity > lot ? liquidity : lot,
    feeRate: spec.symbol.endsWith('USDT') ? CRYPTO_FEE : OTHER_FEE,
  };
}

/** Bid, ask and mid of a quote, exactly. */
export function touchOf(quote: Quote): { bid: Units; ask: Units; mid: Units } {
  const bid = parseDecimal(quote.bid);
  const ask = parseDecimal(quote.ask);
  return { bid, ask, mid: (bid + ask) / 2n };
}
