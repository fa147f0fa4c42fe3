import { describe, expect, it } from 'vitest';
import {
  CallReceiptSchema,
  ErrorObjectSchema,
  type CallReceipt,
  type ErrorObject,
} from '../../../src/protocol/index.js';
import type { SessionOutcome } from '../../../src/sdk/index.js';
import { limitBuy } from '../testing/brokerFixture.js';
import { tradingHost } from '../testing/hostFixture.js';

function receipt(outcome: SessionOutcome): CallReceipt {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return CallReceiptSchema.parse(outcome.data);
}

function failure(outcome: SessionOutcome): ErrorObject {
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome.data)}`);
  return ErrorObjectSchema.parse(outcome.error);
}

describe('orders controls through a real host (SPEC §5, §10)', () => {
  it('previews, places, modifies and cancels with operation ids; acks never claim fills', async () => {
    const t = tradingHost();
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('AGENT1')]));
    const { placementArguments } = preview.result as { placementArguments: Record<string, unknown> };
    const orders = (await t.revisions()).orders?.orders ?? -1;
    const placed = receipt(
      await t.call('orders.placeOrder', [placementArguments], {
        operationId: 'op-place-1',
        expectedRevisions: { orders },
      }),
    );
    expect(placed).toMatchObject({
      operationId: 'op-place-1',
      mutation: true,
      revisionsBefore: { orders },
      revisionsAfter: { orders: orders + 1 },
    });
    expect(placed.result).toMatchObject({ clientOrderId: 'AGENT1', status: 'accepted' });
    expect(JSON.stringify(placed.result)).not.toMatch(/fill/i);
    const orderId = (placed.result as { orderId: string }).orderId;
    expect(t.broker.view.orders()[0]).toMatchObject({ orderId, source: 'agent', status: 'working' });

    const change = {
      accountId: 'PAPER-001',
      orderId,
      clientOrderId: 'AGENT1C1',
      quantity: '0.02',
      limitPrice: '66950.00',
    };
    const modifyPreview = receipt(await t.call('orders.previewModifyOrder', [change]));
    const modifyArgs = (modifyPreview.result as { placementArguments: unknown }).placementArguments;
    const modified = receipt(
      await t.call('orders.modifyOrder', [modifyArgs], {
        operationId: 'op-modify-1',
        expectedRevisions: { orders: orders + 1 },
      }),
    );
    expect(modified.result).toMatchObject({ orderId, clientOrderId: 'AGENT1C1', status: 'modified' });

    const cancelled = receipt(
      await t.call('orders.cancelOrder', [{ accountId: 'PAPER-001', orderId }], {
        operationId: 'op-cancel-1',
        expectedRevisions: { orders: orders + 2 },
      }),
    );
    expect(cancelled.result).toMatchObject({ orderId, status: 'cancelRequested' });
    t.market.tick('BTCUSDT');
    expect(t.broker.view.orders()[0]).toMatchObject({ status: 'cancelled', quantity: '0.02', limitPrice: '66950' });
    expect((await t.revisions()).orders?.orders).toBe(orders + 4);
  });

  it('refuses a financial call without a caller operation id before the broker', async () => {
    const t = tradingHost();
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('NOID1')]));
    const args = [(preview.result as { placementArguments: unknown }).placementArguments];
    expect(failure(await t.call('orders.placeOrder', args, { expectedRevisions: { orders: 0 } })).code).toBe(
      'operation_id_required',
    );
    expect(t.broker.view.orders()).toHaveLength(0);
  });

  it('places once when the same call is sent twice with the same operation id', async () => {
    const t = tradingHost();
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('TWICE1')]));
    const args = [(preview.result as { placementArguments: unknown }).placementArguments];
    const extra = { operationId: 'op-twice', expectedRevisions: { orders: 0 } };
    const [first, second] = await Promise.all([
      t.call('orders.placeOrder', args, extra),
      t.call('orders.placeOrder', args, extra),
    ]);
    const third = await t.call('orders.placeOrder', args, extra);
    expect(receipt(first).result).toEqual(receipt(second).result);
    expect(receipt(third).result).toEqual(receipt(first).result);
    expect(t.broker.view.orders()).toHaveLength(1);
  });

  it('reports a lost response as uncertain_execution with one order at the broker; the retry reconciles', async () => {
    const t = tradingHost();
    t.broker.faults.addText('lostResponse:orders.placeOrder:1');
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('LOST7')]));
    const args = [(preview.result as { placementArguments: unknown }).placementArguments];
    const extra = { operationId: 'op-lost', expectedRevisions: { orders: 0 } };
    const error = failure(await t.call('orders.placeOrder', args, extra));
    expect(error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(t.broker.view.orders()).toHaveLength(1);
    const listed = receipt(await t.call('orders.list', [{ status: 'open' }]));
    expect((listed.result as { orders: Array<{ clientOrderId: string }> }).orders.map((o) => o.clientOrderId)).toEqual([
      'LOST7',
    ]);

    const retried = receipt(await t.call('orders.placeOrder', args, extra));
    expect(retried).toMatchObject({
      operationId: 'op-lost',
      reconciled: true,
      result: { clientOrderId: 'LOST7', status: 'accepted' },
    });
    expect(t.broker.view.orders()).toHaveLength(1);
  });

  it('proves "not happened" when a 503 hit the placement: never retried, nothing placed', async () => {
    const t = tradingHost();
    t.broker.faults.addText('unavailable:orders.placeOrder:1');
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('U503')]));
    const args = [(preview.result as { placementArguments: unknown }).placementArguments];
    const extra = { operationId: 'op-503', expectedRevisions: { orders: 0 } };
    const error = failure(await t.call('orders.placeOrder', args, extra));
    expect(error.code).toBe('uncertain_execution');
    expect(t.broker.faults.list()).toEqual([]);
    expect(t.broker.view.orders()).toHaveLength(0);
    const again = failure(await t.call('orders.placeOrder', args, extra));
    expect(again).toMatchObject({ code: 'control_failed', details: { receipt: { reconciled: true } } });
    expect(t.broker.view.orders()).toHaveLength(0);
  });

  it('retries a read after 503s and succeeds', async () => {
    const t = tradingHost();
    t.broker.faults.addText('unavailable:orders.list:2');
    const listed = receipt(await t.call('orders.list', []));
    expect(listed.result).toMatchObject({ total: 0, truncated: false });
    t.broker.faults.addText('unavailable:orders.list:3');
    expect(failure(await t.call('orders.list', []))).toMatchObject({
      code: 'service_unavailable',
      retry: 'after_backoff',
      status_code: 503,
    });
  });

  it('rejects a duplicate client order id at the broker (second line of defence) as a definite rejection', async () => {
    const t = tradingHost();
    const first = receipt(await t.call('orders.previewOrder', [limitBuy('SAME1')]));
    const second = receipt(await t.call('orders.previewOrder', [limitBuy('SAME1', { quantity: '0.02' })]));
    const argsOf = (r: CallReceipt) => [(r.result as { placementArguments: unknown }).placementArguments];
    receipt(
      await t.call('orders.placeOrder', argsOf(first), { operationId: 'op-a', expectedRevisions: { orders: 0 } }),
    );
    const error = failure(
      await t.call('orders.placeOrder', argsOf(second), { operationId: 'op-b', expectedRevisions: { orders: 1 } }),
    );
    expect(error).toMatchObject({
      code: 'broker_rejection',
      status_code: 400,
      broker_code: 'DUPLICATE_CLIENT_ORDER_ID',
      retry: 'after_user_action',
    });
    expect(error.message).toMatch(/reconcile with orders\.list/);
  });

  it('maps session expiry to authentication_required with auth_url; after re-authentication the same id runs', async () => {
    const t = tradingHost();
    const preview = receipt(await t.call('orders.previewOrder', [limitBuy('AUTH1')]));
    const args = [(preview.result as { placementArguments: unknown }).placementArguments];
    t.broker.faults.addText('sessionExpired');
    const extra = { operationId: 'op-auth', expectedRevisions: { orders: 0 } };
    const error = failure(await t.call('orders.placeOrder', args, extra));
    expect(error).toMatchObject({
      code: 'authentication_required',
      status_code: 401,
      auth_url: 'https://paper-broker.invalid/auth/relogin',
      retry: 'after_user_action',
    });
    t.broker.reauthenticate();
    expect(receipt(await t.call('orders.placeOrder', args, extra)).result).toMatchObject({ clientOrderId: 'AUTH1' });
  });

  it('applies a grant change to the next call', async () => {
    const t = tradingHost();
    t.host.grant = 'write';
    const error = failure(
      await t.call('risk.triggerEmergency', [{ accountId: 'PAPER-001' }], { operationId: 'op-flat' }),
    );
    expect(error).toMatchObject({ code: 'control_unavailable', details: { reason: 'attachment-grant' } });
    t.host.grant = 'trade';
    const flat = receipt(
      await t.call('risk.triggerEmergency', [{ accountId: 'PAPER-001' }], { operationId: 'op-flat' }),
    );
    expect(flat.result).toMatchObject({
      accountId: 'PAPER-001',
      closingOrders: [{ symbol: 'BTCUSDT' }, { symbol: 'SOLUSDT' }],
    });
  });
});
