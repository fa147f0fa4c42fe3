/**
 * The `watchlist` controller: reading the watched symbols with live prices,
 * and adding or removing symbols (write; the demo's surface policy makes the
 * watchlist read-only, so agents see those two as unavailable).
 */
import { z } from 'zod';
import { arg, control, declareController } from '../../../src/sdk/declare/declare.js';
import { controlFailure } from '../../../src/sdk/outcomes/failures.js';
import type { ControllerImpl } from '../../../src/sdk/types.js';
import type { MarketSimulator } from '../market/simulator.js';
import type { WatchlistModel } from './watchlistModel.js';

const SymbolSchema = z.string().min(1).max(32).describe('Ticker, e.g. "SOLUSDT".');

const WatchRowSchema = z
  .object({
    symbol: z.string(),
    name: z.string(),
    last: z.string(),
    bid: z.string(),
    ask: z.string(),
    changePercent: z.string().describe('24h change in percent, e.g. "-1.25".'),
  })
  .strict();

const SymbolsResultSchema = z.object({ symbols: z.array(z.string()), changed: z.boolean() }).strict();

/** The `watchlist` controller, mounted on the watchlist widget. */
export const watchlistController = declareController({
  name: 'watchlist',
  targetScopes: ['widget'],
  revisionDomains: ['symbols'],
  controls: {
    list: control({
      accessClass: 'read',
      risk: 'read',
      mutation: false,
      family: 'watchlist.symbols',
      permission: 'watchlist.read',
      description:
        'Lists the watched symbols with last, bid and ask (decimal strings) and the 24h change. Prices are simulated paper data.',
      args: [],
      result: z.object({ rows: z.array(WatchRowSchema) }).strict(),
    }),
    add: control({
      accessClass: 'write',
      risk: 'write',
      mutation: true,
      family: 'watchlist.symbols',
      permission: 'watchlist.write',
      revisionDomains: ['symbols'],
      description:
        'Adds a quoted symbol to the end of the watchlist (no change when already there). Needs expectedRevisions.symbols.',
      args: [arg('symbol', SymbolSchema)],
      result: SymbolsResultSchema,
    }),
    remove: control({
      accessClass: 'write',
      risk: 'write',
      mutation: true,
      family: 'watchlist.symbols',
      permission: 'watchlist.write',
      revisionDomains: ['symbols'],
      description: 'Removes a symbol from the watchlist (no change when absent). Needs expectedRevisions.symbols.',
      args: [arg('symbol', SymbolSchema)],
      result: SymbolsResultSchema,
    }),
  },
});

/** Implements the watchlist controls over the model and the market. */
export function watchlistControls(
  model: WatchlistModel,
  market: MarketSimulator,
): ControllerImpl<(typeof watchlistController)['controls']> {
  return {
    list: () => ({
      rows: model.symbols().map((symbol) => {
        const quote = market.quote(symbol);
        return {
          symbol,
          name: market.spec(symbol)?.name ?? symbol,
          last: quote.last,
          bid: quote.bid,
          ask: quote.ask,
          changePercent: market.dayChange(symbol).changePercent.toFixed(2),
        };
      }),
    }),
    add: (ctx, symbol) => {
      if (!market.has(symbol)) {
        throw controlFailure('definite-failure', {
          message: `The market does not quote that symbol. Choose one of ${market
            .symbols()
            .map((spec) => spec.symbol)
            .join(', ')}. Nothing changed.`,
        });
      }
      const changed = model.add(symbol);
      if (changed) ctx.revisions.bump('symbols');
      return { symbols: model.symbols(), changed };
    },
    remove: (ctx, symbol) => {
      const changed = model.remove(symbol);
      if (changed) ctx.revisions.bump('symbols');
      return { symbols: model.symbols(), changed };
    },
  };
}
