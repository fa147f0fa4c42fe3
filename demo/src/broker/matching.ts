/**
 * Fills, driven by the simulated market: on each tick of a symbol, market
 * orders fill at the touch and limit orders whose price was reached fill at
 * their limit or better, up to the tick's liquidity per side (larger orders
 * fill in parts). Cancel requests take effect after that tick's fills, so a
 * fill can win the race with a cancel.
 */
import type { TradingEvent } from '../../../src/protocol/index.js';
import type { AccountBook } from './accounts.js';
import { isoAt } from './clock.js';
import { div, formatDecimal, min, mul, roundTo, truncateTo, type Units } from './decimal.js';
import type { BrokerEvents } from './events.js';
import { instrumentOf, touchOf, type Instrument, type PriceSource, type PriceTick } from './instruments.js';
import { orderEvent, type OrderEventExtra } from './orderEvents.js';
import type { OrderRecord, OrderStore } from './orderStore.js';

/** What matching works with. */
export interface MatchParts {
  readonly market: PriceSource;
  readonly accounts: AccountBook;
  readonly store: OrderStore;
  readonly events: BrokerEvents;
  readonly now: () => number;
}

/** The price an order executes at on this tick, or null when it cannot. */
function executionPrice(order: OrderRecord, bid: Units, ask: Units): Units | null {
  const touch = order.side === 'buy' ? ask : bid;
  if (order.type === 'market' || order.limitPrice === null) return touch;
  if (order.side === 'buy') return ask <= order.limitPrice ? min(order.limitPrice, ask) : null;
  return bid >= order.limitPrice ? (bid > order.limitPrice ? bid : order.limitPrice) : null;
}

/** How much of `wanted` the account can settle now: cash for a buy, holdings for a sell. */
function coverable(parts: MatchParts, instrument: Instrument, order: OrderRecord, wanted: Units, price: Units): Units {
  if (order.side === 'sell') return min(wanted, parts.accounts.held(order.accountId, order.symbol));
  const perUnit = price + mul(price, instrument.feeRate);
  const affordable = truncateTo(div(parts.accounts.cash(order.accountId), perUnit), instrument.quantityDecimals);
  return min(wanted, affordable > 0n ? affordable : 0n);
}

/** Fills what this tick allows; returns true when anything changed. */
export function matchTick(parts: MatchParts, tick: PriceTick): boolean {
  const spec = parts.market.spec(tick.symbol);
  const open = parts.store.open({ symbol: tick.symbol });
  if (!spec || open.length === 0) return false;
  const instrument = instrumentOf(spec);
  const { bid, ask } = touchOf(tick.quote);
  const budget = { buy: instrument.liquidityPerTick, sell: instrument.liquidityPerTick };
  let changed = false;
  for (const order of open) {
    const price = executionPrice(order, bid, ask);
    if (price === null || budget[order.side] <= 0n) continue;
    const wanted = min(order.quantity - order.filled, budget[order.side]);
    const quantity = coverable(parts, instrument, order, wanted, price);
    if (quantity <= 0n) {
      stopUncovered(parts, order);
    } else {
      fill(parts, instrument, order, quantity, price);
      budget[order.side] -= quantity;
    }
    changed = true;
  }
  return applyCancels(parts, tick.symbol) || changed;
}

function fill(parts: MatchParts, instrument: Instrument, order: OrderRecord, quantity: Units, price: Units): void {
  const now = parts.now();
  const fee = roundTo(mul(mul(quantity, price), instrument.feeRate), 8);
  parts.accounts.book({ accountId: order.accountId, symbol: order.symbol, side: order.side, quantity, price, fee });
  order.filled += quantity;
  order.filledValue += mul(quantity, price);
  order.status = order.filled >= order.quantity ? 'filled' : 'partiallyFilled';
  order.updatedAt = now;
  const time = isoAt(now);
  const fillRecord = parts.store.addFill({
    orderId: order.orderId,
    accountId: order.accountId,
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    quantity: formatDecimal(quantity),
    price: formatDecimal(price),
    fee: formatDecimal(fee),
    time,
  });
  emit(parts, order, order.status === 'filled' ? 'order.filled' : 'order.partiallyFilled', {
    quantity: fillRecord.quantity,
    price: fillRecord.price,
  });
  parts.events.emit({
    type: 'position.changed',
    time,
    accountId: order.accountId,
    symbol: order.symbol,
    quantity: formatDecimal(parts.accounts.held(order.accountId, order.symbol)),
  });
  parts.events.changed('positions');
}

/** Nothing left to settle with: a fresh order is rejected, a partly filled one cancelled. */
function stopUncovered(parts: MatchParts, order: OrderRecord): void {
  const fresh = order.filled === 0n;
  order.status = fresh ? 'rejected' : 'cancelled';
  order.message = order.side === 'buy' ? 'Insufficient USDT at execution.' : 'Insufficient position at execution.';
  order.updatedAt = parts.now();
  emit(parts, order, fresh ? 'order.rejected' : 'order.cancelled', { message: order.message });
}

function applyCancels(parts: MatchParts, symbol: string): boolean {
  const pending = parts.store.open({ symbol }).filter((order) => order.cancelRequested);
  for (const order of pending) {
    order.status = 'cancelled';
    order.updatedAt = parts.now();
    emit(parts, order, 'order.cancelled', {});
  }
  return pending.length > 0;
}

function emit(parts: MatchParts, order: OrderRecord, type: TradingEvent['type'], extra: OrderEventExtra): void {
  parts.events.emit(orderEvent(type, order, parts.now(), extra));
}
