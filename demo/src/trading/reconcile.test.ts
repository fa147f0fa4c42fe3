import { describe, expect, it } from 'vitest';
import { brokerFixture, limitBuy } from '../testing/brokerFixture.js';
import { sinceBrokerStart } from './brokerEpoch.js';
import { depthLadderReconcile } from '../ladder/depthLadderController.js';
import { fxReconcile } from '../fx/fxController.js';
import { ordersReconcile } from '../orders/ordersControls.js';
import { requestRef } from './requestRef.js';

const now = () => new Date().toISOString();

describe('reconciliation at the paper broker proves the whole recorded request (SPEC §5)', () => {
  it('finds a placement by client order id with its own terms, with the acknowledgement it would have had', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    const preview = await broker.previewOrder(limitBuy('REC1'));
    const ack = await broker.placeOrder(preview.placementArguments);
    const args = [preview.placementArguments, { operationId: 'op-1' }];
    expect(await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-1', dispatchedAt: now() })).toEqual(
      {
        outcome: 'happened',
        result: ack,
      },
    );
    // The same decimals written differently are the same terms.
    const padded = [{ ...preview.placementArguments, quantity: '0.0100', limitPrice: '67000' }];
    expect(
      await reconcile({ controlId: 'orders.placeOrder', args: padded, operationId: 'op-1', dispatchedAt: now() }),
    ).toMatchObject({ outcome: 'happened' });
  });

  it('proves "not happened" only when the broker never saw the client order id', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    const preview = await broker.previewOrder(limitBuy('REC2'));
    const args = [preview.placementArguments, { operationId: 'op-2' }];
    expect(await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-2', dispatchedAt: now() })).toEqual(
      {
        outcome: 'not-happened',
      },
    );
  });

  it('SPEC §5 the id used by another request with other terms, or for another kind of request, proves nothing and says why', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    const mine = await broker.previewOrder(limitBuy('REC3', { quantity: '0.001' }));
    // Another attachment places 0.003 under the same client order id.
    const theirs = await broker.previewOrder(limitBuy('REC3', { quantity: '0.003' }));
    const placed = await broker.placeOrder(theirs.placementArguments);
    const args = [mine.placementArguments, { operationId: 'op-3' }];
    const verdict = await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-3', dispatchedAt: now() });
    expect(verdict).toEqual({
      outcome: 'unknown',
      reason: 'this client order id was used with other terms (quantity), so it proves nothing about this attempt',
    });
    const change = {
      accountId: 'PAPER-001',
      orderId: placed.orderId,
      clientOrderId: 'REC3',
      quantity: '0.02',
      limitPrice: '66000.00',
      previewId: 'PV-9',
    };
    const modify = await reconcile({
      controlId: 'orders.modifyOrder',
      args: [change],
      operationId: 'op-4',
      dispatchedAt: now(),
    });
    expect(modify).toMatchObject({ outcome: 'unknown', reason: expect.stringMatching(/was used for a placement/) });
    for (const [key, value] of [
      ['side', 'sell'],
      ['symbol', 'ETHUSDT'],
      ['limitPrice', '66999.00'],
      ['accountId', 'PAPER-002'],
    ] as const) {
      const other = [{ ...theirs.placementArguments, [key]: value }];
      const outcome = await reconcile({
        controlId: 'orders.placeOrder',
        args: other,
        operationId: 'op-5',
        dispatchedAt: now(),
      });
      // PAPER-002 never saw the id: that proves this attempt did not happen there.
      expect(outcome.outcome, key).toBe(key === 'accountId' ? 'not-happened' : 'unknown');
    }
  });

  it('a ladder order (no symbol in its request) is found with its side, quantity and level price', async () => {
    const { broker } = brokerFixture();
    const reconcile = depthLadderReconcile(broker);
    const depth = await broker.depth({ symbol: 'BTCUSDT', depth: 5 });
    const price = depth.levels.at(-1)!.price;
    const order = { accountId: 'PAPER-001', side: 'buy', price, quantity: '0.01', clientOrderId: 'LAD1' } as const;
    const { price: _level, ...rest } = order;
    await broker.placeAtLevel({ ...rest, symbol: 'BTCUSDT', limitPrice: price });
    const ask = (args: unknown[]) =>
      reconcile({ controlId: 'depthLadder.placeAtLevel', args, operationId: 'op-l', dispatchedAt: now() });
    expect(await ask([order, { operationId: 'op-l' }])).toMatchObject({ outcome: 'happened' });
    expect(await ask([{ ...order, quantity: '0.02' }])).toMatchObject({ outcome: 'unknown' });
  });

  it('proves nothing while the broker cannot be read', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    broker.faults.addText('unavailable:orders.list');
    const args = [{ ...limitBuy('REC6'), previewId: 'PV-1' }];
    expect(await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-6', dispatchedAt: now() })).toEqual(
      {
        outcome: 'unknown',
        reason: 'the broker could not be read now',
      },
    );
  });

  it('SPEC §5 an attempt dispatched before this broker existed (a reload reset it) is never proven "not happened"', async () => {
    const { broker } = brokerFixture();
    const startedAtMs = Date.now();
    const reconcile = sinceBrokerStart(startedAtMs, ordersReconcile(broker));
    const preview = await broker.previewOrder(limitBuy('REC7'));
    const args = [preview.placementArguments, { operationId: 'op-7' }];
    const before = new Date(startedAtMs - 1_000).toISOString();
    expect(
      await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-7', dispatchedAt: before }),
    ).toEqual({
      outcome: 'unknown',
      reason: expect.stringMatching(/before it reloaded/),
    });
    const after = new Date(startedAtMs).toISOString();
    expect(await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-7', dispatchedAt: after })).toEqual(
      {
        outcome: 'not-happened',
      },
    );
  });
});

describe('reconciliation of an FX confirmation (SPEC §5)', () => {
  async function quote(broker: ReturnType<typeof brokerFixture>['broker']): Promise<string> {
    const answer = await broker.getQuote({ from: 'USD', to: 'EUR', amount: '100.00' });
    if (!answer.success) throw new Error('no quote');
    return answer.quoteId;
  }

  it('SPEC §5 its own confirmation happened; the quote confirmed by another request proves nothing; no trade proves it did not happen', async () => {
    const { broker } = brokerFixture();
    const reconcile = fxReconcile(broker);
    const ask = async (quoteId: string, operationId: string) =>
      reconcile({
        controlId: 'fx.confirmQuote',
        args: [{ quoteId }, { operationId }],
        operationId,
        dispatchedAt: now(),
      });
    const mine = await quote(broker);
    const ref = requestRef('fx.confirmQuote', 'op-fx', { quoteId: mine });
    const trade = await broker.confirmQuote({ quoteId: mine }, { op: 'fx.confirmQuote', source: 'agent', ref });
    expect(await ask(mine, 'op-fx')).toEqual({ outcome: 'happened', result: trade });
    const theirs = await quote(broker);
    expect(await ask(theirs, 'op-fx-2')).toEqual({ outcome: 'not-happened' });
    const other = requestRef('fx.confirmQuote', 'op-other', { quoteId: theirs });
    await broker.confirmQuote({ quoteId: theirs }, { op: 'fx.confirmQuote', source: 'agent', ref: other });
    expect(await ask(theirs, 'op-fx-2')).toEqual({
      outcome: 'unknown',
      reason: expect.stringMatching(/confirmed by another request/),
    });
    const byPerson = await quote(broker);
    await broker.confirmQuote({ quoteId: byPerson }, { source: 'person' });
    expect(await ask(byPerson, 'op-fx-3')).toMatchObject({ outcome: 'unknown' });
  });
});
