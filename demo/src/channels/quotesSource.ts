/**
 * The `data.quotes` source: the simulated market's ticks for the symbols a
 * binding names. One market listener per binding, released on unsubscribe.
 */
import type { ChannelSource, quotesChannel } from '../../../src/sdk/index.js';
import type { MarketTick } from '../market/simulator.js';

/** What the source needs of the market. */
export interface QuoteFeed {
  has(symbol: string): boolean;
  subscribe(listener: (tick: MarketTick) => void): () => void;
}

/** `BINANCE:BTCUSDT` names the market's `BTCUSDT`: the exchange prefix is optional. */
export function marketSymbol(name: string): string {
  const colon = name.lastIndexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * A quotes source over `market`. A symbol the market does not quote makes
 * the start fail (nothing is bound), so an agent is never left waiting for
 * quotes that cannot come.
 */
export function quotesSource(market: QuoteFeed): ChannelSource<typeof quotesChannel> {
  return {
    subscribe(options, emit) {
      const wanted = new Set((options?.symbols ?? []).map(marketSymbol));
      for (const symbol of wanted) {
        if (!market.has(symbol)) throw new Error(`The market does not quote ${symbol}.`);
      }
      return market.subscribe((tick) => {
        if (wanted.has(tick.symbol)) emit(tick.quote);
      });
    },
  };
}
