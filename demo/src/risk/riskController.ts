/**
 * The `risk` controller on the session target: the emergency flatten of one
 * account. It declares no revision domain, so no stale revision can ever
 * block it; the operation id alone guards it.
 */
import { z } from 'zod';
import { arg, control, declareController, type ControllerImpl, type MountOptions } from '../../../src/sdk/index.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { EmergencyResultSchema } from '../broker/results.js';
import { AccountIdSchema } from '../broker/schemas.js';
import { brokerCall } from '../trading/brokerFailure.js';
import { OperationOptionsSchema } from '../orders/ordersController.js';
import { requestRef } from '../trading/requestRef.js';
import type { RevisionRouter } from '../trading/revisionRouter.js';

/** The `risk` controller. */
export const riskController = declareController({
  name: 'risk',
  targetScopes: ['session'],
  revisionDomains: ['emergency'],
  controls: {
    triggerEmergency: control({
      accessClass: 'trade',
      risk: 'financial',
      mutation: true,
      family: 'risk.emergency',
      permission: 'risk.trade',
      operationOptionsIndex: 1,
      description:
        'Emergency flatten of ONE account: cancels all its working orders at once and sends market orders that close every position (they fill on the next ticks; fills arrive in trading.events). It cannot be undone: use it only when the person asks or a risk limit demands it. Needs context.operationId. After uncertain_execution, repeat the exact call with the same operationId (it reconciles) or read orders.list; never trigger again blindly.',
      args: [arg('request', z.object({ accountId: AccountIdSchema }).strict()), arg('options', OperationOptionsSchema)],
      result: EmergencyResultSchema,
    }),
  },
});

/** Implements the risk controls. */
export function riskControls(
  broker: PaperBroker,
  router: RevisionRouter,
): ControllerImpl<(typeof riskController)['controls']> {
  return {
    triggerEmergency: (ctx, request) => {
      const ref = requestRef(ctx.controlId, ctx.operationId, request);
      return router.during(ctx, () =>
        brokerCall(true, () => broker.flatten(request, { op: ctx.controlId, source: 'agent', ref })),
      );
    },
  };
}

/** Finds a flatten by its journaled request. */
export function riskReconcile(broker: PaperBroker): NonNullable<MountOptions['reconcile']> {
  return async ({ controlId, args, operationId }) => {
    try {
      const entry = await broker.lookupRequest(requestRef(controlId, operationId, args[0]), { op: 'orders.list' });
      return entry ? { outcome: 'happened', result: entry.result } : { outcome: 'not-happened' };
    } catch {
      return { outcome: 'unknown', reason: 'the broker could not be read now' };
    }
  };
}
