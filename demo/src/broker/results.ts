/**
 * What the paper broker answers to order-desk requests: previews,
 * acknowledgements (which never speak of fills), the emergency flatten's
 * report and the depth ladder's levels.
 */
import { z } from 'zod';
import { DecimalSchema } from '../../../src/protocol/index.js';
import {
  AccountSummarySchema,
  ModifyPlacementSchema,
  OrderSchema,
  PlacementSchema,
  PositionSchema,
  SideSchema,
} from './schemas.js';

const previewShape = {
  previewId: z.string(),
  referencePrice: DecimalSchema.check(z.describe('The touch the estimate used (ask for a buy, bid for a sell).')),
  estimatedNotional: DecimalSchema,
  estimatedFee: DecimalSchema,
  estimatedCost: DecimalSchema.check(z.describe('Notional plus fee for a buy; proceeds after fee for a sell (USDT).')),
  warnings: z.array(z.string()),
  expiresAt: z.string(),
};

/** The answer to orders.previewOrder. */
export const OrderPreviewSchema = z
  .object({
    ...previewShape,
    placementArguments: PlacementSchema.describe('Pass this object, unchanged, as the argument of orders.placeOrder.'),
  })
  .strict();
/** A new-order preview. */
export type OrderPreview = z.infer<typeof OrderPreviewSchema>;

/** The answer to orders.previewModifyOrder. */
export const ModifyPreviewSchema = z
  .object({
    ...previewShape,
    placementArguments: ModifyPlacementSchema.describe(
      'Pass this object, unchanged, as the argument of orders.modifyOrder.',
    ),
  })
  .strict();
/** A modification preview. */
export type ModifyPreview = z.infer<typeof ModifyPreviewSchema>;

/** A placement acknowledgement: accepted, nothing about fills. */
export const OrderAckSchema = z
  .object({
    orderId: z.string(),
    accountId: z.string(),
    clientOrderId: z.string(),
    status: z.literal('accepted'),
    acceptedAt: z.string(),
  })
  .strict();
/** A placement acknowledgement. */
export type OrderAck = z.infer<typeof OrderAckSchema>;

/** A modification acknowledgement. */
export const ModifyAckSchema = z
  .object({
    orderId: z.string(),
    accountId: z.string(),
    clientOrderId: z.string(),
    status: z.literal('modified'),
    modifiedAt: z.string(),
  })
  .strict();
/** A modification acknowledgement. */
export type ModifyAck = z.infer<typeof ModifyAckSchema>;

/** A cancel acknowledgement: the request was taken; a fill may still race it. */
export const CancelAckSchema = z
  .object({
    orderId: z.string(),
    accountId: z.string(),
    status: z.literal('cancelRequested'),
    requestedAt: z.string(),
  })
  .strict();
/** A cancel acknowledgement. */
export type CancelAck = z.infer<typeof CancelAckSchema>;

/** One market order the flatten sent to close a position. */
export const ClosingOrderSchema = z
  .object({
    orderId: z.string(),
    clientOrderId: z.string(),
    symbol: z.string(),
    side: SideSchema,
    quantity: DecimalSchema,
  })
  .strict();

/** What an emergency flatten did. */
export const EmergencyResultSchema = z
  .object({
    emergencyId: z.string(),
    accountId: z.string(),
    cancelledOrderIds: z.array(z.string()),
    closingOrders: z.array(ClosingOrderSchema),
    requestedAt: z.string(),
  })
  .strict();
/** What an emergency flatten did. */
export type EmergencyResult = z.infer<typeof EmergencyResultSchema>;

/** One price level of the depth ladder. */
export const DepthLevelSchema = z
  .object({
    price: DecimalSchema,
    side: z.enum(['bid', 'ask']),
    size: DecimalSchema.check(z.describe('Simulated resting size at this level.')),
    ownQuantity: DecimalSchema.check(z.describe("The quantity of the account holders' working orders at this level.")),
  })
  .strict();
/** One price level. */
export type DepthLevel = z.infer<typeof DepthLevelSchema>;

/** The ladder around the touch: asks highest first, then bids highest first. */
export const DepthSchema = z
  .object({
    symbol: z.string(),
    bestBid: DecimalSchema,
    bestAsk: DecimalSchema,
    levelStep: DecimalSchema.check(z.describe('Price distance between ladder levels.')),
    levels: z.array(DepthLevelSchema),
    asOf: z.string(),
  })
  .strict();
/** A depth snapshot. */
export type Depth = z.infer<typeof DepthSchema>;

/** Which orders a list returns: open ones (new, working, partially filled), one final state, or all. */
export const OrderListFilterSchema = z.enum(['open', 'filled', 'cancelled', 'rejected', 'all']);

/** The answer to orders.list: newest first, bounded. */
export const OrderListSchema = z
  .object({
    orders: z.array(OrderSchema),
    total: z.number().int().describe('How many orders matched before the bound.'),
    truncated: z.boolean(),
    asOf: z.string(),
  })
  .strict();
/** A list of orders. */
export type OrderList = z.infer<typeof OrderListSchema>;

/** The answer to positions.list. */
export const PositionListSchema = z
  .object({ positions: z.array(PositionSchema), accounts: z.array(AccountSummarySchema), asOf: z.string() })
  .strict();
/** Positions and account totals. */
export type PositionList = z.infer<typeof PositionListSchema>;
