/**
 * The trading events the order desk and matching publish about one order,
 * in one shape (the `trading.events` channel's schema).
 */
import type { TradingEvent } from '../../../src/protocol/index.js';
import { isoAt } from './clock.js';
import { isBrokerError } from './errors.js';
import type { BrokerEvents } from './events.js';
import type { OrderRecord } from './orderStore.js';
import type { OrderRequest } from './schemas.js';

/** What an order event may add: the quantity and price it is about, or a message. */
export interface OrderEventExtra {
  quantity?: string | undefined;
  price?: string | undefined;
  message?: string | undefined;
}

/** An event about one order at `now`. */
export function orderEvent(
  type: TradingEvent['type'],
  order: OrderRecord,
  now: number,
  extra: OrderEventExtra = {},
): TradingEvent {
  return {
    type,
    time: isoAt(now),
    accountId: order.accountId,
    orderId: order.orderId,
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    status: order.status,
    ...(extra.quantity === undefined ? {} : { quantity: extra.quantity }),
    ...(extra.price === undefined ? {} : { price: extra.price }),
    ...(extra.message === undefined ? {} : { message: extra.message }),
  };
}

/** Runs a placement; a definite business rejection (400) is published as order.rejected, then rethrown. */
export function publishRejection<T>(events: BrokerEvents, now: () => number, request: OrderRequest, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isBrokerError(error) && error.status === 400) {
      events.emit({
        type: 'order.rejected',
        time: isoAt(now()),
        accountId: request.accountId,
        clientOrderId: request.clientOrderId,
        symbol: request.symbol,
        side: request.side,
        quantity: request.quantity,
        status: error.code,
        message: error.message,
      });
    }
    throw error;
  }
}
