/**
 * The depth ladder: simulated resting size at price levels around the
 * touch, on a grid a little coarser than the tick (1-2-5 steps of about one
 * basis point), with the accounts' own working orders aggregated per level.
 * Sizes are deterministic for a seed, symbol, level and two-second bucket.
 */
import { createPrng, hashSeed } from '../market/prng.js';
import { isoAt } from './clock.js';
import { formatDecimal, mul, parseDecimal, step, truncateTo, type Units } from './decimal.js';
import { rejected } from './errors.js';
import { instrumentOf, touchOf, type PriceSource } from './instruments.js';
import type { OrderStore } from './orderStore.js';
import type { Depth, DepthLevel } from './results.js';

/** Most levels per side. */
export const MAX_DEPTH = 20;
const BASIS_POINT = parseDecimal('0.0001');
const SIZE_BUCKET_MS = 2_000;

/** The ladder's price step for a symbol: the smallest 1-2-5 multiple of the tick of at least 1 bp. */
export function ladderStep(market: PriceSource, symbol: string): Units {
  const spec = market.spec(symbol);
  if (!spec) throw rejected('UNKNOWN_SYMBOL', 'The broker does not trade this symbol.');
  const tick = step(spec.decimals);
  const target = mul(touchOf(market.quote(symbol)).mid, BASIS_POINT);
  for (let scale = tick; ; scale *= 10n) {
    for (const factor of [1n, 2n, 5n]) if (scale * factor >= target) return scale * factor;
  }
}

function floorTo(value: Units, grid: Units): Units {
  return (value / grid) * grid;
}

function ceilTo(value: Units, grid: Units): Units {
  const floor = floorTo(value, grid);
  return floor === value ? value : floor + grid;
}

/** The best bid and ask levels on the ladder grid. */
function bestLevels(market: PriceSource, symbol: string, grid: Units): { bid: Units; ask: Units } {
  const { bid, ask } = touchOf(market.quote(symbol));
  return { bid: floorTo(bid, grid), ask: ceilTo(ask, grid) };
}

/** A 400 unless `price` is a ladder level within {@link MAX_DEPTH} levels beyond the touch, on either book. */
export function checkLadderPrice(market: PriceSource, symbol: string, price: Units): void {
  const grid = ladderStep(market, symbol);
  const best = bestLevels(market, symbol, grid);
  const reach = BigInt(MAX_DEPTH - 1) * grid;
  if (price % grid !== 0n || price < best.bid - reach || price > best.ask + reach) {
    throw rejected(
      'PRICE_NOT_ON_LADDER',
      'The price is not one of the ladder levels; read depthLadder.getLevels and pick a level.',
    );
  }
}

/** The ladder of `symbol`: `depth` ask levels (highest first) then `depth` bid levels (highest first). */
export function depthOf(
  market: PriceSource,
  store: OrderStore,
  symbol: string,
  options: { depth: number; seed: number; now: number },
): Depth {
  const spec = market.spec(symbol);
  if (!spec) throw rejected('UNKNOWN_SYMBOL', 'The broker does not trade this symbol.');
  const instrument = instrumentOf(spec);
  const grid = ladderStep(market, symbol);
  const best = bestLevels(market, symbol, grid);
  const depth = Math.min(Math.max(Math.round(options.depth), 1), MAX_DEPTH);
  const bucket = Math.floor(options.now / SIZE_BUCKET_MS);
  const own = ownByLevel(store, symbol, grid);
  const level = (side: 'bid' | 'ask', index: number): DepthLevel => {
    const price = side === 'ask' ? best.ask + BigInt(index) * grid : best.bid - BigInt(index) * grid;
    const random = createPrng(hashSeed(options.seed, symbol, side, formatDecimal(price), bucket)).next();
    const raw = mul(instrument.liquidityPerTick, parseDecimal((0.4 + 2.6 * random + 0.2 * index).toFixed(6)));
    const size = truncateTo(raw, instrument.quantityDecimals);
    return {
      price: formatDecimal(price),
      side,
      size: formatDecimal(size > 0n ? size : instrument.minQuantity),
      ownQuantity: formatDecimal(own.get(`${side}:${price}`) ?? 0n),
    };
  };
  const asks = Array.from({ length: depth }, (_, i) => level('ask', depth - 1 - i));
  const bids = Array.from({ length: depth }, (_, i) => level('bid', i));
  const { bid, ask } = touchOf(market.quote(symbol));
  return {
    symbol,
    bestBid: formatDecimal(bid),
    bestAsk: formatDecimal(ask),
    levelStep: formatDecimal(grid),
    levels: [...asks, ...bids],
    asOf: isoAt(options.now),
  };
}

/** Remaining quantity of working limit orders, keyed by `side:level`. */
function ownByLevel(store: OrderStore, symbol: string, grid: Units): Map<string, Units> {
  const own = new Map<string, Units>();
  for (const order of store.open({ symbol })) {
    if (order.limitPrice === null || order.cancelRequested) continue;
    const side = order.side === 'buy' ? 'bid' : 'ask';
    const level = side === 'bid' ? floorTo(order.limitPrice, grid) : ceilTo(order.limitPrice, grid);
    const key = `${side}:${level}`;
    own.set(key, (own.get(key) ?? 0n) + order.quantity - order.filled);
  }
  return own;
}
