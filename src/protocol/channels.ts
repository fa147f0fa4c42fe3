/**
 * Built-in subscription channels (SPEC §7). A host supplies their sources and
 * adds custom channels the same way.
 */
import * as z from 'zod/mini';

/** A decimal value as a string, e.g. "101.25". */
export const DecimalSchema = z.string().check(z.regex(/^-?\d{1,18}(\.\d{1,12})?$/));

/** `data.quotes` options. */
export const QuotesOptionsSchema = z.strictObject({
  symbols: z
    .array(z.string().check(z.minLength(1), z.maxLength(64)))
    .check(z.minLength(1), z.maxLength(32), z.describe('Symbols to watch.')),
});
/** `data.quotes` event. */
export const QuoteEventSchema = z.strictObject({
  symbol: z.string(),
  bid: DecimalSchema,
  ask: DecimalSchema,
  last: DecimalSchema,
  time: z.string(),
});
/** A quote. */
export type QuoteEvent = z.infer<typeof QuoteEventSchema>;

/** `trading.events` options. */
export const TradingEventsOptionsSchema = z.strictObject({
  accountIds: z
    .optional(z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.minLength(1), z.maxLength(16)))
    .check(z.describe('Only these accounts.')),
});

/** What a `trading.events` event can say happened. */
export const TRADING_EVENT_TYPES = [
  'order.accepted',
  'order.rejected',
  'order.modified',
  'order.cancelled',
  'order.filled',
  'order.partiallyFilled',
  'position.changed',
  'alert.deleted',
  'fx.confirmed',
  'tradingLine.created',
  'tradingLine.updated',
  'tradingLine.removed',
] as const;

/** What happened. */
export const TradingEventTypeSchema = z.enum(TRADING_EVENT_TYPES);

/** `trading.events` event. Fills arrive here, never in an acknowledgement. */
export const TradingEventSchema = z.strictObject({
  type: TradingEventTypeSchema,
  time: z.string(),
  accountId: z.optional(z.string()),
  orderId: z.optional(z.string()),
  clientOrderId: z.optional(z.string()),
  symbol: z.optional(z.string()),
  side: z.optional(z.enum(['buy', 'sell'])),
  quantity: z.optional(DecimalSchema),
  price: z.optional(DecimalSchema),
  status: z.optional(z.string().check(z.maxLength(64))),
  chartId: z.optional(z.string()),
  lineId: z.optional(z.string()),
  message: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
});
/** A trading event. */
export type TradingEvent = z.infer<typeof TradingEventSchema>;

/** Built-in channel ids. */
export const BUILTIN_CHANNELS = {
  quotes: 'data.quotes',
  tradingEvents: 'trading.events',
} as const;
