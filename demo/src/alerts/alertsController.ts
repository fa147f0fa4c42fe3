/**
 * The `alerts` controller on the session target: list and delete price
 * alerts. Deletion cannot be undone, so it is trade-class (sharing the trade
 * opt-in) though it moves no money. A deletion that fails for any id is a
 * broker rejection carrying the complete result: every failed id and why.
 */
import { z } from 'zod';
import {
  arg,
  control,
  controlFailure,
  declareController,
  type ControllerImpl,
  type MountOptions,
} from '../../../src/sdk/index.js';
import { AlertDeletionResultSchema, AlertSchema } from '../broker/alertBook.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { brokerCall } from '../trading/brokerFailure.js';
import { OperationOptionsSchema } from '../orders/ordersController.js';
import { requestRef } from '../trading/requestRef.js';
import type { RevisionRouter } from '../trading/revisionRouter.js';

/** The `alerts` controller. */
export const alertsController = declareController({
  name: 'alerts',
  targetScopes: ['session'],
  revisionDomains: ['alerts'],
  controls: {
    list: control({
      accessClass: 'read',
      risk: 'read',
      mutation: false,
      family: 'alerts.read',
      permission: 'alerts.read',
      revisionDomains: ['alerts'],
      description:
        'Lists price alerts: alertId, symbol, condition (above/below) and price, status (active/triggered), and locked (the risk desk keeps it; it cannot be deleted).',
      args: [],
      result: z.object({ alerts: z.array(AlertSchema) }).strict(),
    }),
    delete: control({
      accessClass: 'trade',
      risk: 'write',
      mutation: true,
      family: 'alerts.delete',
      permission: 'alerts.trade',
      revisionDomains: ['alerts'],
      operationOptionsIndex: 1,
      description:
        'Deletes 1–50 alerts by alertId (from alerts.list); cannot be undone. Needs expectedRevisions.alerts. When any id fails, the call is a broker_rejection whose details.result lists deleted ids and failedAlerts with reasons; the others were deleted. Then re-read alerts.list before another attempt and never resend the whole batch automatically.',
      args: [
        arg('request', z.object({ alertIds: z.array(z.number().int().positive()).min(1).max(50) }).strict()),
        arg('options', OperationOptionsSchema),
      ],
      result: AlertDeletionResultSchema,
    }),
  },
});

/** Implements the alerts controls. */
export function alertsControls(
  broker: PaperBroker,
  router: RevisionRouter,
): ControllerImpl<(typeof alertsController)['controls']> {
  return {
    list: (ctx) =>
      brokerCall(false, async () => ({ alerts: await broker.listAlerts({ op: ctx.controlId, source: 'agent' }) })),
    delete: async (ctx, request) => {
      const ref = requestRef(ctx.controlId, ctx.operationId, request);
      const meta = { op: ctx.controlId, source: 'agent' as const, ref };
      const result = await router.during(ctx, () =>
        brokerCall(true, () => broker.deleteAlerts(request.alertIds, meta)),
      );
      if (result.failedAlerts.length === 0) return result;
      const failed = result.failedAlerts.length;
      throw controlFailure('broker-rejection', {
        result,
        partial: result.deleted.length > 0,
        brokerCode: result.deleted.length > 0 ? 'PARTIAL_DELETION' : 'DELETION_FAILED',
        brokerMessage: `${failed} of ${failed + result.deleted.length} alerts could not be deleted.`,
        message:
          'Not every alert was deleted: details.result lists the deleted ids and each failed id with its reason. Re-read alerts.list before deciding on another attempt; never resend the whole batch automatically.',
      });
    },
  };
}

/** Finds a deletion by its journaled request. */
export function alertsReconcile(broker: PaperBroker): NonNullable<MountOptions['reconcile']> {
  return async ({ controlId, args, operationId }) => {
    try {
      const entry = await broker.lookupRequest(requestRef(controlId, operationId, args[0]), { op: 'alerts.list' });
      return entry ? { outcome: 'happened', result: entry.result } : { outcome: 'not-happened' };
    } catch {
      return { outcome: 'unknown', reason: 'the broker could not be read now' };
    }
  };
}
