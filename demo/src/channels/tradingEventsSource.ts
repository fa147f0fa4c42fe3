/**
 * The `trading.events` source: the paper broker's `TradingEvent`s (already
 * made safe by the broker), optionally only of some accounts.
 */
import type { TradingEvent } from '../../../src/protocol/index.js';
import type { ChannelSource, tradingEventsChannel } from '../../../src/sdk/index.js';

/** What the source needs of the broker's event hub. */
export interface TradingEventFeed {
  subscribe(listener: (event: TradingEvent) => void): () => void;
}

/** A trading-events source over the broker's event hub. */
export function tradingEventsSource(events: TradingEventFeed): ChannelSource<typeof tradingEventsChannel> {
  return {
    subscribe(options, emit) {
      const accounts = options?.accountIds ? new Set(options.accountIds) : null;
      return events.subscribe((event) => {
        // Events without an account (trading lines) concern every account.
        if (accounts === null || event.accountId === undefined || accounts.has(event.accountId)) emit(event);
      });
    },
  };
}
