import { describe, expect, it } from 'vitest';
import { BrokerError, LostResponseError } from './errors.js';
import { FaultInjector, parseFaults } from './faults.js';
import { AUTH_URL } from './gateway.js';
import { brokerFixture, limitBuy } from '../testing/brokerFixture.js';

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return null;
}

describe('fault grammar', () => {
  it('reads kind[:controlId][:N][:CODE] items and reports unreadable ones without echoing them', () => {
    const parsed = parseFaults(
      'lostResponse:orders.placeOrder:1,unavailable:orders.list:2,latency:200,reject:orders.cancelOrder:ORDER_LOCKED,sessionExpired,bogus:x',
    );
    expect(parsed.specs).toEqual([
      { kind: 'lostResponse', scope: 'orders.placeOrder', count: 1 },
      { kind: 'unavailable', scope: 'orders.list', count: 2 },
      { kind: 'latency', ms: 200 },
      { kind: 'reject', scope: 'orders.cancelOrder', code: 'ORDER_LOCKED' },
      { kind: 'sessionExpired' },
    ]);
    expect(parsed.errors).toEqual(['Fault item 6 is not kind[:controlId][:N][:CODE].']);
  });

  it('counts down counted faults and keeps latency until cleared', () => {
    const faults = new FaultInjector();
    faults.addText('unavailable:orders.list:2,latency:150');
    expect(faults.take('unavailable', 'orders.list')).not.toBeNull();
    expect(faults.take('unavailable', 'orders.placeOrder')).toBeNull();
    expect(faults.take('unavailable', 'orders.list')).not.toBeNull();
    expect(faults.take('unavailable', 'orders.list')).toBeNull();
    expect(faults.latency('orders.list')).toBe(150);
    faults.clear();
    expect(faults.list()).toEqual([]);
  });
});

describe('paper broker under faults (SPEC §10)', () => {
  it('applies the order when the response is lost, then throws a plain error', async () => {
    const { broker } = brokerFixture();
    broker.faults.addText('lostResponse:orders.placeOrder:1');
    const preview = await broker.previewOrder(limitBuy('LOST1'));
    const error = await thrown(broker.placeOrder(preview.placementArguments, { ref: 'op-1' }));
    expect(error).toBeInstanceOf(LostResponseError);
    expect(error).not.toBeInstanceOf(BrokerError);
    expect(broker.view.orders()).toHaveLength(1);
    expect(await broker.lookupClientOrder('PAPER-001', 'LOST1')).toMatchObject({ order: { clientOrderId: 'LOST1' } });
    expect(await broker.lookupRequest('op-1')).toMatchObject({ op: 'orders.placeOrder' });
  });

  it('answers 503 as many times as asked, applying nothing', async () => {
    const { broker } = brokerFixture();
    broker.faults.addText('unavailable:orders.list:2');
    for (let i = 0; i < 2; i++)
      expect(await thrown(broker.listOrders())).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    await expect(broker.listOrders()).resolves.toMatchObject({ total: 0 });
  });

  it('keeps the session expired (401 with auth_url) until the person re-authenticates', async () => {
    const { broker } = brokerFixture();
    broker.faults.addText('sessionExpired');
    for (let i = 0; i < 3; i++) {
      expect(await thrown(broker.listPositions())).toMatchObject({
        status: 401,
        code: 'SESSION_EXPIRED',
        authUrl: AUTH_URL,
      });
    }
    broker.reauthenticate();
    await expect(broker.listPositions()).resolves.toHaveProperty('positions');
  });

  it('waits injected latency, rejects with the given code, and rate-limits', async () => {
    const { broker, slept } = brokerFixture();
    broker.faults.addText(
      'latency:orders.previewOrder:250,reject:orders.previewOrder:RISK_BLOCK,rateLimited:alerts.list',
    );
    expect(await thrown(broker.previewOrder(limitBuy('R1')))).toMatchObject({ status: 400, code: 'RISK_BLOCK' });
    expect(slept).toEqual([250]);
    expect(await thrown(broker.listAlerts())).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });
});
