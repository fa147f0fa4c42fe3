/**
 * The `orders` controls over the paper broker, and their reconciliation: a
 * placement or modification is found by its client order id **with its own
 * terms** (SPEC §5), a cancel by the journaled request.
 */
import type { ControllerImpl, MountOptions, Reconciliation } from '../../../src/sdk/index.js';
import { isoAt } from '../broker/clock.js';
import { differingTerms, requestedTerms } from '../broker/orderTerms.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import type { ClientIdUse } from '../broker/orderStore.js';
import { brokerCall } from '../trading/brokerFailure.js';
import type { ordersController } from './ordersController.js';
import { requestRef } from '../trading/requestRef.js';
import type { RevisionRouter } from '../trading/revisionRouter.js';

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

/** Why an id's use proves nothing about this attempt (no argument values: the agent reads it). */
function otherUse(kind: ClientIdUse['kind'], use: ClientIdUse, differing: string[]): Reconciliation {
  const what =
    use.kind !== kind
      ? `was used for ${use.kind === 'place' ? 'a placement' : 'a modification'}, not this request`
      : `was used with other terms (${differing.join(', ')})`;
  return { outcome: 'unknown', reason: `this client order id ${what}, so it proves nothing about this attempt` };
}

/**
 * What a placement or modification with this client order id did: `happened`
 * only when the broker holds the id with this request's own terms (account,
 * symbol, side, type, quantity, price; for a modification the order, quantity
 * and price); the same id with other terms proves nothing.
 */
export async function byClientOrderId(
  broker: PaperBroker,
  request: { accountId: string; clientOrderId: string },
  kind: ClientIdUse['kind'],
): Promise<Reconciliation> {
  const requested = requestedTerms(kind, request);
  if (!requested) return { outcome: 'unknown', reason: 'the recorded request cannot be read' };
  const found = await broker.lookupClientOrder(request.accountId, request.clientOrderId, { op: 'orders.list' });
  if (!found) return { outcome: 'not-happened' };
  const differing = differingTerms(requested, found.use.terms);
  if (found.use.kind !== kind || differing.length > 0) return otherUse(kind, found.use, differing);
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
    const request = args[0] as { accountId: string; clientOrderId: string };
    try {
      if (controlId === 'orders.placeOrder') return await byClientOrderId(broker, request, 'place');
      if (controlId === 'orders.modifyOrder') return await byClientOrderId(broker, request, 'modify');
      if (controlId === 'orders.cancelOrder') {
        const entry = await broker.lookupRequest(requestRef(controlId, operationId, args[0]), { op: 'orders.list' });
        return entry ? { outcome: 'happened', result: entry.result } : { outcome: 'not-happened' };
      }
    } catch {
      return { outcome: 'unknown', reason: 'the broker could not be read now' };
    }
    return { outcome: 'unknown', reason: 'this control has no reconciliation' };
  };
}
