import { describe, expect, it } from 'vitest';
import { MarketSimulator } from '../market/simulator.js';
import { OffsetClock } from './clock.js';
import { PaperBroker } from './paperBroker.js';
import { T0 } from '../testing/brokerFixture.js';

/** A broker on the real simulated market, both on one hand-moved clock. */
function simulated(seed: number) {
  const clock = new OffsetClock(() => T0);
  const market = new MarketSimulator({ seed, now: () => clock.now(), historyMinutes: 60 });
  const broker = new PaperBroker({ market, clock, seed, seedAlerts: false });
  const tick = (): void => {
    clock.advance(500);
    market.advance();
  };
  return { clock, market, broker, tick };
}

async function run(seed: number) {
  const { market, broker, tick } = simulated(seed);
  const order = {
    accountId: 'PAPER-001',
    symbol: 'ETHUSDT',
    side: 'buy',
    type: 'market',
    quantity: '1.5',
    clientOrderId: 'SIM1',
  } as const;
  const preview = await broker.previewOrder(order);
  await broker.placeOrder(preview.placementArguments);
  expect(broker.view.fills()).toEqual([]);
  for (let i = 0; i < 4; i++) tick();
  return { fills: broker.view.fills(), order: broker.view.orders()[0], market };
}

describe('fills driven by the simulated market', () => {
  it('fills a market order on the next ticks at the simulated ask, the same way for the same seed', async () => {
    const first = await run(7391);
    const again = await run(7391);
    expect(first.fills.length).toBeGreaterThan(0);
    expect(first.fills).toEqual(again.fills);
    expect(first.order).toMatchObject({ status: 'filled', filledQuantity: '1.5' });
    // 180 ETH a minute → 6 ETH of liquidity a tick: one tick fills it.
    expect(first.fills).toHaveLength(1);
    expect(first.fills[0]?.price).toMatch(/^\d+\.\d{1,2}$/);
    expect((await run(11)).fills).not.toEqual(first.fills);
  });
});
