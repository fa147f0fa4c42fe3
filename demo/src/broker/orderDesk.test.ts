import { describe, expect, it } from 'vitest';
import type { TradingEvent } from '../../../src/protocol/index.js';
import { BrokerError } from './errors.js';
import { brokerFixture, limitBuy, marketBuy } from '../testing/brokerFixture.js';

async function brokerCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BrokerError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'ok';
}

describe('paper broker orders (SPEC §10 order workflow)', () => {
  it('acknowledges a placement without fills; the fill comes on the next tick, as an event', async () => {
    const { broker, market } = brokerFixture();
    const events: TradingEvent[] = [];
    broker.events.subscribe((event) => events.push(event));
    const preview = await broker.previewOrder(marketBuy('MKT1'));
    expect(preview.placementArguments).toEqual({ previewId: preview.previewId, ...marketBuy('MKT1') });
    expect(preview.estimatedCost).toBe('672.8364501'); // 0.01 × 67250.02 = 672.5002, plus the 5 bp fee 0.3362501
    const ack = await broker.placeOrder(preview.placementArguments);
    expect(ack).toEqual({
      orderId: ack.orderId,
      accountId: 'PAPER-001',
      clientOrderId: 'MKT1',
      status: 'accepted',
      acceptedAt: ack.acceptedAt,
    });
    expect(Object.keys(ack)).not.toContain('filledQuantity');
    expect(broker.view.orders()[0]).toMatchObject({ status: 'new', filledQuantity: '0' });
    expect(events.map((e) => e.type)).toEqual(['order.accepted']);

    market.tick('BTCUSDT');
    expect(broker.view.orders()[0]).toMatchObject({
      status: 'filled',
      filledQuantity: '0.01',
      averageFillPrice: '67250.02',
    });
    expect(events.map((e) => e.type)).toEqual(['order.accepted', 'order.filled', 'position.changed']);
    expect(broker.view.fills()).toHaveLength(1);
    expect(broker.view.positions('PAPER-001').find((p) => p.symbol === 'BTCUSDT')?.quantity).toBe('0.16');
  });

  it('fills a limit order only when the price reaches it, and large orders in parts', async () => {
    const { broker, market } = brokerFixture();
    const preview = await broker.previewOrder(limitBuy('LIM1', { quantity: '0.8' }));
    expect(preview.warnings.join(' ')).toMatch(/partial fills/);
    await broker.placeOrder(preview.placementArguments);
    market.tick('BTCUSDT');
    expect(broker.view.orders()[0]?.status).toBe('working');
    market.tick('BTCUSDT', '66990.00', '66990.02');
    expect(broker.view.orders()[0]).toMatchObject({
      status: 'partiallyFilled',
      filledQuantity: '0.4667',
      averageFillPrice: '66990.02',
    });
    market.tick('BTCUSDT');
    expect(broker.view.orders()[0]).toMatchObject({ status: 'filled', filledQuantity: '0.8' });
  });

  it('rejects a duplicate client order id, at preview and at placement (the second line of defence)', async () => {
    const { broker } = brokerFixture();
    const first = await broker.previewOrder(limitBuy('DUP1'));
    const again = await broker.previewOrder(limitBuy('DUP1', { quantity: '0.02' }));
    await broker.placeOrder(first.placementArguments);
    expect(await brokerCode(broker.placeOrder(again.placementArguments))).toBe('400 DUPLICATE_CLIENT_ORDER_ID');
    expect(await brokerCode(broker.previewOrder(limitBuy('DUP1')))).toBe('400 DUPLICATE_CLIENT_ORDER_ID');
    expect(broker.view.orders()).toHaveLength(1);
  });

  it('accepts a placement only with the preview arguments unchanged and unexpired', async () => {
    const { broker, clock } = brokerFixture();
    const preview = await broker.previewOrder(limitBuy('PV1'));
    const altered = { ...preview.placementArguments, quantity: '0.02' };
    expect(await brokerCode(broker.placeOrder(altered))).toBe('400 PREVIEW_MISMATCH');
    const reordered = Object.fromEntries(Object.entries(preview.placementArguments).reverse()) as typeof altered;
    clock.advance(121_000);
    expect(await brokerCode(broker.placeOrder(reordered))).toBe('400 PREVIEW_EXPIRED');
    const fresh = await broker.previewOrder(limitBuy('PV1'));
    expect(
      await brokerCode(
        broker.placeOrder(Object.fromEntries(Object.entries(fresh.placementArguments).reverse()) as typeof altered),
      ),
    ).toBe('ok');
    expect(await brokerCode(broker.placeOrder({ ...fresh.placementArguments, previewId: 'PV-999' }))).toBe(
      '400 DUPLICATE_CLIENT_ORDER_ID',
    );
  });

  it('needs a new client order id for a modification and changes the working order', async () => {
    const { broker } = brokerFixture();
    const placed = await broker.placeOrder((await broker.previewOrder(limitBuy('ORIG1'))).placementArguments);
    const change = { accountId: 'PAPER-001', orderId: placed.orderId, quantity: '0.02', limitPrice: '66900.00' };
    expect(await brokerCode(broker.previewModify({ ...change, clientOrderId: 'ORIG1' }))).toBe(
      '400 DUPLICATE_CLIENT_ORDER_ID',
    );
    const preview = await broker.previewModify({ ...change, clientOrderId: 'CHG1' });
    expect(await brokerCode(broker.modifyOrder({ ...preview.placementArguments, limitPrice: '66800.00' }))).toBe(
      '400 PREVIEW_MISMATCH',
    );
    const ack = await broker.modifyOrder(preview.placementArguments);
    expect(ack).toMatchObject({ orderId: placed.orderId, clientOrderId: 'CHG1', status: 'modified' });
    expect(broker.view.orders()[0]).toMatchObject({ clientOrderId: 'CHG1', quantity: '0.02', limitPrice: '66900' });
    expect(await brokerCode(broker.previewModify({ ...change, clientOrderId: 'CHG1' }))).toBe(
      '400 DUPLICATE_CLIENT_ORDER_ID',
    );
  });

  it('lets a fill race a cancel: the cancel ack claims nothing, the tick fills first', async () => {
    const { broker, market } = brokerFixture();
    const order = await broker.placeOrder((await broker.previewOrder(limitBuy('RACE1'))).placementArguments);
    const ack = await broker.cancelOrder({ accountId: 'PAPER-001', orderId: order.orderId });
    expect(ack).toEqual({
      orderId: order.orderId,
      accountId: 'PAPER-001',
      status: 'cancelRequested',
      requestedAt: ack.requestedAt,
    });
    market.tick('BTCUSDT', '66995.00', '66995.02');
    expect(broker.view.orders()[0]).toMatchObject({ status: 'filled', cancelRequested: true });
    expect(await brokerCode(broker.cancelOrder({ accountId: 'PAPER-001', orderId: order.orderId }))).toBe(
      '400 ORDER_NOT_OPEN',
    );

    const resting = await broker.placeOrder(
      (await broker.previewOrder(limitBuy('RACE2', { limitPrice: '60000.00' }))).placementArguments,
    );
    await broker.cancelOrder({ accountId: 'PAPER-001', orderId: resting.orderId });
    market.tick('BTCUSDT');
    expect(broker.view.orders().find((o) => o.orderId === resting.orderId)?.status).toBe('cancelled');
  });

  it('cancels only with the explicit owning account', async () => {
    const { broker } = brokerFixture();
    const order = await broker.placeOrder((await broker.previewOrder(limitBuy('OWN1'))).placementArguments);
    expect(await brokerCode(broker.cancelOrder({ accountId: 'PAPER-002', orderId: order.orderId }))).toBe(
      '404 ORDER_NOT_FOUND',
    );
  });

  it('flattens one account: cancels its working orders and closes its positions at market', async () => {
    const { broker, market } = brokerFixture();
    await broker.placeOrder((await broker.previewOrder(limitBuy('FL1'))).placementArguments);
    const other = await broker.previewOrder(limitBuy('FL2', { accountId: 'PAPER-002' }));
    await broker.placeOrder(other.placementArguments);
    const result = await broker.flatten({ accountId: 'PAPER-001' });
    expect(result.cancelledOrderIds).toHaveLength(1);
    expect(result.closingOrders.map((o) => [o.symbol, o.side, o.quantity])).toEqual([
      ['BTCUSDT', 'sell', '0.15'],
      ['SOLUSDT', 'sell', '40'],
    ]);
    market.tick('BTCUSDT');
    market.tick('SOLUSDT');
    expect(broker.view.positions('PAPER-001')).toEqual([]);
    expect(broker.view.positions('PAPER-002')).toHaveLength(1);
    expect(broker.view.orders('PAPER-002')[0]?.status).toBe('working');
  });

  it('refuses a buy beyond the cash and a sell beyond the position', async () => {
    const { broker } = brokerFixture();
    expect(await brokerCode(broker.previewOrder(marketBuy('BIG1', { quantity: '2' })))).toBe('400 INSUFFICIENT_FUNDS');
    expect(await brokerCode(broker.previewOrder(marketBuy('SHORT1', { side: 'sell', quantity: '0.2' })))).toBe(
      '400 INSUFFICIENT_POSITION',
    );
    expect(await brokerCode(broker.previewOrder(limitBuy('TICK1', { limitPrice: '67000.001' })))).toBe(
      '400 INVALID_PRICE_INCREMENT',
    );
    expect(await brokerCode(broker.previewOrder(limitBuy('LOT1', { quantity: '0.00001' })))).toBe(
      '400 INVALID_QUANTITY_INCREMENT',
    );
  });

  it('settles cash exactly', async () => {
    const { broker, market } = brokerFixture();
    await broker.placeOrder((await broker.previewOrder(marketBuy('CASH1', { quantity: '0.0003' }))).placementArguments);
    market.tick('BTCUSDT', '67250.15', '67250.17');
    const account = broker.view.accounts().find((a) => a.accountId === 'PAPER-001');
    // 100000 − 0.0003 × 67250.17 (20.175051) − fee 0.01008753 (rounded to 8 places)
    expect(account?.cash).toBe('99979.81486147');
  });
});
