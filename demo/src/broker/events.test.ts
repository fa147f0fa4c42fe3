import { describe, expect, it } from 'vitest';
import { TradingEventSchema, type TradingEvent } from '../../../src/protocol/index.js';
import { safeText } from './events.js';
import { brokerFixture, limitBuy, marketBuy } from '../testing/brokerFixture.js';

describe('trading events (the trading.events source)', () => {
  it('publishes only events that fit the channel schema, for every kind the broker emits', async () => {
    const { broker, market } = brokerFixture({ seedAlerts: true });
    const events: TradingEvent[] = [];
    broker.events.subscribe((event) => events.push(event));
    await broker.placeOrder((await broker.previewOrder(marketBuy('EV1', { quantity: '0.5' }))).placementArguments);
    const resting = await broker.placeOrder((await broker.previewOrder(limitBuy('EV2'))).placementArguments);
    const change = {
      accountId: 'PAPER-001',
      orderId: resting.orderId,
      clientOrderId: 'EV3',
      quantity: '0.02',
      limitPrice: '66000.00',
    };
    await broker.modifyOrder((await broker.previewModify(change)).placementArguments);
    await broker.cancelOrder({ accountId: 'PAPER-001', orderId: resting.orderId });
    await expect(broker.previewOrder(limitBuy('EV1'))).rejects.toThrow();
    await expect(
      broker.placeOrder({ ...(await broker.previewOrder(limitBuy('EV4'))).placementArguments, quantity: '0.03' }),
    ).rejects.toThrow();
    market.tick('BTCUSDT');
    market.tick('BTCUSDT');
    await broker.deleteAlerts([1, 5]);
    const quote = await broker.getQuote({ from: 'USD', to: 'EUR', amount: '100' });
    if (quote.success) await broker.confirmQuote({ quoteId: quote.quoteId });
    await broker.flatten({ accountId: 'PAPER-002' });
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).toEqual([
      'alert.deleted',
      'fx.confirmed',
      'order.accepted',
      'order.cancelled',
      'order.filled',
      'order.modified',
      'order.partiallyFilled',
      'order.rejected',
      'position.changed',
    ]);
    for (const event of events) expect(TradingEventSchema.safeParse(event).success).toBe(true);
  });

  it('makes broker text safe: normalized, bounded, token-like runs blanked', () => {
    expect(safeText('Insufficient \n\t funds')).toBe('Insufficient funds');
    expect(safeText('token abcdefghijklmnopqrstuvwxyz0123 leaked')).toBe('token [redacted] leaked');
    expect(safeText('word '.repeat(300))?.length).toBe(1000);
    expect(safeText('   ')).toBeNull();
  });
});
