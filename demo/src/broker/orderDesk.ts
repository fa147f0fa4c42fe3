/**
 * The order desk: previews, placements, modifications, cancel requests and
 * the emergency flatten. Acknowledgements say "accepted" and nothing about
 * fills: fills happen only on market ticks (see matching.ts).
 */
import type { z } from 'zod';
import { isoAt } from './clock.js';
import { formatDecimal, parseDecimal, type Units } from './decimal.js';
import { notFound, rejected } from './errors.js';
import { orderEvent, publishRejection, type OrderEventExtra } from './orderEvents.js';
import type { BrokerEvents } from './events.js';
import {
  checkClientOrderId,
  checkCoverage,
  checkLimitPrice,
  checkQuantity,
  estimate,
  instrumentFor,
  type RuleContext,
} from './orderRules.js';
import { OPEN_STATUSES, type OrderRecord } from './orderStore.js';
import { modificationTerms } from './orderTerms.js';
import type { PreviewStore } from './previews.js';
import type { CancelAck, EmergencyResult, ModifyAck, ModifyPreview, OrderAck, OrderPreview } from './results.js';
import {
  CancelRequestSchema,
  ModifyPlacementSchema,
  ModifyRequestSchema,
  OrderRequestSchema,
  PlacementSchema,
  type CancelRequest,
  type ModifyPlacement,
  type ModifyRequest,
  type Order,
  type OrderRequest,
  type Placement,
} from './schemas.js';

/** What the desk works with. */
export interface DeskParts extends RuleContext {
  readonly previews: PreviewStore;
  readonly events: BrokerEvents;
  readonly now: () => number;
}

/** Parses a request with the broker's schema; a malformed one is a 400. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw rejected('INVALID_REQUEST', 'The request is malformed; check each field against the control signature.');
  return parsed.data;
}

/** Previews, places, modifies and cancels orders. */
export class OrderDesk {
  private emergencies = 0;

  constructor(private readonly parts: DeskParts) {}

  /** Validates an order and returns its estimate with the complete placement arguments. */
  previewOrder(input: OrderRequest): OrderPreview {
    const request = parseRequest(OrderRequestSchema, input);
    const order = this.checkNew(request);
    const est = estimate(this.parts.market, instrumentFor(this.parts.market, request.symbol), order);
    const { previewId, expiresAt, placementArguments } = this.parts.previews.create('new', request, this.parts.now());
    return { previewId, ...estimateView(est), expiresAt, placementArguments };
  }

  /** Places a previewed order; the acknowledgement never reports fills. */
  placeOrder(input: Placement, source: Order['source']): OrderAck {
    const placement = parseRequest(PlacementSchema, input);
    return this.rejectionEvent(placement, () => {
      this.parts.accounts.require(placement.accountId);
      checkClientOrderId(this.parts.store, placement.accountId, placement.clientOrderId);
      this.parts.previews.check('new', placement, this.parts.now());
      const { previewId, ...request } = placement;
      this.checkNew(request);
      this.parts.previews.consume(previewId);
      return this.accept(request, source);
    });
  }

  /**
   * Places a limit order straight from a ladder level (one-click ladder
   * trading: the level is the preview); the same rules apply.
   */
  placeAtLevel(request: OrderRequest, source: Order['source']): OrderAck {
    const parsed = parseRequest(OrderRequestSchema, request);
    return this.rejectionEvent(parsed, () => {
      this.checkNew(parsed);
      return this.accept(parsed, source);
    });
  }

  /** Validates a change of a working limit order (with a new client order id). */
  previewModify(input: ModifyRequest): ModifyPreview {
    const request = parseRequest(ModifyRequestSchema, input);
    const { order, quantity, limitPrice } = this.checkModify(request);
    const est = estimate(this.parts.market, instrumentFor(this.parts.market, order.symbol), {
      ...order,
      quantity: quantity - order.filled,
      limitPrice,
    });
    const { previewId, expiresAt, placementArguments } = this.parts.previews.create(
      'modify',
      request,
      this.parts.now(),
    );
    return { previewId, ...estimateView(est), expiresAt, placementArguments };
  }

  /** Applies a previewed modification. */
  modifyOrder(input: ModifyPlacement): ModifyAck {
    const placement = parseRequest(ModifyPlacementSchema, input);
    const { previewId, ...request } = placement;
    const { order, quantity, limitPrice } = this.checkModify(request);
    this.parts.previews.check('modify', placement, this.parts.now());
    this.parts.previews.consume(previewId);
    order.quantity = quantity;
    order.limitPrice = limitPrice;
    order.clientOrderId = request.clientOrderId;
    order.updatedAt = this.parts.now();
    this.parts.store.claim(order.accountId, request.clientOrderId, {
      orderId: order.orderId,
      kind: 'modify',
      at: order.updatedAt,
      terms: modificationTerms({ accountId: order.accountId, orderId: order.orderId, quantity, limitPrice }),
    });
    this.emitOrder('order.modified', order, { quantity: formatDecimal(quantity), price: formatDecimal(limitPrice) });
    this.parts.events.changed('orders');
    return {
      orderId: order.orderId,
      accountId: order.accountId,
      clientOrderId: order.clientOrderId,
      status: 'modified',
      modifiedAt: isoAt(order.updatedAt),
    };
  }

  /** Takes a cancel request; it takes effect on the symbol's next tick, after that tick's fills. */
  cancelOrder(input: CancelRequest): CancelAck {
    const request = parseRequest(CancelRequestSchema, input);
    const order = this.ownOrder(request.accountId, request.orderId);
    if (!OPEN_STATUSES.has(order.status)) {
      throw rejected('ORDER_NOT_OPEN', `The order is already ${order.status}; nothing to cancel. Read orders.list.`);
    }
    order.cancelRequested = true;
    order.updatedAt = this.parts.now();
    this.parts.events.changed('orders');
    return {
      orderId: order.orderId,
      accountId: order.accountId,
      status: 'cancelRequested',
      requestedAt: isoAt(order.updatedAt),
    };
  }

  /** Cancels every open order of the account now and sends market sells for every position. */
  flatten(accountId: string): EmergencyResult {
    this.parts.accounts.require(accountId);
    const now = this.parts.now();
    const cancelled = this.parts.store.open({ accountId }).map((order) => {
      Object.assign(order, { status: 'cancelled', cancelRequested: true, updatedAt: now });
      this.emitOrder('order.cancelled', order, { message: 'Cancelled by emergency flatten.' });
      return order.orderId;
    });
    const sequence = ++this.emergencies;
    const closingOrders = this.parts.accounts
      .holdings(accountId)
      .filter((h) => h.quantity > 0n)
      .map((h, index) => {
        const clientOrderId = this.systemClientId(accountId, `EMG${sequence}X${index + 1}`);
        const request = {
          accountId,
          symbol: h.symbol,
          side: 'sell' as const,
          type: 'market' as const,
          quantity: formatDecimal(h.quantity),
          clientOrderId,
        };
        const ack = this.accept(request, 'system');
        return {
          orderId: ack.orderId,
          clientOrderId,
          symbol: h.symbol,
          side: 'sell' as const,
          quantity: request.quantity,
        };
      });
    this.parts.events.changed('orders');
    this.parts.events.changed('emergency');
    const emergencyId = `EM-${String(sequence).padStart(6, '0')}`;
    return { emergencyId, accountId, cancelledOrderIds: cancelled, closingOrders, requestedAt: isoAt(now) };
  }

  private checkNew(request: OrderRequest): {
    side: 'buy' | 'sell';
    type: 'market' | 'limit';
    quantity: Units;
    limitPrice: Units | null;
  } {
    this.parts.accounts.require(request.accountId);
    checkClientOrderId(this.parts.store, request.accountId, request.clientOrderId);
    const instrument = instrumentFor(this.parts.market, request.symbol);
    const quantity = parseDecimal(request.quantity);
    checkQuantity(instrument, quantity);
    const limitPrice = request.limitPrice === undefined ? null : parseDecimal(request.limitPrice);
    if (limitPrice !== null) checkLimitPrice(this.parts.market, instrument, limitPrice);
    checkCoverage(this.parts, { ...request, limitPrice, remaining: quantity });
    return { side: request.side, type: request.type, quantity, limitPrice };
  }

  private checkModify(request: ModifyRequest): { order: OrderRecord; quantity: Units; limitPrice: Units } {
    const order = this.ownOrder(request.accountId, request.orderId);
    if (order.type !== 'limit') throw rejected('ORDER_NOT_MODIFIABLE', 'Only working limit orders can be modified.');
    if (!OPEN_STATUSES.has(order.status) || order.cancelRequested) {
      throw rejected(
        'ORDER_NOT_OPEN',
        'The order is no longer working (filled, cancelled or being cancelled). Read orders.list.',
      );
    }
    checkClientOrderId(this.parts.store, request.accountId, request.clientOrderId);
    const instrument = instrumentFor(this.parts.market, order.symbol);
    const quantity = parseDecimal(request.quantity);
    checkQuantity(instrument, quantity);
    if (quantity <= order.filled) {
      throw rejected('QUANTITY_BELOW_FILLED', 'The new quantity must exceed what already filled.');
    }
    const limitPrice = parseDecimal(request.limitPrice);
    checkLimitPrice(this.parts.market, instrument, limitPrice);
    checkCoverage(this.parts, { ...order, limitPrice, remaining: quantity - order.filled }, order.orderId);
    return { order, quantity, limitPrice };
  }

  private ownOrder(accountId: string, orderId: string): OrderRecord {
    this.parts.accounts.require(accountId);
    const order = this.parts.store.get(orderId);
    if (!order || order.accountId !== accountId) {
      throw notFound('ORDER_NOT_FOUND', 'This account has no such order; read orders.list for order ids.');
    }
    return order;
  }

  private accept(request: OrderRequest, source: Order['source']): OrderAck {
    const now = this.parts.now();
    const order: OrderRecord = {
      orderId: this.parts.store.newOrderId(),
      accountId: request.accountId,
      clientOrderId: request.clientOrderId,
      symbol: request.symbol,
      side: request.side,
      type: request.type,
      quantity: parseDecimal(request.quantity),
      limitPrice: request.limitPrice === undefined ? null : parseDecimal(request.limitPrice),
      filled: 0n,
      filledValue: 0n,
      status: request.type === 'market' ? 'new' : 'working',
      cancelRequested: false,
      source,
      message: null,
      createdAt: now,
      updatedAt: now,
    };
    this.parts.store.add(order);
    this.emitOrder('order.accepted', order, { quantity: request.quantity, price: request.limitPrice });
    this.parts.events.changed('orders');
    return {
      orderId: order.orderId,
      accountId: order.accountId,
      clientOrderId: order.clientOrderId,
      status: 'accepted',
      acceptedAt: isoAt(now),
    };
  }

  private rejectionEvent<T>(request: OrderRequest, run: () => T): T {
    return publishRejection(this.parts.events, this.parts.now, request, run);
  }

  private emitOrder(
    type: 'order.accepted' | 'order.modified' | 'order.cancelled',
    order: OrderRecord,
    extra: OrderEventExtra,
  ): void {
    this.parts.events.emit(orderEvent(type, order, this.parts.now(), extra));
  }

  private systemClientId(accountId: string, base: string): string {
    let id = base;
    for (let n = 2; this.parts.store.clientIdUse(accountId, id); n++) id = `${base}R${n}`;
    return id;
  }
}

function estimateView(
  est: ReturnType<typeof estimate>,
): Omit<OrderPreview, 'previewId' | 'expiresAt' | 'placementArguments'> {
  return {
    referencePrice: formatDecimal(est.reference),
    estimatedNotional: formatDecimal(est.notional),
    estimatedFee: formatDecimal(est.fee),
    estimatedCost: formatDecimal(est.cost),
    warnings: est.warnings,
  };
}
