/**
 * Paper accounts: cash balances per currency and spot positions with average
 * cost and realized P&L. Trading settles in USDT; other currencies are for
 * the FX desk. Every amount is exact (scaled BigInt).
 */
import { formatDecimal, mul, div, parseDecimal, type Units } from './decimal.js';
import { notFound } from './errors.js';
import type { AccountSummary, Position } from './schemas.js';

/** The currency trades settle in. */
export const SETTLEMENT = 'USDT';

/** How an account starts. */
export interface AccountSeed {
  accountId: string;
  name: string;
  /** Currency → decimal string. */
  balances: Readonly<Record<string, string>>;
  positions?: ReadonlyArray<{ symbol: string; quantity: string; averagePrice: string }>;
}

/** The demo's accounts. */
export const DEMO_ACCOUNTS: readonly AccountSeed[] = [
  {
    accountId: 'PAPER-001',
    name: 'Demo trader',
    balances: { USDT: '100000', USD: '20000', EUR: '5000' },
    positions: [
      { symbol: 'BTCUSDT', quantity: '0.15', averagePrice: '66480.5' },
      { symbol: 'SOLUSDT', quantity: '40', averagePrice: '148.215' },
    ],
  },
  {
    accountId: 'PAPER-002',
    name: 'Hedge sleeve',
    balances: { USDT: '25000', USD: '0', EUR: '0' },
    positions: [{ symbol: 'ETHUSDT', quantity: '2.5', averagePrice: '3388.4' }],
  },
];

interface Holding {
  quantity: Units;
  averagePrice: Units;
}

interface AccountState {
  readonly accountId: string;
  readonly name: string;
  readonly balances: Map<string, Units>;
  readonly holdings: Map<string, Holding>;
  realizedPnl: Units;
}

/** One execution to book. */
export interface Execution {
  accountId: string;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: Units;
  price: Units;
  fee: Units;
}

/** Every paper account's balances and positions. */
export class AccountBook {
  private readonly accounts = new Map<string, AccountState>();

  constructor(seeds: readonly AccountSeed[]) {
    for (const seed of seeds) {
      const balances = new Map(Object.entries(seed.balances).map(([c, amount]) => [c, parseDecimal(amount)]));
      const holdings = new Map(
        (seed.positions ?? []).map((p) => [
          p.symbol,
          { quantity: parseDecimal(p.quantity), averagePrice: parseDecimal(p.averagePrice) },
        ]),
      );
      this.accounts.set(seed.accountId, {
        accountId: seed.accountId,
        name: seed.name,
        balances,
        holdings,
        realizedPnl: 0n,
      });
    }
  }

  /** Account ids in creation order. */
  ids(): string[] {
    return [...this.accounts.keys()];
  }

  /** True when the account exists. */
  has(accountId: string): boolean {
    return this.accounts.has(accountId);
  }

  /** Throws the broker's 404 for an unknown account. */
  require(accountId: string): void {
    this.state(accountId);
  }

  /** A cash balance (zero when the currency was never held). */
  cash(accountId: string, currency = SETTLEMENT): Units {
    return this.state(accountId).balances.get(currency) ?? 0n;
  }

  /** Adds `delta` (may be negative) to a cash balance. */
  adjustCash(accountId: string, currency: string, delta: Units): void {
    const balances = this.state(accountId).balances;
    balances.set(currency, (balances.get(currency) ?? 0n) + delta);
  }

  /** The quantity held of a symbol (zero when none). */
  held(accountId: string, symbol: string): Units {
    return this.state(accountId).holdings.get(symbol)?.quantity ?? 0n;
  }

  /** Symbols with a position, with their quantities. */
  holdings(accountId: string): Array<{ symbol: string; quantity: Units }> {
    return [...this.state(accountId).holdings].map(([symbol, h]) => ({ symbol, quantity: h.quantity }));
  }

  /** Books an execution: cash, position, average price and realized P&L. */
  book(execution: Execution): void {
    const account = this.state(execution.accountId);
    const { symbol, quantity, price, fee } = execution;
    const notional = mul(quantity, price);
    const holding = account.holdings.get(symbol) ?? { quantity: 0n, averagePrice: 0n };
    if (execution.side === 'buy') {
      this.adjustCash(account.accountId, SETTLEMENT, -(notional + fee));
      const total = holding.quantity + quantity;
      holding.averagePrice = div(mul(holding.quantity, holding.averagePrice) + notional, total);
      holding.quantity = total;
    } else {
      this.adjustCash(account.accountId, SETTLEMENT, notional - fee);
      account.realizedPnl += mul(price - holding.averagePrice, quantity);
      holding.quantity -= quantity;
    }
    account.realizedPnl -= fee;
    if (holding.quantity === 0n) account.holdings.delete(symbol);
    else account.holdings.set(symbol, holding);
  }

  /** Positions marked at `mark(symbol)`. */
  positions(accountId: string, mark: (symbol: string) => Units): Position[] {
    return [...this.state(accountId).holdings].map(([symbol, h]) => {
      const markPrice = mark(symbol);
      const marketValue = mul(h.quantity, markPrice);
      return {
        accountId,
        symbol,
        quantity: formatDecimal(h.quantity),
        averagePrice: formatDecimal(h.averagePrice),
        markPrice: formatDecimal(markPrice),
        marketValue: formatDecimal(marketValue),
        unrealizedPnl: formatDecimal(marketValue - mul(h.quantity, h.averagePrice)),
      };
    });
  }

  /** The account's totals: equity and gross exposure in USDT. */
  summary(accountId: string, mark: (symbol: string) => Units, openOrders: number): AccountSummary {
    const account = this.state(accountId);
    let exposure = 0n;
    for (const [symbol, h] of account.holdings)
      exposure += mul(h.quantity < 0n ? -h.quantity : h.quantity, mark(symbol));
    const cash = this.cash(accountId);
    return {
      accountId,
      name: account.name,
      currency: 'USDT',
      cash: formatDecimal(cash),
      equity: formatDecimal(cash + exposure),
      grossExposure: formatDecimal(exposure),
      realizedPnl: formatDecimal(account.realizedPnl),
      openOrders,
      balances: [...account.balances].map(([currency, amount]) => ({ currency, amount: formatDecimal(amount) })),
    };
  }

  private state(accountId: string): AccountState {
    const account = this.accounts.get(accountId);
    if (!account)
      throw notFound('ACCOUNT_NOT_FOUND', 'No such account at this broker; accounts are listed by positions.list.');
    return account;
  }
}
