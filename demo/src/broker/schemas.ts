/**
 * The paper broker's request and record shapes, as zod schemas: the broker
 * checks what it receives with them and the controllers derive their
 * argument and result schemas from them. Decimals are strings everywhere.
 */
import { z } from 'zod';
import { DecimalSchema } from '../../../src/protocol/index.js';
import { isDecimal, parseDecimal } from './decimal.js';

/** A decimal that may be negative (P&L), e.g. "-12.5". */
export const SignedDecimalSchema = DecimalSchema;

/** A decimal string greater than zero, e.g. "0.25". */
export const PositiveDecimalSchema = z
  .string()
  .regex(/^\d{1,18}(\.\d{1,12})?$/, 'Use a decimal string such as "0.25".')
  .refine((value) => isDecimal(value) && parseDecimal(value) > 0n, { message: 'Must be greater than zero.' });

/** Account ids such as "PAPER-001". */
export const AccountIdSchema = z
  .string()
  .regex(/^[A-Z][A-Z0-9-]{0,31}$/)
  .describe('Account id, e.g. "PAPER-001" (accounts are listed by positions.list and in the session context).');

/** The caller's account-unique order id: 1–20 ASCII letters or digits. */
export const ClientOrderIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9]{1,20}$/)
  .describe(
    'Your account-unique client order id, 1–20 ASCII letters/digits. Generate a new one for each new order and for each modification; keep it unchanged from preview to placement.',
  );

/** Broker order ids such as "O-100001". */
export const OrderIdSchema = z
  .string()
  .regex(/^O-\d{1,12}$/)
  .describe('Broker order id, e.g. "O-100001".');
/** Preview ids such as "PV-7". */
export const PreviewIdSchema = z
  .string()
  .regex(/^PV-\d{1,12}$/)
  .describe('The previewId of the preview.');
/** A ticker such as "BTCUSDT". */
export const SymbolSchema = z
  .string()
  .regex(/^[A-Z0-9]{2,20}$/)
  .describe('Ticker, e.g. "BTCUSDT".');
/** Buy or sell. */
export const SideSchema = z.enum(['buy', 'sell']);
/** Market orders fill on the next tick; limit orders when the price reaches the limit. */
export const OrderTypeSchema = z.enum(['market', 'limit']);
/** Every state an order passes through. */
export const OrderStatusSchema = z.enum(['new', 'working', 'partiallyFilled', 'filled', 'cancelled', 'rejected']);
/** Who sent an order: an MCP agent, the person at the terminal, or the broker (emergency flatten). */
export const OrderSourceSchema = z.enum(['agent', 'person', 'system']);

const limitRule = (value: { type: string; limitPrice?: string | undefined }) =>
  value.type === 'limit' ? value.limitPrice !== undefined : value.limitPrice === undefined;
const limitRuleMessage = { message: 'A limit order needs limitPrice; a market order must not have one.' };

const orderRequestShape = {
  accountId: AccountIdSchema,
  symbol: SymbolSchema,
  side: SideSchema,
  type: OrderTypeSchema,
  quantity: PositiveDecimalSchema.describe('Quantity in base units, decimal string, e.g. "0.05".'),
  limitPrice: PositiveDecimalSchema.optional().describe('Limit price, decimal string; only for limit orders.'),
  clientOrderId: ClientOrderIdSchema,
};

/** What orders.previewOrder takes. */
export const OrderRequestSchema = z.object(orderRequestShape).strict().refine(limitRule, limitRuleMessage);
/** An order request. */
export type OrderRequest = z.infer<typeof OrderRequestSchema>;

/** What orders.placeOrder takes: a preview's placementArguments, unchanged. */
export const PlacementSchema = z
  .object({ previewId: PreviewIdSchema, ...orderRequestShape })
  .strict()
  .refine(limitRule, limitRuleMessage);
/** The complete placement arguments of a preview. */
export type Placement = z.infer<typeof PlacementSchema>;

const modifyShape = {
  accountId: AccountIdSchema,
  orderId: OrderIdSchema,
  clientOrderId: ClientOrderIdSchema,
  quantity: PositiveDecimalSchema.describe('New total quantity (more than what already filled).'),
  limitPrice: PositiveDecimalSchema.describe('New limit price.'),
};

/** What orders.previewModifyOrder takes (working limit orders only). */
export const ModifyRequestSchema = z.object(modifyShape).strict();
/** A modification request. */
export type ModifyRequest = z.infer<typeof ModifyRequestSchema>;
/** What orders.modifyOrder takes: a modify preview's placementArguments, unchanged. */
export const ModifyPlacementSchema = z.object({ previewId: PreviewIdSchema, ...modifyShape }).strict();
/** The complete placement arguments of a modify preview. */
export type ModifyPlacement = z.infer<typeof ModifyPlacementSchema>;

/** An explicit cancel target. */
export const CancelRequestSchema = z.object({ accountId: AccountIdSchema, orderId: OrderIdSchema }).strict();
/** A cancel request. */
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

/** One order as the broker reports it. */
export const OrderSchema = z
  .object({
    orderId: z.string(),
    accountId: z.string(),
    clientOrderId: z.string().describe('The latest client order id (a modification replaces it).'),
    symbol: z.string(),
    side: SideSchema,
    type: OrderTypeSchema,
    quantity: DecimalSchema,
    limitPrice: z.nullable(DecimalSchema),
    filledQuantity: DecimalSchema,
    averageFillPrice: z.nullable(DecimalSchema),
    status: OrderStatusSchema,
    cancelRequested: z.boolean(),
    source: OrderSourceSchema,
    message: z.string().nullable().describe('Why the broker rejected it, when it did.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
/** One order. */
export type Order = z.infer<typeof OrderSchema>;

/** One execution. */
export const FillSchema = z
  .object({
    fillId: z.string(),
    orderId: z.string(),
    accountId: z.string(),
    clientOrderId: z.string(),
    symbol: z.string(),
    side: SideSchema,
    quantity: DecimalSchema,
    price: DecimalSchema,
    fee: DecimalSchema,
    time: z.string(),
  })
  .strict();
/** One execution. */
export type Fill = z.infer<typeof FillSchema>;

/** One position, marked to the current mid. */
export const PositionSchema = z
  .object({
    accountId: z.string(),
    symbol: z.string(),
    quantity: DecimalSchema,
    averagePrice: DecimalSchema,
    markPrice: DecimalSchema,
    marketValue: DecimalSchema,
    unrealizedPnl: SignedDecimalSchema,
  })
  .strict();
/** One position. */
export type Position = z.infer<typeof PositionSchema>;

/** A cash balance in one currency. */
export const BalanceSchema = z.object({ currency: z.string(), amount: DecimalSchema }).strict();
/** One account's totals (equity and exposure in USDT). */
export const AccountSummarySchema = z
  .object({
    accountId: z.string(),
    name: z.string(),
    currency: z.literal('USDT'),
    cash: DecimalSchema,
    equity: DecimalSchema,
    grossExposure: DecimalSchema,
    realizedPnl: SignedDecimalSchema,
    openOrders: z.number().int(),
    balances: z.array(BalanceSchema),
  })
  .strict();
/** One account's totals. */
export type AccountSummary = z.infer<typeof AccountSummarySchema>;
