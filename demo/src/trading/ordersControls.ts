/**
 * The `orders` controls over the paper broker, and their reconciliation: a
 * placement or modification is found by its client order id, a cancel by
 * the journaled request.
 */
import type { ControllerImpl, MountOptions, Reconciliation } from '../../../src/sdk/index.js';
import { isoAt } from '../broker/clock.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import type { ClientIdUse } from '../broker/orderStore.js';
import { brokerCall } from './brokerFailure.js';
import type { ordersController } from './ordersController.js';
import { requestRef } from './requestRef.js';
import type { RevisionRouter } from './revisionRouter.js';

type OrdersImpl = ControllerImpl<(typeof ordersController)['controls']>;

/** Implements the orders controls; broker changes during a call bump `orders` through the call. */
export function ordersControls(broker: PaperBroker, router: RevisionRouter): OrdersImpl {
  const agent = (ctx: { controlId: string }, ref?: string) => ({ op: ctx.controlId, source: 'agent' as const, ref });
  return {
    previewOrder: (ctx, request) => brokerCall(false, () => broker.previewOrder(request, agent(ctx))),
    placeOrder: (ctx, placement) =>
      router.during(ctx, () => brokerCall(true, () => broker.placeOrder(placement, agent(ctx)))),
    previewModifyOrder: (ctx, request) => brokerCall(false, () => broker.previewModify(request, agent(ctx))),
    modifyOrder: (ctx, placement) =>
      router.during(ctx, () => brokerCall(true, () => broker.modifyOrder(placement, agent(ctx)))),
    cancelOrder: (ctx, request) => {
      const ref = requestRef(ctx.controlId, ctx.operationId, request);
      return router.during(ctx, () => brokerCall(true, () => broker.cancelOrder(request, agent(ctx, ref))));
    },
    list: (ctx, filter) => brokerCall(false, () => broker.listOrders(filter ?? {}, agent(ctx))),
  };
}

/** What a placement or modification with this client order id did, if the broker knows it. */
async function byClientOrderId(
  broker: PaperBroker,
  request: { accountId: string; clientOrderId: string; orderId?: string },
  kind: ClientIdUse['kind'],
): Promise<Reconciliation> {
  const found = await broker.lookupClientOrder(request.accountId, request.clientOrderId, { op: 'orders.list' });
  // Client order ids are account-unique: an id used for something else proves this request never happened.
  if (!found || found.use.kind !== kind) return { outcome: 'not-happened' };
  if ('orderId' in request && request.orderId !== found.use.orderId) return { outcome: 'not-happened' };
  const { order, use } = found;
  const base = { orderId: order.orderId, accountId: order.accountId, clientOrderId: request.clientOrderId };
  const result =
    kind === 'place'
      ? { ...base, status: 'accepted', acceptedAt: isoAt(use.at) }
      : { ...base, status: 'modified', modifiedAt: isoAt(use.at) };
  return { outcome: 'happened', result };
}

/** Proves what an uncertain orders mutation did; anything unreadable is `unknown`. */
export function ordersReconcile(broker: PaperBroker): NonNullable<MountOptions['reconcile']> {
  return async ({ controlId, args, operationId }) => {
    const request = args[0] as { accountId: string; clientOrderId: string; orderId?: string };
    try {
      if (controlId === 'orders.placeOrder') return await byClientOrderId(broker, request, 'place');
      if (controlId === 'orders.modifyOrder') return await byClientOrderId(broker, request, 'modify');
      if (controlId === 'orders.cancelOrder') {
        const entry = await broker.lookupRequest(requestRef(controlId, operationId, args[0]), { op: 'orders.list' });
        return entry ? { outcome: 'happened', result: entry.result } : { outcome: 'not-happened' };
      }
    } catch {
      // The broker could not be read now: nothing is proven.
    }
    return { outcome: 'unknown' };
  };
}
