import { describe, expect, it } from 'vitest';
import { brokerFixture, limitBuy } from '../broker/testing/brokerFixture.js';
import { sinceBrokerStart } from './brokerEpoch.js';
import { ordersReconcile } from './ordersControls.js';

describe('reconciliation at the paper broker (SPEC §5)', () => {
  it('finds a placement by client order id, with the acknowledgement it would have had', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    const preview = await broker.previewOrder(limitBuy('REC1'));
    const ack = await broker.placeOrder(preview.placementArguments);
    const args = [preview.placementArguments, { operationId: 'op-1' }];
    expect(
      await reconcile({
        controlId: 'orders.placeOrder',
        args,
        operationId: 'op-1',
        dispatchedAt: new Date().toISOString(),
      }),
    ).toEqual({
      outcome: 'happened',
      result: ack,
    });
  });

  it('proves "not happened" when the id is unknown, or was used for something else', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    const preview = await broker.previewOrder(limitBuy('REC2'));
    const args = [preview.placementArguments, { operationId: 'op-2' }];
    expect(
      await reconcile({
        controlId: 'orders.placeOrder',
        args,
        operationId: 'op-2',
        dispatchedAt: new Date().toISOString(),
      }),
    ).toEqual({
      outcome: 'not-happened',
    });
    const placed = await broker.placeOrder(preview.placementArguments);
    const change = {
      accountId: 'PAPER-001',
      orderId: placed.orderId,
      clientOrderId: 'REC2',
      quantity: '0.02',
      limitPrice: '66000.00',
      previewId: 'PV-9',
    };
    expect(
      await reconcile({
        controlId: 'orders.modifyOrder',
        args: [change],
        operationId: 'op-3',
        dispatchedAt: new Date().toISOString(),
      }),
    ).toEqual({
      outcome: 'not-happened',
    });
  });

  it('proves nothing while the broker cannot be read', async () => {
    const { broker } = brokerFixture();
    const reconcile = ordersReconcile(broker);
    broker.faults.addText('unavailable:orders.list');
    const args = [{ ...limitBuy('REC3'), previewId: 'PV-1' }];
    expect(
      await reconcile({
        controlId: 'orders.placeOrder',
        args,
        operationId: 'op-4',
        dispatchedAt: new Date().toISOString(),
      }),
    ).toEqual({
      outcome: 'unknown',
    });
  });

  it('SPEC §5 an attempt dispatched before this broker existed (a reload reset it) is never proven "not happened"', async () => {
    const { broker } = brokerFixture();
    const startedAtMs = Date.now();
    const reconcile = sinceBrokerStart(startedAtMs, ordersReconcile(broker));
    const preview = await broker.previewOrder(limitBuy('REC5'));
    const args = [preview.placementArguments, { operationId: 'op-5' }];
    const before = new Date(startedAtMs - 1_000).toISOString();
    expect(
      await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-5', dispatchedAt: before }),
    ).toEqual({
      outcome: 'unknown',
    });
    const after = new Date(startedAtMs).toISOString();
    expect(await reconcile({ controlId: 'orders.placeOrder', args, operationId: 'op-5', dispatchedAt: after })).toEqual(
      {
        outcome: 'not-happened',
      },
    );
  });
});
