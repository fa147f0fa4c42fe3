/**
 * Built-in subscription channels (SPEC §7). A host supplies their sources and
 * adds custom channels the same way.
 */
import { z } from 'zod';

/** A decimal value as a string, e.g. "101.25". */
export const DecimalSchema = z.string().regex(/^-?\d{1,18}(\.\d{1,12})?$/);

/** `data.quotes` options. */
export const QuotesOptionsSchema = z
  .object({ symbols: z.array(z.string().min(1).max(64)).min(1).max(32).describe('Symbols to watch.') })
  .strict();
/** `data.quotes` event. */
export const QuoteEventSchema = z
  .object({
    symbol: z.string(),
    bid: DecimalSchema,
    ask: DecimalSchema,
    last: DecimalSchema,
    time: z.string(),
  })
  .strict();
/** A quote. */
export type QuoteEvent = z.infer<typeof QuoteEventSchema>;

/** `trading.events` options. */
export const TradingEventsOptionsSchema = z
  .object({ accountIds: z.array(z.string().min(1).max(64)).min(1).max(16).optional().describe('Only these accounts.') })
  .strict();

/** What happened. */
export const TradingEventTypeSchema = z.enum([
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
]);

/** `trading.events` event. Fills arrive here, never in an acknowledgement. */
export const TradingEventSchema = z
  .object({
    type: TradingEventTypeSchema,
    time: z.string(),
    accountId: z.string().optional(),
    orderId: z.string().optional(),
    clientOrderId: z.string().optional(),
    symbol: z.string().optional(),
    side: z.enum(['buy', 'sell']).optional(),
    quantity: DecimalSchema.optional(),
    price: DecimalSchema.optional(),
    status: z.string().max(64).optional(),
    chartId: z.string().optional(),
    lineId: z.string().optional(),
    message: z.string().max(1000).nullable().optional(),
  })
  .strict();
/** A trading event. */
export type TradingEvent = z.infer<typeof TradingEventSchema>;

/** Built-in channel ids. */
export const BUILTIN_CHANNELS = {
  quotes: 'data.quotes',
  tradingEvents: 'trading.events',
} as const;
