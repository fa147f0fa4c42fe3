/**
 * The paper broker: accounts, orders, fills driven by the simulated market,
 * alerts and an FX desk, behind a request boundary that injects test faults.
 * Pure TypeScript with no DOM; deterministic for a market seed and clock.
 * Requests are async (latency may be injected); `view` reads current state
 * without faults, as a terminal's streaming blotter would.
 */
import { AccountBook, DEMO_ACCOUNTS, type AccountSeed } from './accounts.js';
import { AlertBook, type Alert, type AlertCreate, type AlertDeletionResult } from './alertBook.js';
import { isoAt, OffsetClock, type BrokerClock } from './clock.js';
import { formatDecimal, parseDecimal } from './decimal.js';
import { checkLadderPrice, depthOf } from './depth.js';
import { BrokerEvents } from './events.js';
import { FaultInjector } from './faults.js';
import { FxDesk, FxQuoteRequestSchema, type FxQuoteAnswer, type FxQuoteRequest, type FxTrade } from './fxDesk.js';
import { Gateway, timerSleep, type JournalEntry, type RequestMeta } from './gateway.js';
import { touchOf, type PriceSource } from './instruments.js';
import { matchTick } from './matching.js';
import { OrderDesk, parseRequest } from './orderDesk.js';
import { OPEN_STATUSES, OrderStore, orderView, type ClientIdUse } from './orderStore.js';
import { PreviewStore } from './previews.js';
import type {
  CancelAck,
  Depth,
  EmergencyResult,
  ModifyAck,
  ModifyPreview,
  OrderAck,
  OrderList,
  OrderPreview,
  PositionList,
} from './results.js';
import {
  OrderRequestSchema,
  type AccountSummary,
  type CancelRequest,
  type Fill,
  type ModifyPlacement,
  type ModifyRequest,
  type Order,
  type OrderRequest,
  type Placement,
  type Position,
} from './schemas.js';
import { seedAlerts } from './seedAlerts.js';

/** How a paper broker is built. */
export interface BrokerOptions {
  market: PriceSource;
  clock?: BrokerClock;
  faults?: FaultInjector;
  accounts?: readonly AccountSeed[];
  /** Seeds the ladder's simulated sizes (default 7391). */
  seed?: number;
  /** How injected latency waits (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** Start with a few alerts around the market (default true). */
  seedAlerts?: boolean;
}

/** Which orders a list returns. */
export interface OrderFilter {
  accountId?: string;
  status?: 'open' | 'filled' | 'cancelled' | 'rejected' | 'all';
  limit?: number;
}

const LIST_LIMIT = 200;

/** The simulated broker behind the demo terminal. */
export class PaperBroker {
  readonly events = new BrokerEvents();
  readonly faults: FaultInjector;
  readonly clock: BrokerClock;
  private readonly market: PriceSource;
  private readonly accounts: AccountBook;
  private readonly store = new OrderStore();
  private readonly desk: OrderDesk;
  private readonly alertBook: AlertBook;
  private readonly fx: FxDesk;
  private readonly gateway: Gateway;
  private readonly seed: number;
  private readonly unsubscribe: () => void;

  constructor(options: BrokerOptions) {
    this.market = options.market;
    this.clock = options.clock ?? new OffsetClock();
    this.faults = options.faults ?? new FaultInjector();
    this.seed = options.seed ?? 7391;
    this.accounts = new AccountBook(options.accounts ?? DEMO_ACCOUNTS);
    const now = (): number => this.clock.now();
    const parts = { market: this.market, accounts: this.accounts, store: this.store, events: this.events, now };
    this.desk = new OrderDesk({ ...parts, previews: new PreviewStore() });
    this.alertBook = new AlertBook(this.market, this.events, now);
    this.fx = new FxDesk(this.market, this.accounts, this.events, now);
    this.gateway = new Gateway(this.faults, options.sleep ?? timerSleep);
    if (options.seedAlerts ?? true) seedAlerts(this.alertBook, this.market);
    this.unsubscribe = this.market.subscribe((tick) => {
      if (matchTick(parts, tick)) this.events.changed('orders');
      this.alertBook.onTick(tick);
    });
  }

  /** Stops following the market. */
  dispose(): void {
    this.unsubscribe();
  }

  /** Validates an order and returns its estimate and complete placement arguments. */
  previewOrder(request: OrderRequest, meta: RequestMeta = {}): Promise<OrderPreview> {
    return this.gateway.run('orders.previewOrder', false, meta, () => this.desk.previewOrder(request));
  }

  /** Places a previewed order (its placement arguments unchanged). */
  placeOrder(placement: Placement, meta: RequestMeta = {}): Promise<OrderAck> {
    return this.gateway.run('orders.placeOrder', true, meta, () => this.desk.placeOrder(placement, sourceOf(meta)));
  }

  /** Validates a modification of a working limit order. */
  previewModify(request: ModifyRequest, meta: RequestMeta = {}): Promise<ModifyPreview> {
    return this.gateway.run('orders.previewModifyOrder', false, meta, () => this.desk.previewModify(request));
  }

  /** Applies a previewed modification. */
  modifyOrder(placement: ModifyPlacement, meta: RequestMeta = {}): Promise<ModifyAck> {
    return this.gateway.run('orders.modifyOrder', true, meta, () => this.desk.modifyOrder(placement));
  }

  /** Requests a cancel; a fill may still race it. */
  cancelOrder(request: CancelRequest, meta: RequestMeta = {}): Promise<CancelAck> {
    return this.gateway.run('orders.cancelOrder', true, meta, () => this.desk.cancelOrder(request));
  }

  /** Cancels every open order of an account and closes its positions at market. */
  flatten(request: { accountId: string }, meta: RequestMeta = {}): Promise<EmergencyResult> {
    return this.gateway.run('risk.triggerEmergency', true, meta, () => this.desk.flatten(request.accountId));
  }

  /** Places a limit order at a ladder level, without a preview. */
  placeAtLevel(
    request: Omit<OrderRequest, 'type'> & { limitPrice: string },
    meta: RequestMeta = {},
  ): Promise<OrderAck> {
    return this.gateway.run('depthLadder.placeAtLevel', true, meta, () => {
      const order = parseRequest(OrderRequestSchema, { ...request, type: 'limit' });
      checkLadderPrice(this.market, order.symbol, parseDecimal(order.limitPrice ?? '0'));
      return this.desk.placeAtLevel(order, sourceOf(meta));
    });
  }

  /** Orders, newest first, bounded. */
  listOrders(filter: OrderFilter = {}, meta: RequestMeta = {}): Promise<OrderList> {
    return this.gateway.run('orders.list', false, meta, () => this.orderList(filter));
  }

  /** Positions and account totals. */
  listPositions(filter: { accountId?: string } = {}, meta: RequestMeta = {}): Promise<PositionList> {
    return this.gateway.run('positions.list', false, meta, () => ({
      positions: this.view.positions(filter.accountId),
      accounts: this.view.accounts().filter((a) => !filter.accountId || a.accountId === filter.accountId),
      asOf: isoAt(this.clock.now()),
    }));
  }

  /** The depth ladder of a symbol. */
  depth(request: { symbol: string; depth: number }, meta: RequestMeta = {}): Promise<Depth> {
    return this.gateway.run('depthLadder.getLevels', false, meta, () => this.view.depth(request.symbol, request.depth));
  }

  /** Every alert. */
  listAlerts(meta: RequestMeta = {}): Promise<Alert[]> {
    return this.gateway.run('alerts.list', false, meta, () => this.alertBook.list());
  }

  /** Creates a price alert. */
  createAlert(request: AlertCreate, meta: RequestMeta = {}): Promise<Alert> {
    return this.gateway.run('alerts.create', true, meta, () => this.alertBook.create(request));
  }

  /** Deletes alerts; the result lists what was deleted and what failed, with reasons. */
  deleteAlerts(alertIds: readonly number[], meta: RequestMeta = {}): Promise<AlertDeletionResult> {
    return this.gateway.run('alerts.delete', true, meta, () => this.alertBook.delete(alertIds));
  }

  /** An FX quote valid for five minutes, or a soft failure. */
  getQuote(request: FxQuoteRequest, meta: RequestMeta = {}): Promise<FxQuoteAnswer> {
    return this.gateway.run('fx.getQuote', false, meta, () => {
      const parsed = parseRequest(FxQuoteRequestSchema, request);
      return this.fx.getQuote(parsed, this.faults.take('unpriced', meta.op ?? 'fx.getQuote') !== null);
    });
  }

  /** Confirms a quote at the live rate (410 when expired, 409 beyond tolerance). */
  confirmQuote(request: { quoteId: string }, meta: RequestMeta = {}): Promise<FxTrade> {
    return this.gateway.run('fx.confirmQuote', true, meta, () =>
      this.fx.confirm(request.quoteId, this.faults.take('drift', meta.op ?? 'fx.confirmQuote') !== null),
    );
  }

  /** Looks a client order id up (an explicit broker read, as reconciliation needs). */
  lookupClientOrder(
    accountId: string,
    clientOrderId: string,
    meta: RequestMeta = {},
  ): Promise<{ use: ClientIdUse; order: Order } | null> {
    return this.gateway.run('orders.list', false, meta, () => {
      this.accounts.require(accountId);
      const use = this.store.clientIdUse(accountId, clientOrderId);
      const record = use && this.store.get(use.orderId);
      return use && record ? { use, order: orderView(record) } : null;
    });
  }

  /** Looks an applied mutation up by the reference it was sent with. */
  lookupRequest(ref: string, meta: RequestMeta = {}): Promise<JournalEntry | null> {
    return this.gateway.run('orders.list', false, meta, () => this.gateway.lookup(ref) ?? null);
  }

  /** The trade a quote was confirmed with (null: not confirmed; undefined: no such quote). */
  lookupQuote(quoteId: string, meta: RequestMeta = {}): Promise<FxTrade | null | undefined> {
    return this.gateway.run('fx.getQuote', false, meta, () => this.fx.tradeOf(quoteId));
  }

  /** Requests the broker received under one operation name (e.g. `orders.placeOrder`), or in all. */
  requestCount(op?: string): number {
    return this.gateway.requests(op);
  }

  /** The person signed in again: an expired session works again. */
  reauthenticate(): void {
    this.faults.reauthenticate();
  }

  /** Current state without faults (the terminal's live views and test hooks). */
  readonly view = {
    accountIds: (): string[] => this.accounts.ids(),
    orders: (accountId?: string): Order[] => this.store.all(accountId).map(orderView),
    fills: (accountId?: string): Fill[] => this.store.fills(accountId),
    positions: (accountId?: string): Position[] =>
      this.accounts
        .ids()
        .filter((id) => !accountId || id === accountId)
        .flatMap((id) => this.accounts.positions(id, this.mark)),
    accounts: (): AccountSummary[] =>
      this.accounts.ids().map((id) => this.accounts.summary(id, this.mark, this.store.open({ accountId: id }).length)),
    alerts: (): Alert[] => this.alertBook.list(),
    depth: (symbol: string, depth: number): Depth =>
      depthOf(this.market, this.store, symbol, { depth, seed: this.seed, now: this.clock.now() }),
    currencies: (): string[] => this.fx.currencies(),
    fxRate: (from: string, to: string): string | null => {
      const rate = this.fx.rate(from, to);
      return rate === null ? null : formatDecimal(rate);
    },
  };

  private readonly mark = (symbol: string): bigint => touchOf(this.market.quote(symbol)).mid;

  private orderList(filter: OrderFilter): OrderList {
    if (filter.accountId) this.accounts.require(filter.accountId);
    const status = filter.status ?? 'all';
    const matched = this.store
      .all(filter.accountId)
      .filter((o) => status === 'all' || (status === 'open' ? OPEN_STATUSES.has(o.status) : o.status === status))
      .reverse();
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), LIST_LIMIT);
    return {
      orders: matched.slice(0, limit).map(orderView),
      total: matched.length,
      truncated: matched.length > limit,
      asOf: isoAt(this.clock.now()),
    };
  }
}

function sourceOf(meta: RequestMeta): Order['source'] {
  return meta.source === 'agent' ? 'agent' : 'person';
}
