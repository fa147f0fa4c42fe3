/**
 * The `orders` controller on the session target: preview → place, preview →
 * modify, cancel, and the orders list. Placement, modification and cancel
 * are financial: they need `context.operationId` and `expectedRevisions.orders`.
 */
import { z } from 'zod';
import { arg, control, declareController } from '../../../src/sdk/index.js';
import {
  CancelAckSchema,
  ModifyAckSchema,
  ModifyPreviewSchema,
  OrderAckSchema,
  OrderListFilterSchema,
  OrderListSchema,
  OrderPreviewSchema,
} from '../broker/results.js';
import {
  AccountIdSchema,
  CancelRequestSchema,
  ModifyPlacementSchema,
  ModifyRequestSchema,
  OrderRequestSchema,
  PlacementSchema,
} from '../broker/schemas.js';

/** The guarded options object; the terminal fills in the operation id from `context.operationId`. */
export const OperationOptionsSchema = z
  .object({})
  .strict()
  .optional()
  .describe('Leave empty: the operation id comes from context.operationId.');

const read = { accessClass: 'read', risk: 'read', mutation: false, permission: 'orders.read' } as const;
const trade = {
  accessClass: 'trade',
  risk: 'financial',
  mutation: true,
  permission: 'orders.trade',
  revisionDomains: ['orders'],
  operationOptionsIndex: 1,
} as const;

const RECONCILE =
  'After uncertain_execution do not send a new order: reconcile first with orders.list (look for your clientOrderId), or repeat this exact call with the same operationId, which reconciles.';

/** The `orders` controller. */
export const ordersController = declareController({
  name: 'orders',
  targetScopes: ['session'],
  revisionDomains: ['orders'],
  controls: {
    previewOrder: control({
      ...read,
      family: 'orders.preview',
      description:
        'Checks an order at the paper broker and returns its estimate (referencePrice, estimatedCost in USDT, fee), warnings and the complete placementArguments; nothing is placed. Give a fresh account-unique clientOrderId (1–20 letters/digits) for each new order. Next: show the estimate to the person, then call orders.placeOrder with placementArguments exactly as returned. A preview expires after 2 minutes; a material change needs a new preview.',
      args: [arg('request', OrderRequestSchema)],
      result: OrderPreviewSchema,
    }),
    placeOrder: control({
      ...trade,
      family: 'orders.place',
      description: `Places a previewed order: pass the preview's placementArguments unchanged (any change is rejected; preview again instead). Needs context.operationId and expectedRevisions.orders. The acknowledgement only says the broker accepted the order, never whether it filled: fills arrive in trading.events and orders.list. ${RECONCILE}`,
      args: [arg('placement', PlacementSchema), arg('options', OperationOptionsSchema)],
      result: OrderAckSchema,
    }),
    previewModifyOrder: control({
      ...read,
      family: 'orders.preview',
      description:
        "Checks a change of a working limit order (new total quantity and limit price) and returns placementArguments for orders.modifyOrder; nothing changes yet. Needs a NEW clientOrderId: never the order's current or any earlier id.",
      args: [arg('request', ModifyRequestSchema)],
      result: ModifyPreviewSchema,
    }),
    modifyOrder: control({
      ...trade,
      family: 'orders.modify',
      description: `Applies a previewed modification: pass the modify preview's placementArguments unchanged. Needs context.operationId and expectedRevisions.orders. Fills before the change stay; read orders.list for the result. ${RECONCILE}`,
      args: [arg('placement', ModifyPlacementSchema), arg('options', OperationOptionsSchema)],
      result: ModifyAckSchema,
    }),
    cancelOrder: control({
      ...trade,
      family: 'orders.cancel',
      description:
        'Requests the cancel of one order named by explicit accountId and orderId (from orders.list); no preview. Needs context.operationId and expectedRevisions.orders. The acknowledgement (cancelRequested) says nothing about fills: a fill can race the cancel, so read orders.list or trading.events for the final status.',
      args: [arg('request', CancelRequestSchema), arg('options', OperationOptionsSchema)],
      result: CancelAckSchema,
    }),
    list: control({
      ...read,
      family: 'orders.read',
      revisionDomains: ['orders'],
      description:
        "Lists orders newest first (limit default 50, at most 200), optionally of one account and status ('open' = new, working or partially filled). Each order shows filledQuantity and averageFillPrice. Use it to reconcile after uncertain_execution: look for your clientOrderId.",
      args: [
        arg(
          'filter',
          z
            .object({
              accountId: AccountIdSchema.optional(),
              status: OrderListFilterSchema.optional(),
              limit: z.number().int().min(1).max(200).optional(),
            })
            .strict()
            .optional(),
        ),
      ],
      result: OrderListSchema,
    }),
  },
});
