/**
 * The `fx` controller on the session target: a quote valid for five minutes,
 * then its confirmation at the live rate. Soft refusals of a quote are normal
 * results with `success: false`; an expired quote (410) or a drifted rate
 * (409) fails the confirmation as a broker rejection.
 */
import { z } from 'zod';
import { arg, control, declareController, type ControllerImpl, type MountOptions } from '../../../src/sdk/index.js';
import {
  FxQuoteRequestSchema,
  FxQuoteSchema,
  FxSoftFailureSchema,
  FxTradeSchema,
  type FxQuote,
  type FxQuoteAnswer,
  type FxSoftFailure,
} from '../broker/fxDesk.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { brokerCall } from '../trading/brokerFailure.js';
import { OperationOptionsSchema } from '../orders/ordersController.js';
import { requestRef } from '../trading/requestRef.js';
import type { RevisionRouter } from '../trading/revisionRouter.js';

/** The `fx` controller. */
export const fxController = declareController({
  name: 'fx',
  targetScopes: ['session'],
  revisionDomains: ['trades'],
  controls: {
    getQuote: control({
      accessClass: 'read',
      risk: 'read',
      mutation: false,
      family: 'fx.quote',
      permission: 'fx.read',
      description:
        'Asks the FX/OTC desk to price selling `amount` of `from` for `to` (USD, EUR, USDT). success: true is a quote valid for 5 minutes (expiresAt): show rate and finalAmount to the person before fx.confirmQuote. success: false is the desk saying no (insufficient balance, unsupported pair, amount out of range, or it cannot price now): not an error, but no quote exists, so do NOT proceed to confirmation; show the message and do not retry automatically.',
      args: [arg('request', FxQuoteRequestSchema)],
      result: z.union([FxQuoteSchema, FxSoftFailureSchema]),
    }),
    confirmQuote: control({
      accessClass: 'trade',
      risk: 'financial',
      mutation: true,
      family: 'fx.confirm',
      permission: 'fx.trade',
      operationOptionsIndex: 1,
      description:
        'Confirms a quote from fx.getQuote: the desk trades at the live rate if it is still within tolerance. Needs context.operationId. A quote older than 5 minutes fails with broker_rejection status 410 QUOTE_EXPIRED; a rate that moved too far fails with 409 PRICE_DRIFT_EXCEEDED and details.quote {originalPrice, newPrice, tolerance}. Never retry either: get a new quote and let the person review it.',
      args: [
        arg('request', z.object({ quoteId: z.string().regex(/^Q-\d{1,12}$/) }).strict()),
        arg('options', OperationOptionsSchema),
      ],
      result: FxTradeSchema,
    }),
  },
});

/** A quote the desk could not price (empty rate) is a soft failure: never confirmable. */
function normalize(answer: FxQuoteAnswer): FxQuote | FxSoftFailure {
  if (!answer.success) return answer;
  if (answer.rate === '' || answer.finalAmount === '') {
    return {
      success: false,
      reason: 'cannot-price',
      message: `The desk cannot price ${answer.pair} right now; try again later or choose another pair. Do not confirm.`,
    };
  }
  return { ...answer, rate: answer.rate, finalAmount: answer.finalAmount };
}

/** Implements the fx controls. */
export function fxControls(
  broker: PaperBroker,
  router: RevisionRouter,
): ControllerImpl<(typeof fxController)['controls']> {
  return {
    getQuote: (ctx, request) =>
      brokerCall(false, async () => normalize(await broker.getQuote(request, { op: ctx.controlId, source: 'agent' }))),
    confirmQuote: (ctx, request) => {
      // Journaled under this confirmation's own reference: reconciliation tells it from anyone else's.
      const ref = requestRef(ctx.controlId, ctx.operationId, request);
      return router.during(ctx, () =>
        brokerCall(true, () => broker.confirmQuote(request, { op: ctx.controlId, source: 'agent', ref })),
      );
    },
  };
}

/**
 * A quote confirms at most once. This confirmation happened only when the
 * broker journaled it under its own reference (the quote's terms are the
 * quote's); a trade of the quote made by another request (the person, another
 * client) proves nothing about this one; no trade proves it did not happen.
 */
export function fxReconcile(broker: PaperBroker): NonNullable<MountOptions['reconcile']> {
  return async ({ controlId, args, operationId }) => {
    const { quoteId } = args[0] as { quoteId: string };
    try {
      const own = await broker.lookupRequest(requestRef(controlId, operationId, args[0]), { op: 'fx.getQuote' });
      if (own) return { outcome: 'happened', result: own.result };
      const trade = await broker.lookupQuote(quoteId, { op: 'fx.getQuote' });
      if (!trade) return { outcome: 'not-happened' };
      return {
        outcome: 'unknown',
        reason:
          'this quote was confirmed by another request (the person or another client), so it proves nothing about this attempt',
      };
    } catch {
      return { outcome: 'unknown', reason: 'the broker could not be read now' };
    }
  };
}
