import { describe, expect, it } from 'vitest';
import type { TradingEvent } from '../../../src/protocol/index.js';
import { brokerFixture } from '../testing/brokerFixture.js';

describe('alerts', () => {
  it('deletes several ids: a partial result lists every failed id with its reason', async () => {
    const { broker } = brokerFixture({ seedAlerts: true });
    const events: TradingEvent[] = [];
    broker.events.subscribe((event) => events.push(event));
    const alerts = broker.view.alerts();
    expect(alerts).toHaveLength(5);
    const locked = alerts.find((a) => a.locked)?.alertId ?? 0;
    const result = await broker.deleteAlerts([1, 2, locked, 99]);
    expect(result).toEqual({
      deleted: [1, 2],
      failedAlerts: [
        { alertId: locked, reason: 'Alert is locked by the risk desk.' },
        { alertId: 99, reason: 'Alert not found.' },
      ],
    });
    expect(events.map((e) => e.type)).toEqual(['alert.deleted', 'alert.deleted']);
    expect(await broker.deleteAlerts([3])).toEqual({ deleted: [3], failedAlerts: [] });
  });

  it('triggers an alert when the last price reaches its level', async () => {
    const { broker, market } = brokerFixture();
    const alert = await broker.createAlert({ symbol: 'ETHUSDT', condition: 'above', price: '3450' });
    market.tick('ETHUSDT');
    expect(broker.view.alerts()[0]?.status).toBe('active');
    market.tick('ETHUSDT', '3450.10', '3450.12');
    expect(broker.view.alerts()[0]).toMatchObject({ alertId: alert.alertId, status: 'triggered' });
  });
});
