/**
 * The `positions` controller on the session target: positions marked to the
 * mid and each account's cash, equity and exposure (USDT).
 */
import { z } from 'zod';
import { arg, control, declareController, type ControllerImpl } from '../../../src/sdk/index.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { PositionListSchema } from '../broker/results.js';
import { AccountIdSchema } from '../broker/schemas.js';
import { brokerCall } from '../trading/brokerFailure.js';

/** The `positions` controller. */
export const positionsController = declareController({
  name: 'positions',
  targetScopes: ['session'],
  revisionDomains: ['positions'],
  controls: {
    list: control({
      accessClass: 'read',
      risk: 'read',
      mutation: false,
      family: 'positions.read',
      permission: 'positions.read',
      revisionDomains: ['positions'],
      description:
        'Lists open positions (quantity, averagePrice, markPrice at the mid, marketValue, unrealizedPnl; decimal strings) and every account with cash, equity, grossExposure and open order count, optionally for one account. Positions change only by fills (see trading.events).',
      args: [arg('filter', z.object({ accountId: AccountIdSchema.optional() }).strict().optional())],
      result: PositionListSchema,
    }),
  },
});

/** Implements the positions controls. */
export function positionsControls(broker: PaperBroker): ControllerImpl<(typeof positionsController)['controls']> {
  return {
    list: (ctx, filter) =>
      brokerCall(false, () => broker.listPositions(filter ?? {}, { op: ctx.controlId, source: 'agent' })),
  };
}
