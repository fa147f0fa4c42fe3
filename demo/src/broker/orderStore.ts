/**
 * The broker's order records: every order ever accepted, the account-unique
 * client order ids (placements and modifications), fills, and what open
 * orders reserve of cash and positions.
 */
import { isoAt } from './clock.js';
import { div, formatDecimal, mul, type Units } from './decimal.js';
import { placementTerms, type OrderTerms } from './orderTerms.js';
import type { Fill, Order } from './schemas.js';

/** Open states: the order may still fill. */
export const OPEN_STATUSES: ReadonlySet<Order['status']> = new Set(['new', 'working', 'partiallyFilled']);

/** One order as the broker keeps it. */
export interface OrderRecord {
  readonly orderId: string;
  readonly accountId: string;
  clientOrderId: string;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly type: 'market' | 'limit';
  quantity: Units;
  limitPrice: Units | null;
  filled: Units;
  /** Σ quantity × price of fills, for the average price. */
  filledValue: Units;
  status: Order['status'];
  cancelRequested: boolean;
  readonly source: Order['source'];
  message: string | null;
  readonly createdAt: number;
  updatedAt: number;
}

/** What a client order id was used for. */
export interface ClientIdUse {
  readonly orderId: string;
  readonly kind: 'place' | 'modify';
  /** When the broker accepted it (epoch ms). */
  readonly at: number;
  /** What that placement or modification asked for (reconciliation compares them, SPEC §5). */
  readonly terms: OrderTerms;
}

/** Orders, client ids and fills of every account. */
export class OrderStore {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly clientIds = new Map<string, Map<string, ClientIdUse>>();
  private readonly fillList: Fill[] = [];
  private nextOrder = 100_001;
  private nextFill = 1;

  /** A fresh broker order id. */
  newOrderId(): string {
    return `O-${this.nextOrder++}`;
  }

  /** Adds an accepted order and claims its client order id. */
  add(record: OrderRecord): void {
    this.orders.set(record.orderId, record);
    this.claim(record.accountId, record.clientOrderId, {
      orderId: record.orderId,
      kind: 'place',
      at: record.createdAt,
      terms: placementTerms(record),
    });
  }

  /** Claims a client order id for a use (placement or modification). */
  claim(accountId: string, clientOrderId: string, use: ClientIdUse): void {
    let ids = this.clientIds.get(accountId);
    if (!ids) this.clientIds.set(accountId, (ids = new Map()));
    ids.set(clientOrderId, use);
  }

  /** What the account used this client order id for, if anything. */
  clientIdUse(accountId: string, clientOrderId: string): ClientIdUse | undefined {
    return this.clientIds.get(accountId)?.get(clientOrderId);
  }

  /** One order record. */
  get(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId);
  }

  /** Every order, oldest first (optionally of one account). */
  all(accountId?: string): OrderRecord[] {
    const all = [...this.orders.values()];
    return accountId ? all.filter((o) => o.accountId === accountId) : all;
  }

  /** Open orders, oldest first. */
  open(filter: { accountId?: string; symbol?: string } = {}): OrderRecord[] {
    return this.all(filter.accountId).filter(
      (o) => OPEN_STATUSES.has(o.status) && (filter.symbol === undefined || o.symbol === filter.symbol),
    );
  }

  /** Records a fill and returns it. */
  addFill(fill: Omit<Fill, 'fillId'>): Fill {
    const recorded = { fillId: `F-${this.nextFill++}`, ...fill };
    this.fillList.push(recorded);
    return recorded;
  }

  /** Fills, oldest first (optionally of one account). */
  fills(accountId?: string): Fill[] {
    return accountId ? this.fillList.filter((f) => f.accountId === accountId) : [...this.fillList];
  }

  /** Quantity that open sells of a symbol still hold back, excluding one order. */
  reservedSell(accountId: string, symbol: string, except?: string): Units {
    return this.open({ accountId, symbol })
      .filter((o) => o.side === 'sell' && o.orderId !== except)
      .reduce((sum, o) => sum + (o.quantity - o.filled), 0n);
  }

  /** Cash that open buys still hold back at `price(order)` plus fees, excluding one order. */
  reservedCash(
    accountId: string,
    price: (order: OrderRecord) => Units,
    feeRate: (symbol: string) => Units,
    except?: string,
  ): Units {
    return this.open({ accountId })
      .filter((o) => o.side === 'buy' && o.orderId !== except)
      .reduce((sum, o) => {
        const notional = mul(o.quantity - o.filled, price(o));
        return sum + notional + mul(notional, feeRate(o.symbol));
      }, 0n);
  }
}

/** The public view of an order record. */
export function orderView(record: OrderRecord): Order {
  return {
    orderId: record.orderId,
    accountId: record.accountId,
    clientOrderId: record.clientOrderId,
    symbol: record.symbol,
    side: record.side,
    type: record.type,
    quantity: formatDecimal(record.quantity),
    limitPrice: record.limitPrice === null ? null : formatDecimal(record.limitPrice),
    filledQuantity: formatDecimal(record.filled),
    averageFillPrice: record.filled === 0n ? null : formatDecimal(div(record.filledValue, record.filled)),
    status: record.status,
    cancelRequested: record.cancelRequested,
    source: record.source,
    message: record.message,
    createdAt: isoAt(record.createdAt),
    updatedAt: isoAt(record.updatedAt),
  };
}
