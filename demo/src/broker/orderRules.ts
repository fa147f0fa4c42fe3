/**
 * The broker's business rules for an order: a quoted symbol, quantities and
 * prices on the instrument's grid and within range, an unused client order
 * id, and enough cash (buys) or position (sells) after what open orders
 * already reserve. Each failure is a definite 400 with a broker code.
 */
import type { AccountBook } from './accounts.js';
import { formatDecimal, mul, onGrid, parseDecimal, roundTo, step, type Units } from './decimal.js';
import { rejected } from './errors.js';
import { instrumentOf, touchOf, type Instrument, type PriceSource } from './instruments.js';
import type { OrderRecord, OrderStore } from './orderStore.js';

/** What the rules read. */
export interface RuleContext {
  readonly market: PriceSource;
  readonly accounts: AccountBook;
  readonly store: OrderStore;
}

/** How far a limit may sit from the market. */
const PRICE_BAND = parseDecimal('0.5');
/** Past this distance from the touch, a limit order gets a warning. */
const FAR_LIMIT = parseDecimal('0.05');

/** The instrument's rules; a 400 for a symbol the market does not quote. */
export function instrumentFor(market: PriceSource, symbol: string): Instrument {
  const spec = market.spec(symbol);
  if (!spec) throw rejected('UNKNOWN_SYMBOL', 'The broker does not trade this symbol; pick one the market quotes.');
  return instrumentOf(spec);
}

/** Checks a quantity's grid and range. */
export function checkQuantity(instrument: Instrument, quantity: Units): void {
  if (!onGrid(quantity, instrument.quantityDecimals)) {
    const lot = formatDecimal(step(instrument.quantityDecimals));
    throw rejected('INVALID_QUANTITY_INCREMENT', `Quantity must be a multiple of ${lot} for ${instrument.symbol}.`);
  }
  if (quantity < instrument.minQuantity || quantity > instrument.maxQuantity) {
    const range = `${formatDecimal(instrument.minQuantity)} to ${formatDecimal(instrument.maxQuantity)}`;
    throw rejected('QUANTITY_OUT_OF_RANGE', `Quantity must be from ${range} for ${instrument.symbol}.`);
  }
}

/** Checks a limit price's tick grid and that it lies within the band around the market. */
export function checkLimitPrice(market: PriceSource, instrument: Instrument, price: Units): void {
  if (!onGrid(price, instrument.priceDecimals)) {
    const tick = formatDecimal(step(instrument.priceDecimals));
    throw rejected('INVALID_PRICE_INCREMENT', `Limit price must be a multiple of ${tick} for ${instrument.symbol}.`);
  }
  const { mid } = touchOf(market.quote(instrument.symbol));
  const band = mul(mid, PRICE_BAND);
  if (price < mid - band || price > mid + band) {
    throw rejected('PRICE_OUT_OF_BAND', 'Limit price is more than 50% away from the market; check the price.');
  }
}

/** A 400 when the account already used this client order id (placement or modification). */
export function checkClientOrderId(store: OrderStore, accountId: string, clientOrderId: string): void {
  if (store.clientIdUse(accountId, clientOrderId)) {
    throw rejected(
      'DUPLICATE_CLIENT_ORDER_ID',
      'This client order id was already used in this account. Reconcile with orders.list; a new order or modification needs a new id.',
    );
  }
}

/** The price a buy is costed at: its limit, or the ask for a market order. */
export function costPrice(market: PriceSource, order: Pick<OrderRecord, 'symbol' | 'type' | 'limitPrice'>): Units {
  return order.type === 'limit' && order.limitPrice !== null
    ? order.limitPrice
    : touchOf(market.quote(order.symbol)).ask;
}

/** What a new or changed order needs: cash for a buy, position for a sell, beyond open orders. */
export function checkCoverage(
  ctx: RuleContext,
  order: Pick<OrderRecord, 'accountId' | 'symbol' | 'side' | 'type' | 'limitPrice'> & { remaining: Units },
  except?: string,
): void {
  const { accountId, symbol } = order;
  if (order.side === 'sell') {
    const free = ctx.accounts.held(accountId, symbol) - ctx.store.reservedSell(accountId, symbol, except);
    if (order.remaining > free) {
      throw rejected(
        'INSUFFICIENT_POSITION',
        `The account holds too little ${symbol} (net of open sells); this broker does not sell short.`,
      );
    }
    return;
  }
  const feeRate = (s: string): Units => instrumentFor(ctx.market, s).feeRate;
  const reserved = ctx.store.reservedCash(accountId, (o) => costPrice(ctx.market, o), feeRate, except);
  const notional = mul(order.remaining, costPrice(ctx.market, order));
  const needed = notional + mul(notional, feeRate(symbol));
  if (needed > ctx.accounts.cash(accountId) - reserved) {
    throw rejected('INSUFFICIENT_FUNDS', 'Not enough USDT for this buy (net of open orders); reduce the quantity.');
  }
}

/** An order's estimate and warnings, as a preview reports them. */
export function estimate(
  market: PriceSource,
  instrument: Instrument,
  order: { side: 'buy' | 'sell'; type: 'market' | 'limit'; quantity: Units; limitPrice: Units | null },
): { reference: Units; notional: Units; fee: Units; cost: Units; warnings: string[] } {
  const { bid, ask } = touchOf(market.quote(instrument.symbol));
  const touch = order.side === 'buy' ? ask : bid;
  const reference = order.limitPrice ?? touch;
  const notional = mul(order.quantity, reference);
  const fee = roundTo(mul(notional, instrument.feeRate), 8);
  const cost = order.side === 'buy' ? notional + fee : notional - fee;
  return { reference, notional, fee, cost, warnings: warnings(instrument, order, touch) };
}

function warnings(
  instrument: Instrument,
  order: { side: 'buy' | 'sell'; type: 'market' | 'limit'; quantity: Units; limitPrice: Units | null },
  touch: Units,
): string[] {
  const out: string[] = [];
  if (order.type === 'market') {
    out.push('Market order: it fills on the next tick at the prevailing price, which may differ from this estimate.');
  } else if (order.limitPrice !== null) {
    const marketable = order.side === 'buy' ? order.limitPrice >= touch : order.limitPrice <= touch;
    if (marketable) out.push('Marketable limit: it fills on the next tick at the touch or better.');
    else if (distance(order.limitPrice, touch) > FAR_LIMIT) {
      out.push('The limit is more than 5% from the market; the order may rest for a long time.');
    }
  }
  if (order.quantity > instrument.liquidityPerTick) {
    out.push('Larger than one tick of liquidity at the touch: expect partial fills over several ticks.');
  }
  return out;
}

function distance(price: Units, touch: Units): Units {
  const gap = price > touch ? price - touch : touch - price;
  return touch === 0n ? 0n : (gap * 10n ** 12n) / touch;
}
