/**
 * Builds the parts of the test hooks that read the broker and the charts
 * (see testHooks.ts for what tests may rely on).
 */
import type { OffsetClock } from './broker/clock.js';
import type { PaperBroker } from './broker/paperBroker.js';
import type { ChartPane } from './chart/chartPane.js';
import type { ChartSlot } from './chart/chartSlot.js';
import { toVisibleRange } from './chart/chartModel.js';
import type { MarketSimulator } from './market/simulator.js';
import type { BrokerHook, ChartHook, MarketHook } from './testHooks.js';

/** What a test may read and do at the paper broker. */
export function brokerHook(broker: PaperBroker, clock: OffsetClock): BrokerHook {
  const { view, faults } = broker;
  return {
    orders: (accountId) => view.orders(accountId),
    positions: (accountId) => view.positions(accountId),
    accounts: () => view.accounts(),
    fills: (accountId) => view.fills(accountId),
    alerts: () => view.alerts(),
    events: () => broker.events.recent(),
    faults: {
      set: (text) => {
        faults.clear();
        return faults.addText(text);
      },
      add: (spec) => faults.add(spec),
      clear: () => faults.clear(),
      list: () => faults.list(),
    },
    reauthenticate: () => broker.reauthenticate(),
    requests: (op) => broker.requestCount(op),
    advance: (ms) => clock.advance(ms),
    now: () => clock.now(),
    instance: broker,
  };
}

/** What a test may read of one chart; reads of a closed chart throw. */
export function chartHook(slot: ChartSlot): ChartHook {
  const pane = (): ChartPane => {
    const open = slot.pane;
    if (!open) throw new Error('This chart is closed.');
    return open;
  };
  return {
    isOpen: () => slot.pane !== null,
    visibleRange: () => toVisibleRange(pane().visibleRange()),
    symbol: () => pane().symbol(),
    interval: () => pane().interval(),
    tradingLines: () => pane().lines.list(),
    revisions: () => slot.revisions(),
  };
}

/** Pauses and resumes the market's ticks, every `periodMs` while running. */
export function marketHook(market: MarketSimulator, periodMs: number): MarketHook {
  return {
    pause: () => market.stop(),
    resume: () => market.start(periodMs),
    ticking: () => market.ticking(),
  };
}
