/**
 * The `depthLadder` controller on the `depth-ladder` widget: the levels
 * around the touch of the ladder's symbol, and one-click placement of a
 * limit order at a level (the ladder's own workflow: no preview, the level
 * is what the trader saw). The `ladder` revision changes when the symbol or
 * the working orders shown change; a placement names the one it read.
 */
import { z } from 'zod';
import { arg, control, declareController, type ControllerImpl, type MountOptions } from '../../../src/sdk/index.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { DepthSchema, OrderAckSchema } from '../broker/results.js';
import { AccountIdSchema, ClientOrderIdSchema, PositiveDecimalSchema, SideSchema } from '../broker/schemas.js';
import { brokerCall } from '../trading/brokerFailure.js';
import type { LadderModel } from './ladderModel.js';
import { OperationOptionsSchema } from '../orders/ordersController.js';
import { ordersReconcile } from '../orders/ordersControls.js';
import type { RevisionRouter } from '../trading/revisionRouter.js';

/** The ladder widget's target id. */
export const LADDER_WIDGET_ID = 'depth-ladder';

const LevelOrderSchema = z
  .object({
    accountId: AccountIdSchema,
    side: SideSchema,
    price: PositiveDecimalSchema.describe('A level price from depthLadder.getLevels.'),
    quantity: PositiveDecimalSchema.describe('Quantity in base units, decimal string.'),
    clientOrderId: ClientOrderIdSchema,
  })
  .strict();

/** The `depthLadder` controller. */
export const depthLadderController = declareController({
  name: 'depthLadder',
  targetScopes: ['widget'],
  revisionDomains: ['ladder'],
  controls: {
    getLevels: control({
      accessClass: 'read',
      risk: 'read',
      mutation: false,
      family: 'depthLadder.read',
      permission: 'depthLadder.read',
      revisionDomains: ['ladder'],
      description:
        "Reads the ladder of its current symbol: `depth` ask levels (highest first), then `depth` bid levels (highest first; default 10, at most 20), each with simulated size and ownQuantity (the accounts' working orders there), plus bestBid, bestAsk and levelStep. The ladder revision in the receipt (it changes with the symbol and the working orders) is what depthLadder.placeAtLevel must name.",
      args: [
        arg(
          'request',
          z
            .object({ depth: z.number().int().min(1).max(20).optional() })
            .strict()
            .optional(),
        ),
      ],
      result: DepthSchema,
    }),
    placeAtLevel: control({
      accessClass: 'trade',
      risk: 'financial',
      mutation: true,
      family: 'depthLadder.place',
      permission: 'orders.trade',
      revisionDomains: ['ladder'],
      operationOptionsIndex: 1,
      description:
        "Places a limit order for the ladder's current symbol at one of its levels (one-click ladder trading, no preview): price must be a level price from depthLadder.getLevels (buying at or above the best ask, or selling at or below the best bid, fills on the next tick). Needs context.operationId, expectedRevisions.ladder from your read, and a fresh account-unique clientOrderId. The acknowledgement never reports fills (see trading.events, orders.list). After uncertain_execution, reconcile with orders.list by clientOrderId before anything else.",
      args: [arg('order', LevelOrderSchema), arg('options', OperationOptionsSchema)],
      result: OrderAckSchema,
    }),
  },
});

/** Implements the ladder controls over the broker and the ladder's symbol. */
export function depthLadderControls(
  broker: PaperBroker,
  ladder: LadderModel,
  router: RevisionRouter,
): ControllerImpl<(typeof depthLadderController)['controls']> {
  return {
    getLevels: (ctx, request) =>
      brokerCall(false, () =>
        broker.depth({ symbol: ladder.symbol(), depth: request?.depth ?? 10 }, { op: ctx.controlId, source: 'agent' }),
      ),
    placeAtLevel: (ctx, order) => {
      const { price, ...rest } = order;
      const request = { ...rest, symbol: ladder.symbol(), limitPrice: price };
      return router.during(ctx, () =>
        brokerCall(true, () => broker.placeAtLevel(request, { op: ctx.controlId, source: 'agent' })),
      );
    },
  };
}

/** A ladder order is found like any placement: by its client order id. */
export function depthLadderReconcile(broker: PaperBroker): NonNullable<MountOptions['reconcile']> {
  const orders = ordersReconcile(broker);
  return (request) => orders({ ...request, controlId: 'orders.placeOrder' });
}
