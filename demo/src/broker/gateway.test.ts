import { describe, expect, it } from 'vitest';
import { brokerFixture, limitBuy } from '../testing/brokerFixture.js';

describe('broker request counts (what tests use to prove nothing was retried)', () => {
  it('counts every request per operation name, refused and lost ones included', async () => {
    const { broker } = brokerFixture();
    broker.faults.addText('unavailable:orders.list:1,lostResponse:orders.placeOrder:1');
    await expect(broker.listOrders({}, { op: 'orders.list' })).rejects.toMatchObject({ status: 503 });
    await broker.listOrders({}, { op: 'orders.list' });
    const preview = await broker.previewOrder(limitBuy('COUNT1'));
    await expect(broker.placeOrder(preview.placementArguments)).rejects.toThrow();
    expect(broker.requestCount('orders.list')).toBe(2);
    expect(broker.requestCount('orders.placeOrder')).toBe(1);
    expect(broker.requestCount()).toBe(4);
    expect(broker.view.orders()).toHaveLength(1);
  });
});
