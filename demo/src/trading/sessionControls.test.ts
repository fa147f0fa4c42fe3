import { describe, expect, it } from 'vitest';
import {
  CallReceiptSchema,
  ErrorObjectSchema,
  type CallReceipt,
  type ErrorObject,
} from '../../../src/protocol/index.js';
import type { SessionOutcome } from '../../../src/sdk/index.js';
import { describeController } from '../../../src/sdk/declare/declare.js';
import { TRADING_CONTROLLERS } from './mountTrading.js';
import { LADDER, tradingHost } from '../testing/hostFixture.js';

function receipt(outcome: SessionOutcome): CallReceipt {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return CallReceiptSchema.parse(outcome.data);
}

function failure(outcome: SessionOutcome): ErrorObject {
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome.data)}`);
  return ErrorObjectSchema.parse(outcome.error);
}

async function quoteId(t: ReturnType<typeof tradingHost>, amount = '100'): Promise<string> {
  const quote = receipt(await t.call('fx.getQuote', [{ from: 'EUR', to: 'USD', amount }]));
  return (quote.result as { quoteId: string }).quoteId;
}

describe('trading controller declarations (SPEC §5)', () => {
  it('declares access class, risk, mutation, revision domains and options index for every control', () => {
    const table = TRADING_CONTROLLERS.flatMap(describeController).map((d) =>
      [
        d.controlId,
        d.accessClass,
        d.risk,
        d.mutation,
        d.revisionDomains.join('+') || '-',
        d.operationOptionsIndex ?? '-',
      ].join(' '),
    );
    expect(table).toEqual([
      'orders.previewOrder read read false - -',
      'orders.placeOrder trade financial true orders 1',
      'orders.previewModifyOrder read read false - -',
      'orders.modifyOrder trade financial true orders 1',
      'orders.cancelOrder trade financial true orders 1',
      'orders.list read read false orders -',
      'positions.list read read false positions -',
      'risk.triggerEmergency trade financial true - 1',
      'alerts.list read read false alerts -',
      'alerts.delete trade write true alerts 1',
      'fx.getQuote read read false - -',
      'fx.confirmQuote trade financial true - 1',
      'depthLadder.getLevels read read false ladder -',
      'depthLadder.placeAtLevel trade financial true ladder 1',
    ]);
  });
});

describe('session context', () => {
  it('shows accounts, open orders, positions and equity, and every trading controller', async () => {
    const t = tradingHost();
    const context = await t.context();
    expect(context.state).toMatchObject({
      orders: { accounts: ['PAPER-001', 'PAPER-002'], openOrders: 0, totalOrders: 0 },
      positions: { positions: [{ accountId: 'PAPER-001', symbol: 'BTCUSDT', quantity: '0.15' }, {}, {}] },
      alerts: { active: 5, triggered: 0 },
    });
    expect(Object.keys(context.controllerRevisions).sort()).toEqual(['alerts', 'fx', 'orders', 'positions', 'risk']);
    const ladder = await t.context(LADDER);
    expect(ladder.state).toEqual({ symbol: 'BTCUSDT' });
  });
});

describe('fx controls (reference 002)', () => {
  it('confirms a fresh quote; a retry with the same id returns the recorded trade', async () => {
    const t = tradingHost();
    const id = await quoteId(t);
    const first = receipt(await t.call('fx.confirmQuote', [{ quoteId: id }], { operationId: 'op-fx' }));
    const again = receipt(await t.call('fx.confirmQuote', [{ quoteId: id }], { operationId: 'op-fx' }));
    expect(again.result).toEqual(first.result);
    expect(first.result).toMatchObject({ quoteId: id, pair: 'EUR/USD' });
  });

  it('fails with 410 QUOTE_EXPIRED after five minutes, as a broker rejection to act on', async () => {
    const t = tradingHost();
    const id = await quoteId(t);
    t.clock.advance(5 * 60_000);
    const error = failure(await t.call('fx.confirmQuote', [{ quoteId: id }], { operationId: 'op-late' }));
    expect(error).toMatchObject({
      code: 'broker_rejection',
      status_code: 410,
      broker_code: 'QUOTE_EXPIRED',
      retry: 'after_user_action',
    });
    expect(error.message).toMatch(/fx\.getQuote/);
  });

  it('fails with 409 PRICE_DRIFT_EXCEEDED and details.quote', async () => {
    const t = tradingHost();
    const id = await quoteId(t);
    t.market.set('EURUSD', '1.09500', '1.09503');
    const error = failure(await t.call('fx.confirmQuote', [{ quoteId: id }], { operationId: 'op-drift' }));
    expect(error).toMatchObject({
      code: 'broker_rejection',
      status_code: 409,
      broker_code: 'PRICE_DRIFT_EXCEEDED',
      details: { quote: { originalPrice: '1.083387', newPrice: '1.093372', tolerance: '0.0025' } },
    });
  });

  it('answers soft failures and unpriceable quotes as results with success:false', async () => {
    const t = tradingHost();
    const soft = receipt(await t.call('fx.getQuote', [{ from: 'EUR', to: 'USD', amount: '9000' }]));
    expect(soft.result).toMatchObject({ success: false, reason: 'insufficient-balance' });
    t.broker.faults.addText('unpriced:fx.getQuote');
    const unpriced = receipt(await t.call('fx.getQuote', [{ from: 'USD', to: 'EUR', amount: '100' }]));
    expect(unpriced.result).toMatchObject({ success: false, reason: 'cannot-price' });
  });
});

describe('alerts and risk controls', () => {
  it('keeps the complete typed result of a partial deletion in details.result', async () => {
    const t = tradingHost();
    const alerts = (await t.revisions()).alerts?.alerts ?? -1;
    const locked = t.broker.view.alerts().find((a) => a.locked)?.alertId;
    const error = failure(
      await t.call('alerts.delete', [{ alertIds: [1, locked, 77] }], {
        operationId: 'op-del',
        expectedRevisions: { alerts },
      }),
    );
    expect(error).toMatchObject({
      code: 'broker_rejection',
      retry: 'after_reconcile',
      broker_code: 'PARTIAL_DELETION',
      details: {
        result: {
          deleted: [1],
          failedAlerts: [
            { alertId: locked, reason: 'Alert is locked by the risk desk.' },
            { alertId: 77, reason: 'Alert not found.' },
          ],
        },
      },
    });
    expect(t.broker.view.alerts().map((a) => a.alertId)).not.toContain(1);
    expect((await t.revisions()).alerts?.alerts).toBe(alerts + 1);
  });

  it('deletes cleanly when every id goes', async () => {
    const t = tradingHost();
    const ok = receipt(
      await t.call('alerts.delete', [{ alertIds: [2, 3] }], {
        operationId: 'op-del2',
        expectedRevisions: { alerts: 0 },
      }),
    );
    expect(ok.result).toEqual({ deleted: [2, 3], failedAlerts: [] });
  });

  it('reconciles an emergency flatten whose answer was lost', async () => {
    const t = tradingHost();
    t.broker.faults.addText('lostResponse:risk.triggerEmergency');
    const args = [{ accountId: 'PAPER-002' }];
    expect(failure(await t.call('risk.triggerEmergency', args, { operationId: 'op-em' })).code).toBe(
      'uncertain_execution',
    );
    const reconciled = receipt(await t.call('risk.triggerEmergency', args, { operationId: 'op-em' }));
    expect(reconciled).toMatchObject({
      reconciled: true,
      result: { accountId: 'PAPER-002', closingOrders: [{ symbol: 'ETHUSDT' }] },
    });
    expect(t.broker.view.orders('PAPER-002')).toHaveLength(1);
  });
});

describe('depth ladder controls', () => {
  it('reads levels and places at one with the ladder revision it read', async () => {
    const t = tradingHost();
    const read = receipt(await t.call('depthLadder.getLevels', [{ depth: 5 }], { target: LADDER }));
    const depth = read.result as { symbol: string; levels: Array<{ price: string; side: string }> };
    expect(depth.symbol).toBe('BTCUSDT');
    expect(depth.levels.map((l) => l.side)).toEqual([
      'ask',
      'ask',
      'ask',
      'ask',
      'ask',
      'bid',
      'bid',
      'bid',
      'bid',
      'bid',
    ]);
    const bid = depth.levels[7]!;
    const order = { accountId: 'PAPER-001', side: 'buy', price: bid.price, quantity: '0.01', clientOrderId: 'LADDER1' };
    const placed = receipt(
      await t.call('depthLadder.placeAtLevel', [order], {
        target: LADDER,
        operationId: 'op-l1',
        expectedRevisions: read.revisionsAfter,
      }),
    );
    expect(placed.result).toMatchObject({ clientOrderId: 'LADDER1', status: 'accepted' });
    t.ladder.setSymbol('ETHUSDT');
    const stale = failure(
      await t.call('depthLadder.placeAtLevel', [{ ...order, clientOrderId: 'LADDER2' }], {
        target: LADDER,
        operationId: 'op-l2',
        expectedRevisions: placed.revisionsAfter,
      }),
    );
    expect(stale.code).toBe('revision_conflict');
    const off = { ...order, price: '1.00', clientOrderId: 'LADDER3' };
    const rev = (await t.revisions(LADDER)).depthLadder ?? {};
    const rejected = failure(
      await t.call('depthLadder.placeAtLevel', [off], { target: LADDER, operationId: 'op-l3', expectedRevisions: rev }),
    );
    expect(rejected).toMatchObject({ code: 'broker_rejection', broker_code: 'PRICE_NOT_ON_LADDER' });
  });
});
