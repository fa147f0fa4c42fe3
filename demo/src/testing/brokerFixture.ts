/**
 * A paper broker on a hand-driven market with a clock tests move, and no
 * real waiting for injected latency.
 */
import { OffsetClock } from '../broker/clock.js';
import { PaperBroker } from '../broker/paperBroker.js';
import type { OrderRequest } from '../broker/schemas.js';
import { FixedMarket } from './fixedMarket.js';

/** Noon, 5 January 2026. */
export const T0 = Date.UTC(2026, 0, 5, 12);

/** A broker, its market and clock; alerts seeded only when asked. */
export function brokerFixture(options: { seedAlerts?: boolean } = {}) {
  const market = new FixedMarket();
  const clock = new OffsetClock(() => T0);
  const slept: number[] = [];
  const broker = new PaperBroker({
    market,
    clock,
    seed: 1,
    seedAlerts: options.seedAlerts ?? false,
    sleep: async (ms) => void slept.push(ms),
  });
  return { market, clock, broker, slept };
}

/** A small BTC limit buy below the market. */
export function limitBuy(clientOrderId: string, overrides: Partial<OrderRequest> = {}): OrderRequest {
  return {
    accountId: 'PAPER-001',
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity: '0.01',
    limitPrice: '67000.00',
    clientOrderId,
    ...overrides,
  };
}

/** A small BTC market buy. */
export function marketBuy(clientOrderId: string, overrides: Partial<OrderRequest> = {}): OrderRequest {
  const { limitPrice: _drop, ...order } = limitBuy(clientOrderId, { type: 'market', ...overrides });
  return order;
}
