/**
 * The FX/OTC desk: quotes valid for five minutes, confirmed at the live rate
 * when it is still within tolerance of the quote. Business refusals of a
 * quote are soft (`success:false` with a message); a quote with an empty rate
 * means the desk cannot price now. Confirmation fails hard: 410 QUOTE_EXPIRED,
 * 409 PRICE_DRIFT_EXCEEDED (with original and new price and tolerance).
 */
import { z } from 'zod';
import { DecimalSchema } from '../../../src/protocol/index.js';
import type { AccountBook } from './accounts.js';
import { isoAt } from './clock.js';
import {
  abs,
  div,
  formatDecimal,
  formatFixed,
  fractionDigits,
  isDecimal,
  mul,
  parseDecimal,
  roundTo,
  truncateTo,
  type Units,
} from './decimal.js';
import { BrokerError, rejected } from './errors.js';
import type { BrokerEvents } from './events.js';
import { touchOf, type PriceSource } from './instruments.js';
import { AccountIdSchema, PositiveDecimalSchema } from './schemas.js';

/** How long a quote may be confirmed. */
export const QUOTE_TTL_MS = 5 * 60_000;
/** Largest relative move between quote and confirmation. */
export const DRIFT_TOLERANCE = '0.0025';

const CurrencySchema = z
  .string()
  .regex(/^[A-Z]{3,5}$/)
  .describe('Currency code, e.g. "EUR", "USD", "USDT".');

/** What fx.getQuote takes. */
export const FxQuoteRequestSchema = z
  .object({
    from: CurrencySchema,
    to: CurrencySchema,
    amount: PositiveDecimalSchema.describe('Amount to sell, in `from`, decimal string with at most 2 decimals.'),
    accountId: AccountIdSchema.optional().describe('Account whose balance pays (default PAPER-001).'),
  })
  .strict();
/** A quote request. */
export type FxQuoteRequest = z.infer<typeof FxQuoteRequestSchema>;

/** A priced quote (the broker may leave rate and finalAmount empty when it cannot price). */
export const FxQuoteSchema = z
  .object({
    success: z.literal(true),
    quoteId: z.string(),
    accountId: z.string(),
    pair: z.string(),
    rate: DecimalSchema,
    amount: DecimalSchema,
    finalAmount: DecimalSchema,
    expiresAt: z.string(),
  })
  .strict();
/** A priced quote. */
export type FxQuote = z.infer<typeof FxQuoteSchema>;

/** A soft refusal: not an error; do not proceed to confirmation. */
export const FxSoftFailureSchema = z
  .object({
    success: z.literal(false),
    reason: z.enum(['insufficient-balance', 'unsupported-pair', 'amount-out-of-range', 'cannot-price']),
    message: z.string(),
  })
  .strict();
/** A soft refusal. */
export type FxSoftFailure = z.infer<typeof FxSoftFailureSchema>;

/** What the desk answers a quote request with, before the controller normalizes an empty rate. */
export type FxQuoteAnswer =
  FxSoftFailure | (Omit<FxQuote, 'rate' | 'finalAmount'> & { rate: string; finalAmount: string });

/** A confirmed exchange. */
export const FxTradeSchema = z
  .object({
    tradeId: z.string(),
    quoteId: z.string(),
    accountId: z.string(),
    pair: z.string(),
    rate: DecimalSchema.check(z.describe('The live rate the trade executed at.')),
    amount: DecimalSchema,
    finalAmount: DecimalSchema,
    confirmedAt: z.string(),
  })
  .strict();
/** A confirmed exchange. */
export type FxTrade = z.infer<typeof FxTradeSchema>;

interface QuoteRecord {
  readonly quote: FxQuote;
  readonly from: string;
  readonly to: string;
  readonly amount: Units;
  readonly rate: Units;
  readonly expiresAt: number;
  trade: FxTrade | null;
}

/** USD value of one unit of each currency the desk trades (EUR follows the market). */
const PEG_USDT = parseDecimal('0.9998');
const SPREAD = parseDecimal('0.0015');
const MIN_AMOUNT = parseDecimal('10');
const MAX_AMOUNT = parseDecimal('250000');
const DRIFT_SHOCK = parseDecimal('0.01');

/** Quotes and confirms currency exchanges. */
export class FxDesk {
  private readonly quotes = new Map<string, QuoteRecord>();
  private nextQuote = 1;
  private nextTrade = 1;

  constructor(
    private readonly market: PriceSource,
    private readonly accounts: AccountBook,
    private readonly events: BrokerEvents,
    private readonly now: () => number,
  ) {}

  /** Currencies the desk exchanges. */
  currencies(): string[] {
    return ['USD', 'EUR', 'USDT'];
  }

  /** The client rate for `from` → `to` now (after the desk's spread), or null for an unsupported pair. */
  rate(from: string, to: string): Units | null {
    const a = this.usdValue(from);
    const b = this.usdValue(to);
    if (a === null || b === null || from === to) return null;
    const mid = div(a, b);
    return roundTo(mid - mul(mid, SPREAD), 6);
  }

  /** A quote valid for five minutes, or a soft failure. `unpriced` answers with empty rate and amount. */
  getQuote(request: FxQuoteRequest, unpriced = false): FxQuoteAnswer {
    const accountId = request.accountId ?? 'PAPER-001';
    this.accounts.require(accountId);
    const rate = this.rate(request.from, request.to);
    if (rate === null) return soft('unsupported-pair', `The desk does not exchange ${request.from} for ${request.to}.`);
    if (!isDecimal(request.amount) || fractionDigits(request.amount) > 2) {
      return soft('amount-out-of-range', 'Amounts have at most 2 decimals.');
    }
    const amount = parseDecimal(request.amount);
    if (amount < MIN_AMOUNT || amount > MAX_AMOUNT) {
      return soft('amount-out-of-range', `Amount must be from 10 to 250000 ${request.from}.`);
    }
    if (amount > this.accounts.cash(accountId, request.from)) {
      return soft(
        'insufficient-balance',
        `Insufficient ${request.from} balance to exchange ${formatDecimal(amount)} ${request.from}.`,
      );
    }
    const quoteId = `Q-${String(this.nextQuote++).padStart(6, '0')}`;
    const expiresAt = this.now() + QUOTE_TTL_MS;
    const quote: FxQuote = {
      success: true,
      quoteId,
      accountId,
      pair: `${request.from}/${request.to}`,
      rate: formatRate(rate),
      amount: formatDecimal(amount, 2),
      finalAmount: formatDecimal(truncateTo(mul(amount, rate), 2), 2),
      expiresAt: isoAt(expiresAt),
    };
    if (unpriced) return { ...quote, rate: '', finalAmount: '' };
    this.quotes.set(quoteId, { quote, from: request.from, to: request.to, amount, rate, expiresAt, trade: null });
    return quote;
  }

  /** Confirms at the live rate; 410 after five minutes, 409 beyond the drift tolerance. */
  confirm(quoteId: string, drift = false): FxTrade {
    const record = this.quotes.get(quoteId);
    if (!record || this.now() >= record.expiresAt) {
      throw new BrokerError(410, 'QUOTE_EXPIRED', 'Quote expired or not found, please request a new quote.');
    }
    if (record.trade)
      throw rejected(
        'QUOTE_ALREADY_CONFIRMED',
        'This quote was already confirmed; read the trade, do not confirm again.',
      );
    const live = this.liveRate(record, drift);
    const tolerance = parseDecimal(DRIFT_TOLERANCE);
    const moved = div(abs(live - record.rate), record.rate);
    if (moved > tolerance) {
      const data = {
        originalPrice: formatRate(record.rate),
        newPrice: formatRate(live),
        tolerance: DRIFT_TOLERANCE,
      };
      const message = `Exchange rate moved beyond tolerance (drift=${formatDecimal(roundTo(moved, 6))}, tolerance=${DRIFT_TOLERANCE}), please request a new quote.`;
      throw new BrokerError(409, 'PRICE_DRIFT_EXCEEDED', message, { drift: data });
    }
    const { accountId } = record.quote;
    if (record.amount > this.accounts.cash(accountId, record.from)) {
      throw rejected(
        'INSUFFICIENT_BALANCE',
        `Insufficient ${record.from} balance now; request a new quote for a smaller amount.`,
      );
    }
    return this.execute(record, live);
  }

  /** The trade a quote was confirmed with, if it was (for reconciliation). */
  tradeOf(quoteId: string): FxTrade | null | undefined {
    const record = this.quotes.get(quoteId);
    return record ? record.trade : undefined;
  }

  private execute(record: QuoteRecord, live: Units): FxTrade {
    const finalAmount = truncateTo(mul(record.amount, live), 2);
    const { accountId, quoteId, pair } = record.quote;
    this.accounts.adjustCash(accountId, record.from, -record.amount);
    this.accounts.adjustCash(accountId, record.to, finalAmount);
    const now = this.now();
    record.trade = {
      tradeId: `FX-${this.nextTrade++}`,
      quoteId,
      accountId,
      pair,
      rate: formatRate(live),
      amount: formatDecimal(record.amount, 2),
      finalAmount: formatDecimal(finalAmount, 2),
      confirmedAt: isoAt(now),
    };
    this.events.emit({
      type: 'fx.confirmed',
      time: isoAt(now),
      accountId,
      orderId: record.trade.tradeId,
      symbol: pair,
      quantity: record.trade.amount,
      price: record.trade.rate,
      status: 'confirmed',
    });
    this.events.changed('fx');
    return { ...record.trade };
  }

  private liveRate(record: QuoteRecord, drift: boolean): Units {
    const live = this.rate(record.from, record.to) ?? record.rate;
    return drift ? roundTo(live + mul(live, DRIFT_SHOCK), 6) : live;
  }

  private usdValue(currency: string): Units | null {
    if (currency === 'USD') return 10n ** 12n;
    if (currency === 'USDT') return PEG_USDT;
    if (currency === 'EUR')
      return this.market.has('EURUSD') ? touchOf(this.market.quote('EURUSD')).mid : parseDecimal('1.0852');
    return null;
  }
}

/** Rates always carry six decimals. */
function formatRate(rate: Units): string {
  return formatFixed(rate, 6);
}

function soft(reason: FxSoftFailure['reason'], message: string): FxSoftFailure {
  return { success: false, reason, message };
}
